import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { Product } from '../../product/entities/product.entity';
import { MarketplaceConnection } from './marketplace-connection.entity';

/** A product a connection serves, with the marketplace's reference for it; a product has one marketplace at most. */
@Entity({ name: 'marketplace_products' })
@Unique('uq_marketplace_products_ref', ['connectionId', 'externalRef'])
export class MarketplaceProduct {
  @PrimaryColumn({ name: 'product_id', type: 'uuid', primaryKeyConstraintName: 'pk_marketplace_products' })
  productId: string;

  @Column({ name: 'connection_id', type: 'uuid' })
  connectionId: string;

  @Column({ name: 'external_ref', type: 'varchar', length: 200 })
  externalRef: string;

  /**
   * The product's redemptions (`product_counts.redemptions`) when the connection began serving it: the connection's
   * `redeemed` counts those after it without a write on the redemption's path.
   */
  @Column({ name: 'redemptions_before', type: 'bigint', default: 0 })
  redemptionsBefore: string;

  @ManyToOne(() => MarketplaceConnection, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'connection_id', foreignKeyConstraintName: 'marketplace_products_connection_id_fkey' })
  connection?: MarketplaceConnection;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'marketplace_products_product_id_fkey' })
  product?: Product;
}
