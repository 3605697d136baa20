import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';

/**
 * A raw client from TypeORM's own pg pool, for what the ORM cannot do: COPY and server-side cursors.
 * The caller must `release()` it (pass `true` to discard a client left in an unknown state).
 */
export function rawPgClient(dataSource: DataSource): Promise<PoolClient> {
   
  return (dataSource.driver as any).master.connect();
}

/** Escapes LIKE wildcards so user text matches literally (voucher codes may contain `_`). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
