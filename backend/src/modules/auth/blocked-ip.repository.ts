import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { BlockedIp } from './entities/blocked-ip.entity';

/** The one owner of `blocked_ips` (a small table, read whole into BlockedIpService's cache). */
@Injectable()
export class BlockedIpRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Blocks (or re-blocks) an address for `minutes`; answers when the block ends. */
  async block(ipAddress: string, reason: string, minutes: number): Promise<Date> {
    const [row] = await this.database.manager.query(
      `INSERT INTO blocked_ips (ip_address, reason, expires_at) VALUES ($1, $2, now() + make_interval(mins => $3))
       ON CONFLICT (ip_address) DO UPDATE
         SET reason = EXCLUDED.reason, blocked_at = now(), expires_at = EXCLUDED.expires_at, is_active = true
       RETURNING expires_at`,
      [ipAddress, reason, minutes],
    );
    return new Date(row.expires_at);
  }

  /** Active blocks that have not expired (expiresAt null: no end). */
  listActive(): Promise<Array<Pick<BlockedIp, 'ipAddress' | 'expiresAt'>>> {
    return this.database.manager
      .getRepository(BlockedIp)
      .createQueryBuilder('b')
      .select(['b.ipAddress', 'b.expiresAt'])
      .where('b.isActive AND (b.expiresAt IS NULL OR b.expiresAt > now())')
      .getMany();
  }
}
