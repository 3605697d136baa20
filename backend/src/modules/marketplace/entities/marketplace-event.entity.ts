import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { MarketplaceConnection } from './marketplace-connection.entity';

/** An inbound event applied (pushed or pulled): its id is never applied twice per connection. */
@Entity({ name: 'marketplace_events' })
export class MarketplaceEvent {
  @PrimaryColumn({ name: 'connection_id', type: 'uuid', primaryKeyConstraintName: 'pk_marketplace_events' })
  connectionId: string;

  @PrimaryColumn({ name: 'event_id', type: 'varchar', length: 200, primaryKeyConstraintName: 'pk_marketplace_events' })
  eventId: string;

  @Column({ type: 'varchar', length: 40 })
  type: string;

  @Column({ type: 'int', default: 0 })
  applied: number;

  @ManyToOne(() => MarketplaceConnection, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'connection_id', foreignKeyConstraintName: 'marketplace_events_connection_id_fkey' })
  connection?: MarketplaceConnection;

  @CreateDateColumn({ name: 'received_at', type: 'timestamptz' })
  receivedAt: Date;
}
