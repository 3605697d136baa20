import { TestApp } from './app';
import { redeemBody } from './factories';

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
    .send({ name: `Test product ${Math.random().toString(36).slice(2, 10)}`, downloadLink: 'https://dl.example.com/x', ...body })
    .expect(201);
  return res.body.id;
}

/** Redeems a code through the public endpoint and returns the redemption id. */
export async function redeem(
  t: TestApp,
  code: string,
  overrides: Partial<ReturnType<typeof redeemBody>> = {},
): Promise<string> {
  await t.http().post('/api/redeem-voucher').send(redeemBody({ voucherCode: code, ...overrides })).expect(201);
  const [row] = await t.db.query(
    `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
    [code.toUpperCase()],
  );
  return row.id;
}
