import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { Product } from './entities/product.entity';

export type ProductFields = Partial<
  Pick<Product, 'name' | 'downloadLink' | 'productKey' | 'emailSubject' | 'emailTemplate' | 'status' | 'isLicenseManaged'>
>;

/** The one owner of `products` (a few dozen rows: plain entity reads and writes). */
@Injectable()
export class ProductRepository {
  constructor(private readonly database: DatabaseService) {}

  private get products() {
    return this.database.manager.getRepository(Product);
  }

  /** Every product, oldest first (the admin console's order). */
  findAll(): Promise<Product[]> {
    return this.products.find({ order: { createdAt: 'ASC', name: 'ASC' } });
  }

  findById(id: string): Promise<Product | null> {
    return this.products.findOneBy({ id });
  }

  /** The new product's id. A taken name fails with unique_violation (uq_products_name). */
  async insert(fields: ProductFields & Pick<Product, 'name'>): Promise<string> {
    const result = await this.products
      .createQueryBuilder()
      .insert()
      .values(fields)
      .returning(['id'])
      .updateEntity(false)
      .execute();
    return (result.raw as Array<{ id: string }>)[0].id;
  }

  /** Changes the given columns (and updated_at); false when there is no such product. */
  async update(id: string, fields: ProductFields): Promise<boolean> {
    const result = await this.products.update({ id }, fields);
    return (result.affected ?? 0) > 0;
  }
}
