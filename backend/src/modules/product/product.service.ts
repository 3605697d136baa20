import {
  BadGatewayException,
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import { RequestActor } from '../../common/utils/request-actor';
import { ATTEMPT_MESSAGES, AttemptLimiterService } from '../auth/attempt-limiter.service';
import { MailTransportService } from '../mail/mail-transport.service';
import { htmlToText, renderTemplate } from '../mail/template';
import { CreateProductDto, TestEmailDto, UpdateProductDto } from './dto/product.dto';
import { Product } from './entities/product.entity';
import { NO_COUNTS, ProductCountsView, ProductFields, ProductRepository } from './product.repository';
import { DomainEvents } from '../../events/domain-events.service';

export interface ProductView {
  id: string;
  name: string;
  downloadLink: string;
  activationLink: string | null;
  removalToolLink: string | null;
  productKey: string | null;
  emailTemplate: string;
  emailSubject: string;
  status: string;
  isLicenseManaged: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** Available codes (neither redeemed nor void). */
  unredeemedCount: number;
  redeemedCount: number;
  /** Codes voided by a refund before redemption (docs/product.md §19.3). */
  voidCount: number;
  totalCount: number;
}

/** Sample values of the template editor's "Send Test Email" (docs/product.md §3.10). */
export const TEST_EMAIL_VALUES = {
  customer_name: 'John Doe',
  first_name: 'John',
  last_name: 'Doe',
  voucher_code: 'SAMPLE-VOUCHER-1234',
  license_key: 'XXXXX-XXXXX-XXXXX-XXXXX-XXXXX',
};

/** The product fields an update may change (the DTO's names are the entity's). */
const PRODUCT_FIELDS = [
  'name',
  'downloadLink',
  'activationLink',
  'removalToolLink',
  'productKey',
  'emailSubject',
  'emailTemplate',
  'status',
  'isLicenseManaged',
] as const satisfies ReadonlyArray<keyof CreateProductDto & keyof ProductFields>;

/** The columns a null clears. */
const NULLABLE_FIELDS = new Set<(typeof PRODUCT_FIELDS)[number]>(['productKey', 'activationLink', 'removalToolLink']);

const UNIQUE_VIOLATION = '23505';

@Injectable()
export class ProductService {
  constructor(
    private readonly products: ProductRepository,
    private readonly events: DomainEvents,
    private readonly mail: MailTransportService,
    private readonly limiter: AttemptLimiterService,
  ) {}

  /** Code counts come from the counters (`product_counts`): a few rows a product, no count of codes. */
  async list(): Promise<ProductView[]> {
    const [products, counts] = await Promise.all([this.products.findAll(), this.products.counts()]);
    return products.map((p) => toView(p, counts.get(p.id)));
  }

  async get(id: string): Promise<ProductView> {
    const [product, counts] = await Promise.all([this.products.findById(id), this.products.counts(id)]);
    if (!product) throw new NotFoundException('Product not found.');
    return toView(product, counts.get(id));
  }

  find(id: string): Promise<Product | null> {
    return this.products.findById(id);
  }

  /** The product or 404 (for the modules that work on a product's data). */
  async require(id: string): Promise<Product> {
    const product = await this.products.findById(id);
    if (!product) throw new NotFoundException('Product not found.');
    return product;
  }

  async create(dto: CreateProductDto, ctx: RequestActor): Promise<ProductView> {
    let id: string;
    try {
      id = await this.products.insert({
        name: dto.name,
        downloadLink: dto.downloadLink ?? '',
        activationLink: dto.activationLink ?? null,
        removalToolLink: dto.removalToolLink ?? null,
        productKey: dto.productKey ?? null,
        emailSubject: dto.emailSubject ?? '',
        emailTemplate: dto.emailTemplate ?? '',
        status: dto.status ?? 'active',
        isLicenseManaged: dto.isLicenseManaged ?? false,
      });
    } catch (err) {
      throw duplicateName(err);
    }
    await this.events.publish('product.create', {
      ...ctx,
      success: true,
      resource: 'product',
      resourceId: id,
      details: { name: dto.name },
      productName: dto.name,
    });
    return this.get(id);
  }

  async update(id: string, dto: UpdateProductDto, ctx: RequestActor): Promise<ProductView> {
    const fields: ProductFields = {};
    for (const field of PRODUCT_FIELDS) {
      const value = dto[field];
      // null only clears the optional columns (product key, package links); for the others it means "not given".
      if (value === undefined || (value === null && !NULLABLE_FIELDS.has(field))) continue;
      Object.assign(fields, { [field]: value });
    }
    if (!Object.keys(fields).length) {
      throw new BadRequestException('Nothing to update: send at least one product field.');
    }
    let updated: boolean;
    try {
      updated = await this.products.update(id, fields);
    } catch (err) {
      throw duplicateName(err);
    }
    if (!updated) throw new NotFoundException('Product not found.');
    const changed = Object.keys(dto).filter((k) => dto[k as keyof UpdateProductDto] !== undefined);
    const view = await this.get(id);
    await this.events.publish('product.update', {
      ...ctx,
      success: true,
      resource: 'product',
      resourceId: id,
      details: { fields: changed },
      productName: view.name,
    });
    return view;
  }

  /** Renders the (saved or unsaved) template with sample values and sends it through the normal providers. */
  /**
   * docs/product.md §18.6 "Test e-mails": only to the address of an active staff account (admin_users), at most 10 per
   * user per hour (sent or failed; 429 after), so the call cannot be used to mail arbitrary addresses.
   */
  async sendTestEmail(id: string, dto: TestEmailDto, ctx: RequestActor): Promise<{ message: string }> {
    const product = await this.get(id);
    if (!(await this.limiter.isStaffEmail(dto.to))) {
      throw new BadRequestException({
        message: ATTEMPT_MESSAGES.notStaff,
        errors: [{ field: 'to', message: ATTEMPT_MESSAGES.notStaff }],
      });
    }
    if (!ctx.adminUserId) throw new ForbiddenException(ATTEMPT_MESSAGES.notStaff);
    return this.limiter.testEmail(ctx.adminUserId, () => this.deliverTestEmail(product, id, dto, ctx));
  }

  private async deliverTestEmail(
    product: ProductView,
    id: string,
    dto: TestEmailDto,
    ctx: RequestActor,
  ): Promise<{ message: string }> {
    const values = {
      ...TEST_EMAIL_VALUES,
      product_name: product.name,
      download_link: product.downloadLink || 'https://example.com/download',
      // docs/product.md §12.7: a Mac product's package links, else samples.
      activation_link: product.activationLink || 'https://example.com/licence-package.pkg',
      removal_tool_link: product.removalToolLink || 'https://example.com/removal-tool.pkg',
    };
    const subjectTemplate = dto.emailSubject ?? product.emailSubject;
    const subject = `[TEST] ${renderTemplate(subjectTemplate || 'Your {{product_name}} order', values, false)}`;
    const html = renderTemplate(dto.emailTemplate ?? product.emailTemplate, values, true);
    const attempts = await this.mail.send({ to: dto.to, subject, html, text: htmlToText(html) });
    const ok = attempts.some((a) => a.ok);
    await this.events.publish('product.test-email', {
      ...ctx,
      success: ok,
      resource: 'product',
      resourceId: id,
      details: { to: dto.to, attempts: attempts.map((a) => ({ provider: a.provider, ok: a.ok, error: a.error })) },
    });
    if (!ok) {
      throw new BadGatewayException(`The test email could not be sent: ${attempts.map((a) => a.error).join('; ')}`);
    }
    return { message: `Test email sent to ${dto.to}` };
  }
}

function duplicateName(err: unknown): unknown {
  if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
    return new ConflictException('A product with this name already exists.');
  }
  return err;
}

function toView(product: Product, counts: ProductCountsView = NO_COUNTS): ProductView {
  return {
    id: product.id,
    name: product.name,
    downloadLink: product.downloadLink,
    activationLink: product.activationLink,
    removalToolLink: product.removalToolLink,
    productKey: product.productKey,
    emailTemplate: product.emailTemplate,
    emailSubject: product.emailSubject,
    status: product.status,
    isLicenseManaged: product.isLicenseManaged,
    createdAt: product.createdAt,
    updatedAt: product.updatedAt,
    unredeemedCount: counts.unredeemed,
    redeemedCount: counts.redeemed,
    voidCount: counts.void,
    totalCount: counts.unredeemed + counts.redeemed + counts.void,
  };
}
