import { Injectable } from '@nestjs/common';
import { IsNull, Not } from 'typeorm';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService } from '../../database/database.service';
import { queryRows } from '../../database/query-rows';
import { Product } from './entities/product.entity';

/** A product's figures from `product_counts` (migration 1763820000000), exact at every moment. */
export interface ProductCountsView {
  /** Available codes: neither redeemed nor void. */
  unredeemed: number;
  redeemed: number;
  void: number;
  /** Redemption rows (all time). */
  redemptions: number;
}

export const NO_COUNTS: ProductCountsView = { unredeemed: 0, redeemed: 0, void: 0, redemptions: 0 };

/** An upload batch's figures from `product_counts` (migration 1763823000000): its codes' states and exports. */
export interface BatchCountsView {
  /** Codes neither redeemed nor void. */
  unredeemed: number;
  redeemed: number;
  void: number;
  /** Redemptions of its codes marked exported. */
  exported: number;
}

export type ProductFields = Partial<
  Pick<
    Product,
    | 'name'
    | 'downloadLink'
    | 'activationLink'
    | 'removalToolLink'
    | 'productKey'
    | 'emailSubject'
    | 'emailTemplate'
    | 'status'
    | 'isLicenseManaged'
  >
>;

/**
 * The one owner of `products` (a few dozen rows: plain entity reads and writes). It is also where the shared
 * product key is sealed and opened (docs/product.md §18.1): products read here carry the clear key in `productKey`, and
 * a `productKey` written here is stored only as `product_key_ciphertext`.
 */
@Injectable()
export class ProductRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  private get products() {
    return this.database.manager.getRepository(Product);
  }

  /** Every product, oldest first (the admin console's order). */
  async findAll(): Promise<Product[]> {
    const rows = await this.products.find({ order: { createdAt: 'ASC', name: 'ASC' } });
    return rows.map((p) => this.opened(p));
  }

  async findById(id: string): Promise<Product | null> {
    const row = await this.products.findOneBy({ id });
    return row && this.opened(row);
  }

  /**
   * Code and redemption figures per product (of one product when given): the rows of `product_counts` summed (its
   * batches' shards), whatever the number of codes. Every writer of codes and redemptions keeps them (issue 26).
   */
  async counts(productId: string | null = null): Promise<Map<string, ProductCountsView>> {
    const rows: Array<{ product_id: string } & ProductCountsView> = await this.database.manager.query(
      `SELECT product_id, sum(available)::int AS unredeemed, sum(redeemed)::int AS redeemed, sum(void)::int AS void,
              sum(redemptions)::int AS redemptions
         FROM product_counts WHERE $1::uuid IS NULL OR product_id = $1 GROUP BY product_id`,
      [productId],
    );
    return new Map(rows.map(({ product_id, ...counts }) => [product_id, counts]));
  }

  /** Redemption rows per product of `productIds` (`product_counts.redemptions` summed); a product without any: 0. */
  async redemptionsOf(productIds: string[]): Promise<Map<string, number>> {
    const rows: Array<{ product_id: string; n: number }> = await this.database.manager.query(
      `SELECT product_id, sum(redemptions)::int AS n FROM product_counts WHERE product_id = ANY($1::uuid[])
        GROUP BY product_id`,
      [productIds],
    );
    const byProduct = new Map(rows.map((r) => [r.product_id, r.n]));
    return new Map(productIds.map((id) => [id, byProduct.get(id) ?? 0]));
  }

  /**
   * Figures per batch of one product (migration 1763823000000): its counter rows summed per batch, a few rows per
   * batch (the shards that wrote) found through pk_product_counts (product_id, batch_id, shard), whatever the number of
   * codes. A batch that never counted anything is absent.
   */
  async countsByBatch(productId: string): Promise<Map<string, BatchCountsView>> {
    const rows: Array<{ batch_id: string } & BatchCountsView> = await this.database.manager.query(
      `SELECT batch_id, sum(available)::int AS unredeemed, sum(redeemed)::int AS redeemed, sum(void)::int AS void,
              sum(exported)::int AS exported
         FROM product_counts WHERE product_id = $1 GROUP BY batch_id`,
      [productId],
    );
    return new Map(rows.map(({ batch_id, ...counts }) => [batch_id, counts]));
  }

  /** The new product's id. A taken name fails with unique_violation (uq_products_name). */
  async insert(fields: ProductFields & Pick<Product, 'name'>): Promise<string> {
    const result = await this.products
      .createQueryBuilder()
      .insert()
      .values(this.sealed(fields))
      .returning(['id'])
      .updateEntity(false)
      .execute();
    return (result.raw as Array<{ id: string }>)[0].id;
  }

  /** Changes the given columns (and updated_at); false when there is no such product. */
  async update(id: string, fields: ProductFields): Promise<boolean> {
    const result = await this.products.update({ id }, this.sealed(fields));
    return (result.affected ?? 0) > 0;
  }

  /**
   * Seals the product keys still stored in clear (rows from before migration 1763819000000) and empties them;
   * answers how many. A handful of rows: one statement each, guarded so a row changed meanwhile is left alone.
   */
  async sealPlainKeys(): Promise<number> {
    const plain = await this.products.find({
      where: { productKey: Not(IsNull()) },
      select: { id: true, productKey: true },
    });
    let sealed = 0;
    for (const p of plain) {
      const result = await this.products.update(
        { id: p.id, productKey: p.productKey! },
        { productKeyCiphertext: this.cipher.seal(p.productKey!), productKey: null },
      );
      sealed += result.affected ?? 0;
    }
    return sealed;
  }

  /** `rotate-data-key`: re-seals under DATA_KEY the product keys still under DATA_KEY_PREVIOUS; answers how many. */
  async rotateKeys(): Promise<number> {
    const rows = await this.products.find({
      where: { productKeyCiphertext: Not(IsNull()) },
      select: { id: true, productKeyCiphertext: true },
    });
    let rotated = 0;
    for (const p of rows.filter((r) => this.cipher.isRotatable(r.productKeyCiphertext!))) {
      const result = await this.products.update(
        { id: p.id, productKeyCiphertext: p.productKeyCiphertext! },
        { productKeyCiphertext: this.cipher.seal(this.cipher.open(p.productKeyCiphertext!)) },
      );
      rotated += result.affected ?? 0;
    }
    return rotated;
  }

  /** `rotate-data-key`'s closing check: product keys not under DATA_KEY (sealed under another key, or still in clear). */
  async countKeysNotUnder(keyId: Buffer): Promise<number> {
    const [{ n }] = await queryRows<{ n: number }>(
      this.database.manager,
      `SELECT count(*)::int AS n FROM products WHERE product_key IS NOT NULL OR substring(product_key_ciphertext FROM 2 FOR 4) <> $1`,
      [keyId],
    );
    return n;
  }

  private opened(p: Product): Product {
    if (p.productKeyCiphertext) p.productKey = this.cipher.open(p.productKeyCiphertext);
    return p;
  }

  private sealed(fields: ProductFields): Partial<Product> {
    if (fields.productKey === undefined) return fields;
    const { productKey, ...rest } = fields;
    return {
      ...rest,
      productKey: null,
      productKeyCiphertext: productKey === null ? null : this.cipher.seal(productKey),
    };
  }
}
