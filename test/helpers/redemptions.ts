import { TestApp } from './app';
import { addCodes, openKey, randomCode, redeemBody, RedeemBody } from './factories';

export interface RedeemedVoucher {
  id: string;
  code: string;
  email: string;
  /** The success token of the redeem response (the database keeps only its hash). */
  successToken: string;
}

/** Redeems a fresh code of the product through the public API and returns the redemption. */
export async function redeemNew(
  t: TestApp,
  product: string,
  body: Partial<RedeemBody> = {},
  prefix = 'ADM',
): Promise<RedeemedVoucher> {
  const [code] = await addCodes(t.db, product, [randomCode(prefix)]);
  const payload = redeemBody({ voucherCode: code, ...body });
  const res = await t.http().post('/api/redeem-voucher').send(payload);
  if (res.status !== 201) throw new Error(`redeem failed: ${res.status} ${JSON.stringify(res.body)}`);
  const [row] = await t.db.query(
    `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
    [code],
  );
  return { id: row.id, code, email: payload.email.toLowerCase(), successToken: res.body.successToken };
}

/** Polls until `check` returns a truthy value (or fails after `timeoutMs`). */
export async function eventually<T>(
  check: () => Promise<T>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function emailStatus(t: TestApp, redemptionId: string): Promise<string> {
  const [row] = await t.db.query(`SELECT email_status FROM redemptions WHERE id = $1`, [redemptionId]);
  return row?.email_status;
}

/** The keys assigned to a redemption (opened), with their activation counts. */
export async function keysAssignedTo(t: TestApp, redemptionId: string) {
  const rows = await t.db.query(
    `SELECT k.key_ciphertext, k.max_activations, k.current_activations
       FROM license_assignments a JOIN license_keys k ON k.id = a.license_key_id WHERE a.redemption_id = $1`,
    [redemptionId],
  );
  return rows.map(({ key_ciphertext, ...row }: { key_ciphertext: Buffer }) => ({
    license_key: openKey(t.db, key_ciphertext),
    ...row,
  }));
}
