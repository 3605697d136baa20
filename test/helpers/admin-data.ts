import { TestApp } from './app';
import { redeemBody } from './factories';
import { randomHex } from './seed';
import { countedCodes, countedRedemptions } from './counted-sql';

/** Creates a product through the API (so it is isolated from the seeded ones) and returns its id. */
export async function createProduct(
  t: TestApp,
  auth: { Authorization: string },
  body: Record<string, unknown> = {},
): Promise<string> {
  const res = await t
    .http()
    .post('/api/products')
    .set(auth)
    .send({
      name: `Test product ${randomHex(4)}`,
      downloadLink: 'https://dl.example.com/x',
      ...body,
    })
    .expect(201);
  return res.body.id;
}

/** Redeems a code through the public endpoint and returns the redemption id. */
export async function redeem(
  t: TestApp,
  code: string,
  overrides: Partial<ReturnType<typeof redeemBody>> = {},
): Promise<string> {
  await t
    .http()
    .post('/api/redeem-voucher')
    .send(redeemBody({ voucherCode: code, ...overrides }))
    .expect(201);
  const [row] = await t.db.query(
    `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
    [code.toUpperCase()],
  );
  return row.id;
}

export interface StoredRedemption {
  product: string;
  code: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  phone?: string | null;
  emailStatus?: 'pending' | 'sent' | 'failed';
  redeemedAt?: Date;
  exported?: boolean;
}

/**
 * A redemption written straight to the tables (code, customer, redemption), as an import or an older
 * version would have left it: no e-mail job runs, so its state stays exactly as given.
 */
export async function storeRedemption(t: TestApp, r: StoredRedemption): Promise<string> {
  const [code] = await t.db.query(
    countedCodes(`INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at) VALUES ($1, $2, true, $3)`),
    [r.code, r.product, r.redeemedAt ?? new Date()],
  );
  const [customer] = await t.db.query(
    `INSERT INTO customers (first_name, last_name, email, phone) VALUES ($1, $2, $3, $4)
     ON CONFLICT (email) DO UPDATE SET first_name = EXCLUDED.first_name RETURNING id`,
    [r.firstName ?? 'Ann', r.lastName ?? 'Lee', r.email ?? `${r.code.toLowerCase()}@example.com`, r.phone ?? null],
  );
  const [redemption] = await t.db.query(
    countedRedemptions(`INSERT INTO redemptions (voucher_code_id, customer_id, product_id, email_status, redeemed_at, exported, exported_at,
                              first_name, last_name, phone)
     VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $6 THEN now() END, $7, $8, $9)`),
    [
      code.id,
      customer.id,
      r.product,
      r.emailStatus ?? 'sent',
      r.redeemedAt ?? new Date(),
      r.exported ?? false,
      r.firstName ?? 'Ann',
      r.lastName ?? 'Lee',
      r.phone ?? null,
    ],
  );
  return redemption.id;
}
