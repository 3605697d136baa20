import {
  BadGatewayException,
  BadRequestException,
  ConflictException,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RequestActor } from '../../common/utils/request-actor';
import { AuditService } from '../audit/audit.service';
import { MailTransportService } from '../mail/mail-transport.service';
import { htmlToText, renderTemplate } from '../mail/template';
import { RealtimeService } from '../realtime/realtime.service';
import { CreateProductDto, TestEmailDto, UpdateProductDto } from './dto/product.dto';

export interface ProductView {
  id: string;
  name: string;
  downloadLink: string;
  productKey: string | null;
  emailTemplate: string;
  emailSubject: string;
  status: string;
  isLicenseManaged: boolean;
  createdAt: Date;
  updatedAt: Date;
  unredeemedCount: number;
  redeemedCount: number;
  totalCount: number;
}

interface ProductRow {
  id: string;
  name: string;
  download_link: string;
  product_key: string | null;
  email_template: string;
  email_subject: string;
  status: string;
  is_license_managed: boolean;
  created_at: Date;
  updated_at: Date;
  unredeemed: number;
  redeemed: number;
}

/*
 * Code counts: two grouped index-only passes, unredeemed codes over idx_voucher_codes_unredeemed_seq and
 * redeemed ones over idx_voucher_codes_redeemed (both partial), joined once: no query per product.
 */
const PRODUCTS_SQL = `
SELECT p.*, coalesce(u.n, 0)::int AS unredeemed, coalesce(r.n, 0)::int AS redeemed
  FROM products p
  LEFT JOIN (SELECT product_id, count(*) AS n FROM voucher_codes
              WHERE NOT is_redeemed AND ($1::uuid IS NULL OR product_id = $1) GROUP BY product_id) u ON u.product_id = p.id
  LEFT JOIN (SELECT product_id, count(*) AS n FROM voucher_codes
              WHERE is_redeemed AND ($1::uuid IS NULL OR product_id = $1) GROUP BY product_id) r ON r.product_id = p.id
 WHERE ($1::uuid IS NULL OR p.id = $1)
 ORDER BY p.created_at, p.name`;

/** Sample values of the template editor's "Send Test Email" (SPEC §2). */
export const TEST_EMAIL_VALUES = {
  customer_name: 'John Doe',
  first_name: 'John',
  last_name: 'Doe',
  voucher_code: 'SAMPLE-VOUCHER-1234',
  license_key: 'XXXXX-XXXXX-XXXXX-XXXXX-XXXXX',
};

const UNIQUE_VIOLATION = '23505';

@Injectable()
export class ProductService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly realtime: RealtimeService,
    private readonly mail: MailTransportService,
  ) {}

  async list(): Promise<ProductView[]> {
    const rows: ProductRow[] = await this.dataSource.query(PRODUCTS_SQL, [null]);
    return rows.map(toView);
  }

  async get(id: string): Promise<ProductView> {
    const [row]: ProductRow[] = await this.dataSource.query(PRODUCTS_SQL, [id]);
    if (!row) throw new NotFoundException('Product not found.');
    return toView(row);
  }

  async create(dto: CreateProductDto, ctx: RequestActor): Promise<ProductView> {
    let id: string;
    try {
      const [row] = await this.dataSource.query(
        `INSERT INTO products (name, download_link, product_key, email_subject, email_template, status, is_license_managed)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
        [
          dto.name,
          dto.downloadLink ?? '',
          dto.productKey ?? null,
          dto.emailSubject ?? '',
          dto.emailTemplate ?? '',
          dto.status ?? 'active',
          dto.isLicenseManaged ?? false,
        ],
      );
      id = row.id;
    } catch (err) {
      throw duplicateName(err);
    }
    await this.audit.record({
      ...ctx,
      action: 'product.create',
      success: true,
      resource: 'product',
      resourceId: id,
      details: { name: dto.name },
    });
    this.realtime.emit('productUpdate', `Product ${dto.name} created`);
    return this.get(id);
  }

  async update(id: string, dto: UpdateProductDto, ctx: RequestActor): Promise<ProductView> {
    const columns: Record<keyof CreateProductDto, string> = {
      name: 'name',
      downloadLink: 'download_link',
      productKey: 'product_key',
      emailSubject: 'email_subject',
      emailTemplate: 'email_template',
      status: 'status',
      isLicenseManaged: 'is_license_managed',
    };
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const [field, column] of Object.entries(columns) as Array<[keyof CreateProductDto, string]>) {
      const value = dto[field];
      // null only clears the optional product key; for the other columns it means "not given".
      if (value === undefined || (value === null && field !== 'productKey')) continue;
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    }
    if (!sets.length) throw new BadRequestException('Nothing to update: send at least one product field.');
    let updated: unknown[];
    try {
      [updated] = await this.dataSource.query(
        `UPDATE products SET ${sets.join(', ')}, updated_at = now() WHERE id = $1 RETURNING id`,
        params,
      );
    } catch (err) {
      throw duplicateName(err);
    }
    if (!updated.length) throw new NotFoundException('Product not found.');
    const changed = Object.keys(dto).filter((k) => dto[k as keyof UpdateProductDto] !== undefined);
    await this.audit.record({
      ...ctx,
      action: 'product.update',
      success: true,
      resource: 'product',
      resourceId: id,
      details: { fields: changed },
    });
    const view = await this.get(id);
    this.realtime.emit('productUpdate', `Product ${view.name} updated`);
    return view;
  }

  /** Renders the (saved or unsaved) template with sample values and sends it through the normal providers. */
  async sendTestEmail(id: string, dto: TestEmailDto, ctx: RequestActor): Promise<{ message: string }> {
    const product = await this.get(id);
    const values = {
      ...TEST_EMAIL_VALUES,
      product_name: product.name,
      download_link: product.downloadLink || 'https://example.com/download',
    };
    const subjectTemplate = dto.emailSubject ?? product.emailSubject;
    const subject = `[TEST] ${renderTemplate(subjectTemplate || 'Your {{product_name}} order', values, false)}`;
    const html = renderTemplate(dto.emailTemplate ?? product.emailTemplate, values, true);
    const attempts = await this.mail.send({ to: dto.to, subject, html, text: htmlToText(html) });
    const ok = attempts.some((a) => a.ok);
    await this.audit.record({
      ...ctx,
      action: 'product.test-email',
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

function toView(row: ProductRow): ProductView {
  return {
    id: row.id,
    name: row.name,
    downloadLink: row.download_link,
    productKey: row.product_key,
    emailTemplate: row.email_template,
    emailSubject: row.email_subject,
    status: row.status,
    isLicenseManaged: row.is_license_managed,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    unredeemedCount: row.unredeemed,
    redeemedCount: row.redeemed,
    totalCount: row.unredeemed + row.redeemed,
  };
}
