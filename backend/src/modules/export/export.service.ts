import { Injectable, NotFoundException } from '@nestjs/common';
import { Inventory, maskInventory } from '../../common/inventory/inventory';
import { Permission } from '../../common/permissions';
import { RequestActor } from '../../common/utils/request-actor';
import { ExportFormat, ProductExportQuery, RedeemedVouchersExportQuery } from './dto/export.dto';
import { ExportRepository } from './export.repository';
import { ExportColumn, ExportOutput, ExportWriter } from './export-writer.service';
import { DataCipher } from '../../config/data-cipher';
import { openStoredKey, StoredKeyColumns } from '../license/license.repository';
import { stripManualPrefix } from '../license/entities/license-key.entity';
import { UploadBatchRepository } from '../voucher/upload-batch.repository';

/**
 * A row of a redemption export as the cursor gives it: its inventory declared like a response's, so the one
 * masking function (`maskInventory`) masks the licence key (docs/product.md §10.6) for a caller without `licenses.view`.
 */
export class RedemptionExportRow {
  @Inventory(Permission.LicensesView) license_key: string | null;
}

/** Columns of an export of redemptions (customer data). */
const REDEMPTION_COLUMNS: ExportColumn[] = [
  { key: 'code', header: 'Voucher Code' },
  { key: 'first_name', header: 'First Name' },
  { key: 'last_name', header: 'Last Name' },
  { key: 'email', header: 'Email' },
  { key: 'phone', header: 'Phone' },
  { key: 'country', header: 'Country' },
  { key: 'product', header: 'Product' },
  { key: 'email_status', header: 'Email Status' },
  { key: 'license_key', header: 'License Key' },
  { key: 'download_link', header: 'Download Link' },
  { key: 'redeemed_at', header: 'Redeemed At' },
  { key: 'exported_at', header: 'Exported At' },
  { key: 'refunded_at', header: 'Refunded At' },
];

/** The export files (docs/product.md §16.3): what each contains; ExportWriter streams them. */
@Injectable()
export class ExportService {
  constructor(
    private readonly writer: ExportWriter,
    private readonly exports: ExportRepository,
    private readonly cipher: DataCipher,
    private readonly batches: UploadBatchRepository,
  ) {}

  /**
   * A redemption row's licence key opened in the stream, as the customer knows it (no MANUAL_ prefix), then masked
   * as the caller may see it.
   */
  private openKey(permissions: readonly string[]) {
    return (row: Record<string, unknown>): Record<string, unknown> => {
      const { key_ciphertext, ...rest } = row;
      const stored = openStoredKey(this.cipher, { license_key: row.license_key, key_ciphertext } as StoredKeyColumns);
      const opened = { ...rest, license_key: stored === null ? null : stripManualPrefix(stored) };
      return maskInventory(opened, RedemptionExportRow, permissions);
    };
  }

  selectedRedemptions(
    ids: string[],
    format: ExportFormat,
    out: ExportOutput,
    ctx: RequestActor,
    permissions: readonly string[],
  ): Promise<void> {
    return this.writer.write(
      {
        kind: 'selected-redemptions',
        format,
        source: { redemptions: { ids: [...new Set(ids)] } },
        columns: REDEMPTION_COLUMNS,
        mapRow: this.openKey(permissions),
        emptyMessage: 'No redemptions found to export.',
        details: { requested: ids.length },
      },
      out,
      ctx,
    );
  }

  /** The redemption list as filtered on screen (Recent Redemptions or, with showExported=true, Exported Vouchers). */
  redeemedVouchers(
    query: RedeemedVouchersExportQuery,
    out: ExportOutput,
    ctx: RequestActor,
    permissions: readonly string[],
  ): Promise<void> {
    const list = {
      showExported: query.showExported === 'true',
      emailStatus: query.emailStatus && query.emailStatus !== 'all' ? query.emailStatus : undefined,
      search: query.search || undefined,
    };
    return this.writer.write(
      {
        kind: 'redeemed-vouchers',
        format: query.format,
        source: { redemptions: { list } },
        columns: REDEMPTION_COLUMNS,
        mapRow: this.openKey(permissions),
        emptyMessage: 'No redeemed vouchers found to export.',
        details: { showExported: query.showExported === 'true', emailStatus: query.emailStatus, search: query.search },
      },
      out,
      ctx,
    );
  }

  /** Redeemed codes only, no customer data (operators may export these); marks nothing. */
  redeemedVoucherCodes(query: ProductExportQuery, out: ExportOutput, ctx: RequestActor): Promise<void> {
    return this.writer.write(
      {
        kind: 'redeemed-voucher-codes',
        format: query.format,
        source: { codes: { kind: 'redeemed', productId: query.productId ?? null } },
        columns: [
          { key: 'code', header: 'Voucher Code' },
          { key: 'product', header: 'Product' },
          { key: 'redeemed_at', header: 'Redeemed At' },
          { key: 'status', header: 'Status' },
          { key: 'refunded_at', header: 'Refunded At' },
        ],
        emptyMessage: 'No redeemed voucher codes found to export.',
        details: { productId: query.productId },
      },
      out,
      ctx,
    );
  }

  async unredeemedVouchers(query: ProductExportQuery, out: ExportOutput, ctx: RequestActor): Promise<void> {
    if (query.productId && !(await this.exports.productExists(query.productId))) {
      throw new NotFoundException('Product not found.');
    }
    return this.writer.write(
      {
        kind: 'unredeemed-vouchers',
        format: query.format,
        source: { codes: { kind: 'unredeemed', productId: query.productId ?? null } },
        columns: [
          { key: 'code', header: 'Voucher Code' },
          { key: 'product', header: 'Product' },
          { key: 'created_at', header: 'Created At' },
          { key: 'status', header: 'Status' },
        ],
        emptyMessage: 'No unredeemed voucher codes found to export.',
        details: { productId: query.productId },
      },
      out,
      ctx,
    );
  }

  /**
   * A batch's reconciliation (docs/product.md §20.1): every code of the batch with its state, redeemed, exported and refunded
   * times, straight from COPY (flat memory whatever the batch's size); marks nothing. 404 for an unknown batch.
   */
  async batch(id: string, format: ExportFormat, out: ExportOutput, ctx: RequestActor): Promise<void> {
    const batch = await this.batches.findById(id);
    if (!batch) throw new NotFoundException('Batch not found.');
    return this.writer.write(
      {
        kind: 'batch',
        format,
        source: { codes: { kind: 'batch', batchId: id, batchKind: batch.kind } },
        columns: [
          { key: 'code', header: 'Voucher Code' },
          { key: 'status', header: 'Status' },
          { key: 'redeemed_at', header: 'Redeemed At' },
          { key: 'exported_at', header: 'Exported At' },
          { key: 'refunded_at', header: 'Refunded At' },
        ],
        emptyMessage: 'No voucher codes in this batch.',
        details: { batchId: id, productId: batch.productId, batchKind: batch.kind },
      },
      out,
      ctx,
    );
  }
}
