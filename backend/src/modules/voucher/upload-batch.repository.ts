import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { UploadBatch, UploadBatchKind } from './entities/upload-batch.entity';

/** A batch row as its load writes it, in the load's transaction. */
export interface NewUploadBatch {
  id: string;
  productId: string;
  kind: Exclude<UploadBatchKind, 'before-batches'>;
  fileName: string;
  adminUserId: string | null;
  inserted: number;
  duplicates: number;
  invalid: number;
  refunded?: number;
  unknown?: number;
  firstSeq?: string | null;
  lastSeq?: string | null;
}

/** How long a stored file name may be (`upload_batches.file_name`). */
const FILE_NAME_LENGTH = 255;

/**
 * A batch's codes for its reconciliation export, `$1` the batch id: `v` (voucher_codes) with `r`, its redemption if
 * any (the redemption module's table, joined read-only so the file is one statement), in insertion order.
 * - upload: the codes of its `seq` range with its batch_id, read in order from idx_voucher_codes_product_seq
 *   (product_id, seq DESC) — no index of its own, so uploads write none;
 * - before-batches ($1 is the product's id): the product's codes without a batch;
 * - void: the codes the void file voided or refunded, from idx_voucher_codes_void_batch.
 */
export function batchCodesSql(kind: UploadBatchKind): string {
  const from = {
    upload: `FROM upload_batches b
               JOIN voucher_codes v ON v.product_id = b.product_id AND v.seq BETWEEN b.first_seq AND b.last_seq
                                   AND v.batch_id = b.id
               LEFT JOIN redemptions r ON r.voucher_code_id = v.id
              WHERE b.id = $1`,
    'before-batches': `FROM voucher_codes v LEFT JOIN redemptions r ON r.voucher_code_id = v.id
              WHERE v.product_id = $1 AND v.batch_id IS NULL`,
    void: `FROM voucher_codes v LEFT JOIN redemptions r ON r.voucher_code_id = v.id WHERE v.void_batch_id = $1`,
  }[kind];
  return `${from} ORDER BY v.seq`;
}

/**
 * The one owner of `upload_batches` (docs/product.md §20.1): a row per upload and per void file, written by the load in its
 * own transaction, so a refused file leaves no batch; plus one `before-batches` row per product (migration
 * 1763823000000, kept by a trigger on products).
 */
@Injectable()
export class UploadBatchRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * On the load's client and transaction: the batch exists exactly when its codes do. A batch that exists already
   * (a load added to a batch of the day, `UploadFile.batchId`) adds the figures and widens its `seq` range.
   */
  async insert(b: NewUploadBatch): Promise<void> {
    await this.database.client.query(
      `INSERT INTO upload_batches AS b (id, product_id, kind, file_name, admin_user_id, inserted, duplicates, invalid,
                                        refunded, unknown, first_seq, last_seq)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (id) DO UPDATE
          SET inserted = b.inserted + EXCLUDED.inserted, duplicates = b.duplicates + EXCLUDED.duplicates,
              invalid = b.invalid + EXCLUDED.invalid, first_seq = least(b.first_seq, EXCLUDED.first_seq),
              last_seq = greatest(b.last_seq, EXCLUDED.last_seq)
        WHERE b.product_id = EXCLUDED.product_id AND b.kind = EXCLUDED.kind`,
      [
        b.id,
        b.productId,
        b.kind,
        b.fileName.slice(0, FILE_NAME_LENGTH),
        b.adminUserId,
        b.inserted,
        b.duplicates,
        b.invalid,
        b.refunded ?? 0,
        b.unknown ?? 0,
        b.firstSeq ?? null,
        b.lastSeq ?? null,
      ],
    );
  }

  /**
   * An upload that failed after its load began (docs/product.md §20.6): a batch with its reason and no codes, written
   * on its own after the load's transaction rolled back.
   */
  async insertFailed(b: { productId: string; fileName: string; adminUserId: string | null; failure: string }) {
    await this.database.manager.query(
      `INSERT INTO upload_batches (product_id, kind, file_name, admin_user_id, failure) VALUES ($1, 'upload', $2, $3, $4)`,
      [b.productId, b.fileName.slice(0, FILE_NAME_LENGTH), b.adminUserId, b.failure],
    );
  }

  /** A product's batches, newest first (idx_upload_batches_product read backwards). */
  list(productId: string): Promise<UploadBatch[]> {
    return this.database.manager
      .getRepository(UploadBatch)
      .find({ where: { productId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  findById(id: string): Promise<UploadBatch | null> {
    return this.database.manager.getRepository(UploadBatch).findOneBy({ id });
  }
}
