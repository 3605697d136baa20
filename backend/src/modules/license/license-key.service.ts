import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { isUniqueViolation } from '../../common/utils/sql';
import { pagination } from '../../database/list/list-rules';
import type { RequestActor } from '../../common/utils/request-actor';
import { CreateLicenseKeyDto, ListLicenseKeysQuery } from './dto/license-key.dto';
import { LicenseKeyAdminRepository, LicenseKeySummary, LicenseKeyView } from './license-key-admin.repository';
import { DomainEvents } from '../../events/domain-events.service';

export type { LicenseKeySummary, LicenseKeyView };

export const LICENSE_KEY_MESSAGES = {
  notFound: 'License key not found',
  productNotFound: 'Product not found',
  productNotManaged: 'License keys can only be added to license-managed products',
  duplicate: 'This license key already exists for this product',
  assigned: (n: number) =>
    `This license key has been assigned to ${n} redemption(s) and cannot be deleted. Deactivate it instead.`,
} as const;

@Injectable()
export class LicenseKeyService {
  constructor(
    private readonly keys: LicenseKeyAdminRepository,
    private readonly events: DomainEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async licenseManagedProducts() {
    return (await this.keys.licenseManagedProducts()).map((p) => ({ ...p, isLicenseManaged: true }));
  }

  /**
   * Keys in docs/product.md §5.5 order: available, then partially used, then fully used, newest first within each.
   * The summary counts the product filter's keys, whatever the search or state filter.
   */
  async list(query: ListLicenseKeysQuery) {
    const page = query.page ?? 1;
    const limit = query.limit ?? 100;
    const { keys, hasNextPage, counted, summary } = await this.keys.list(
      { productId: query.productId, search: query.search, status: query.status },
      { limit, offset: (page - 1) * limit, exactLimit: this.config.listExactCountLimit },
    );
    return {
      licenseKeys: keys,
      summary,
      pagination: pagination(page, limit, keys.length, hasNextPage, counted),
    };
  }

  async create(dto: CreateLicenseKeyDto, actor: RequestActor): Promise<LicenseKeyView> {
    const maxActivations = dto.licenseType === 'volume' ? dto.maxActivations! : 1;
    let id: string | undefined;
    try {
      id = await this.keys.insertPoolKey({
        productId: dto.productId,
        licenseKey: dto.licenseKey,
        downloadLink: dto.downloadLink,
        licenseType: dto.licenseType,
        maxActivations,
      });
    } catch (err) {
      if (isUniqueViolation(err, 'uq_license_keys_product_hash')) {
        await this.events.publish('license-key.create', {
          ...actor,
          success: false,
          resource: 'license_key',
          details: { productId: dto.productId, reason: 'duplicate' },
        });
        throw new ConflictException(LICENSE_KEY_MESSAGES.duplicate);
      }
      throw err;
    }
    if (!id) {
      const managed = await this.keys.productIsLicenseManaged(dto.productId);
      if (managed === undefined) throw new NotFoundException(LICENSE_KEY_MESSAGES.productNotFound);
      throw new BadRequestException(LICENSE_KEY_MESSAGES.productNotManaged);
    }
    const view = await this.findOne(id);
    await this.events.publish('license-key.create', {
      ...actor,
      success: true,
      resource: 'license_key',
      resourceId: view.id, // The key itself is a secret: the audit log keeps only its last characters.
      details: {
        productId: view.productId,
        keyEnd: view.licenseKey.slice(-5),
        licenseType: view.licenseType,
        maxActivations,
      },
    });
    await this.events.publish('license.keys-added', { productIds: [view.productId] });
    return view;
  }

  async setActive(id: string, isActive: boolean, actor: RequestActor): Promise<LicenseKeyView> {
    if (!(await this.keys.setActive(id, isActive))) throw new NotFoundException(LICENSE_KEY_MESSAGES.notFound);
    await this.events.publish(isActive ? 'license-key.activate' : 'license-key.deactivate', {
      ...actor,
      success: true,
      resource: 'license_key',
      resourceId: id,
    });
    const view = await this.findOne(id);
    if (isActive) await this.events.publish('license.keys-added', { productIds: [view.productId] });
    return view;
  }

  /** Deletes a key nobody has received (the repository's DELETE holds the conditions, safe against a concurrent assignment). */
  async remove(id: string, actor: RequestActor): Promise<{ success: true; message: string }> {
    const deleted = await this.keys.deleteUnassigned(id);
    if (!deleted) {
      const usage = await this.keys.usage(id);
      if (!usage) throw new NotFoundException(LICENSE_KEY_MESSAGES.notFound);
      await this.events.publish('license-key.delete', {
        ...actor,
        success: false,
        resource: 'license_key',
        resourceId: id,
        details: { reason: 'assigned', assignments: usage.assignments },
      });
      throw new ConflictException(LICENSE_KEY_MESSAGES.assigned(Math.max(usage.assignments, usage.currentActivations)));
    }
    await this.events.publish('license-key.delete', {
      ...actor,
      success: true,
      resource: 'license_key',
      resourceId: id,
      details: { productId: deleted.productId },
    });
    return { success: true, message: 'License key deleted' };
  }

  async findOne(id: string): Promise<LicenseKeyView> {
    const view = await this.keys.findView(id);
    if (!view) throw new NotFoundException(LICENSE_KEY_MESSAGES.notFound);
    return view;
  }
}
