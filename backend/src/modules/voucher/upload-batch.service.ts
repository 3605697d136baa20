import { Injectable } from '@nestjs/common';
import { AdminUserRepository } from '../auth/admin-user.repository';
import { ProductRepository } from '../product/product.repository';
import { ProductService } from '../product/product.service';
import { UploadBatchKind } from './entities/upload-batch.entity';
import { UploadBatchRepository } from './upload-batch.repository';

export interface UploadBatchView {
  id: string;
  kind: UploadBatchKind;
  fileName: string | null;
  uploadedBy: string | null;
  uploadedAt: Date;
  inserted: number;
  duplicates: number;
  invalid: number;
  refunded: number;
  unknown: number;
  /** Why an upload failed after its load began (docs/product.md §20.6); null for one that loaded. */
  failure: string | null;
  /** Null for a void file: it brings no codes of its own (its outcome is inserted/duplicates/refunded/unknown). */
  counts: { uploaded: number; redeemed: number; unredeemed: number; void: number; exported: number } | null;
}

/**
 * A product's upload batches with live counts (docs/product.md §20.1): three reads whatever the number of codes or batches —
 * the batch rows, their counter rows summed per batch (the product module's `product_counts`), the uploaders' names.
 */
@Injectable()
export class UploadBatchService {
  constructor(
    private readonly batches: UploadBatchRepository,
    private readonly products: ProductService,
    private readonly counters: ProductRepository,
    private readonly users: AdminUserRepository,
  ) {}

  /** Newest first; the "before batches" batch only while it holds codes. 404 for an unknown product. */
  async list(productId: string): Promise<UploadBatchView[]> {
    await this.products.require(productId);
    const [batches, counts] = await Promise.all([this.batches.list(productId), this.counters.countsByBatch(productId)]);
    const ids = [...new Set(batches.flatMap((b) => (b.adminUserId ? [b.adminUserId] : [])))];
    const names = await this.users.usernames(ids);
    return batches
      .map((b): UploadBatchView => {
        const c = counts.get(b.id) ?? { unredeemed: 0, redeemed: 0, void: 0, exported: 0 };
        return {
          id: b.id,
          kind: b.kind,
          fileName: b.fileName,
          uploadedBy: (b.adminUserId && names.get(b.adminUserId)) ?? null,
          uploadedAt: b.createdAt,
          inserted: b.inserted,
          duplicates: b.duplicates,
          invalid: b.invalid,
          refunded: b.refunded,
          unknown: b.unknown,
          failure: b.failure,
          counts:
            b.kind === 'void'
              ? null
              : {
                  uploaded: c.unredeemed + c.redeemed + c.void,
                  redeemed: c.redeemed,
                  unredeemed: c.unredeemed,
                  void: c.void,
                  exported: c.exported,
                },
        };
      })
      .filter((b) => b.kind !== 'before-batches' || (b.counts?.uploaded ?? 0) > 0);
  }
}
