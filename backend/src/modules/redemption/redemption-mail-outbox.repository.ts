import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService } from '../../database/database.service';
import { latestLicenseKeySql, openStoredKey } from '../license/license.repository';
import { Batcher } from '../../common/utils/batcher';
import { EmailStatus } from './entities/redemption.entity';

/** What the order e-mail of one redemption is made of. */
export interface MailRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  code: string;
  product_name: string;
  email_subject: string;
  email_template: string;
  product_key: string | null;
  product_link: string;
  license_key: string | null;
  license_link: string | null;
  /** The product's columns of the Mac package links (`macPackageLinks`). */
  is_license_managed: boolean;
  activation_link: string | null;
  removal_tool_link: string | null;
  /** The e-mail's resend number (`email_resends`): part of its Message-ID. */
  email_resends: number;
}

/**
 * The first of each id of a batch: a redemption asked twice in one batch (a duplicate job) is the first asker's. (The
 * statements lock their rows in id order themselves.)
 */
function firstOfEachId<T extends { id: string }>(items: T[]): T[] {
  const first = new Map<string, T>();
  for (const item of items) if (!first.has(item.id)) first.set(item.id, item);
  return [...first.values()];
}

/** An e-mail is due: pending, not waiting for a key, not held for review, not erased, with no live claim. */
const CLAIMABLE = (r: string) =>
  `${r}.email_status = 'pending' AND NOT ${r}.awaiting_license AND ${r}.held_at IS NULL AND ${r}.erased_at IS NULL
   AND (${r}.email_locked_until IS NULL OR ${r}.email_locked_until < now())`;

/**
 * Due e-mails (`CLAIMABLE`) matching `where` (on `r`), oldest first, at most `limit` (a parameter): read from
 * idx_redemptions_status_list (exported, email_status, redeemed_at DESC, id), one range per `exported` value, each in
 * order, merged. The relay's read and the sweep's.
 */
const dueByRedeemedAt = (where: string, limit: string) => {
  const range = (exported: boolean) =>
    `(SELECT r.id, r.redeemed_at FROM redemptions r
       WHERE r.exported = ${exported} AND ${CLAIMABLE('r')} AND ${where}
       ORDER BY r.redeemed_at LIMIT ${limit})`;
  return `SELECT id, redeemed_at FROM (${range(false)} UNION ALL ${range(true)}) due ORDER BY redeemed_at LIMIT ${limit}`;
};

/**
 * The claims of a batch (`claimBatch`), a named statement: parsed and planned once per connection (planning it was
 * twice its execution, 0.58 against 0.27 ms a batch, at 300 e-mails a second). Built on first use, not at load: it
 * takes the latest key's lateral join from the licence module.
 */
let claimSql: string | undefined;
const CLAIM_SQL = () =>
  (claimSql ??= `WITH r AS (
       UPDATE redemptions r
          SET email_locked_until = now() + make_interval(secs => x.secs),
              email_attempts = r.email_attempts + 1,
              email_last_attempt_at = now()
         FROM unnest($1::uuid[], $2::int[]) AS x(id, secs)
        WHERE r.id = x.id AND ${CLAIMABLE('r')}
          AND r.id IN (SELECT l.id FROM redemptions l WHERE l.id = ANY($1::uuid[]) AND ${CLAIMABLE('l')}
                        ORDER BY l.id FOR NO KEY UPDATE)
        RETURNING r.id, r.customer_id, r.product_id, r.voucher_code_id, r.first_name, r.last_name, r.email_resends)
     SELECT r.id, c.email, r.first_name, r.last_name, v.code, r.email_resends,
            p.name AS product_name, p.email_subject, p.email_template, p.product_key, p.product_key_ciphertext,
            p.download_link AS product_link, p.is_license_managed, p.activation_link, p.removal_tool_link,
            lk.license_key, lk.key_ciphertext, lk.download_link AS license_link
       FROM r
       JOIN customers c ON c.id = r.customer_id
       JOIN products p ON p.id = r.product_id
       JOIN voucher_codes v ON v.id = r.voucher_code_id
       LEFT JOIN LATERAL (${latestLicenseKeySql('r')}) lk ON true`);

/**
 * The order e-mail outbox on `redemptions` (its email_* columns), as the mail module uses it: a worker claims a due
 * e-mail with what it needs to send it, ends the claim with the outcome, and the sweep finds what a lost job left
 * behind (docs/operations.md "Order e-mail delivery"). Making an e-mail due again (Fix Pending Emails, resends) is
 * `RedemptionRepository.requeueEmail`. Split from RedemptionRepository (the redemption statement, the customer's and
 * the admin's writes) along the module boundary it serves.
 */
@Injectable()
export class RedemptionMailOutboxRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  /**
   * Claims a pending e-mail for `claimSeconds` and reads what it needs, in one statement: undefined when it is not
   * due (sent, waiting for a key, claimed by another worker) or gone. The name is the one given with this redemption.
   * Concurrent claims (the worker's jobs) share one statement (`Batcher`).
   */
  claimEmail(id: string, claimSeconds: number): Promise<MailRow | undefined> {
    // Not an id (a job's payload from elsewhere): nothing to claim, and nothing to fail the batch it would join.
    if (!isUUID(id)) return Promise.resolve(undefined);
    return this.claims.call({ id, claimSeconds });
  }

  private readonly claims = new Batcher<{ id: string; claimSeconds: number }, MailRow | undefined>((claims) =>
    this.claimBatch(claims),
  );

  /**
   * The claims of a batch in one UPDATE (`firstOfEachId`): a redemption claimed twice in it goes to the first. Its rows
   * are locked by the sub-select in id order, as every statement locking several redemptions does: an UPDATE … FROM
   * locks them in the order its join reads them (the table's on a small one), which deadlocked with a bulk assignment
   * holding some of them.
   */
  private async claimBatch(claims: Array<{ id: string; claimSeconds: number }>): Promise<Array<MailRow | undefined>> {
    const each = firstOfEachId(claims);
    const { rows } = await this.database.pool.query<
      MailRow & { key_ciphertext: Buffer | null; product_key_ciphertext: Buffer | null }
    >({
      name: 'mail-claim',
      text: CLAIM_SQL(),
      values: [each.map((claim) => claim.id), each.map((claim) => claim.claimSeconds)],
    });
    const claimed = new Map(rows.map((row) => [row.id, row]));
    return claims.map(({ id }) => {
      const row = claimed.get(id);
      claimed.delete(id);
      if (!row) return undefined;
      const { key_ciphertext, product_key_ciphertext, ...view } = row;
      return {
        ...view,
        license_key: openStoredKey(this.cipher, { license_key: row.license_key, key_ciphertext }),
        product_key: this.openProductKey({ product_key: row.product_key, product_key_ciphertext }),
      };
    });
  }

  /** A product's shared key from `products` columns read in this repository's joins (sealed, or clear until sealed). */
  private openProductKey(row: { product_key: string | null; product_key_ciphertext: Buffer | null }): string | null {
    return row.product_key_ciphertext ? this.cipher.open(row.product_key_ciphertext) : row.product_key;
  }

  /**
   * Ends a claim with the attempt's outcome; concurrent ends share one statement (`Batcher`, `firstOfEachId`), locking
   * its rows in id order as the claim does.
   */
  finishEmail(id: string, status: EmailStatus): Promise<void> {
    return isUUID(id) ? this.finishes.call({ id, status }) : Promise.resolve();
  }

  private readonly finishes = new Batcher<{ id: string; status: EmailStatus }, void>(async (ends) => {
    const each = firstOfEachId(ends);
    await this.database.pool.query({
      name: 'mail-finish',
      text: `UPDATE redemptions r SET email_status = x.status, email_locked_until = NULL
               FROM unnest($1::uuid[], $2::varchar[]) AS x(id, status)
              WHERE r.id = x.id
                AND r.id IN (SELECT id FROM redemptions WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE)`,
      values: [each.map((end) => end.id), each.map((end) => end.status)],
    });
    return ends.map(() => undefined);
  });

  /**
   * The order e-mails no job has tried yet (pending, never claimed, not waiting for a key, not erased), redeemed after
   * `after` (null: any) and within the last `withinMs`, oldest first, at most `limit`: the outbox the relay reads
   * (`OrderMailRelay`; `dueByRedeemedAt`): an e-mail sent (or tried) leaves the range or fails the filter, so it holds
   * what is queued and not yet claimed. A named statement: it runs several times a second in every worker.
   */
  async findUnqueued(
    after: Date | null,
    withinMs: number,
    limit: number,
  ): Promise<Array<{ id: string; redeemed_at: Date }>> {
    const { rows } = await this.database.pool.query<{ id: string; redeemed_at: Date }>({
      name: 'mail-unqueued',
      text: dueByRedeemedAt(
        `r.redeemed_at > greatest($1::timestamptz, now() - make_interval(secs => $2)) AND r.email_attempts = 0`,
        '$3',
      ),
      values: [after, withinMs / 1000, limit],
    });
    return rows;
  }

  /**
   * Pending e-mails with no live claim whose last attempt is older than `olderThanMs`, oldest first
   * (`dueByRedeemedAt`), each range ending at the e-mails redeemed within `olderThanMs`: an attempt comes after its
   * redemption, so none of those is stale. The sweep reads about `limit` e-mails plus the older ones tried within
   * `olderThanMs` (during an SMTP outage, those whose retry is not due), never the newer ones however many wait (they
   * were read to the end, every minute: 1.9 s at ten million redemptions with 600,000 pending).
   */
  async findStalePending(olderThanMs: number, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.manager.query(
      dueByRedeemedAt(
        `coalesce(r.email_last_attempt_at, r.redeemed_at) < now() - make_interval(secs => $1)
         AND r.redeemed_at < now() - make_interval(secs => $1)`,
        '$2',
      ),
      [olderThanMs / 1000, limit],
    );
    return rows.map((r) => r.id);
  }
}
