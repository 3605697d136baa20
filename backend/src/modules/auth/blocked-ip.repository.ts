import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { BlockedIp } from './entities/blocked-ip.entity';

/** The one owner of `blocked_ips` (a small table, read whole into BlockedIpService's cache). */
@Injectable()
export class BlockedIpRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Blocks (or re-blocks) an address (or an IPv6 /64) until `expiresAt`. */
  async block(ipAddress: string, reason: string, expiresAt: Date): Promise<void> {
    await this.database.manager.query(
      `INSERT INTO blocked_ips (ip_address, reason, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (ip_address) DO UPDATE
         SET reason = EXCLUDED.reason, blocked_at = now(), expires_at = EXCLUDED.expires_at, is_active = true`,
      [ipAddress, reason, expiresAt],
    );
  }

  /** Active blocks that have not expired at `now` (expiresAt null: no end). */
  listActive(now: Date): Promise<Array<Pick<BlockedIp, 'ipAddress' | 'expiresAt' | 'reason'>>> {
    return this.database.manager
      .getRepository(BlockedIp)
      .createQueryBuilder('b')
      .select(['b.ipAddress', 'b.expiresAt', 'b.reason'])
      .where('b.isActive AND (b.expiresAt IS NULL OR b.expiresAt > :now)', { now })
      .getMany();
  }
}
