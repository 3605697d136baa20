import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addLicenseKey, keyHash, licenseManagedProduct, productId, PRODUCTS } from './helpers/factories';
import { keysAssignedTo, redeemNew } from './helpers/redemptions';
import { countedCodes } from './helpers/counted-sql';

describe('Deleting redemptions', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let mac: string;
  const windowsProduct = (name: string) => licenseManagedProduct(t.db, name);
  const assignmentsOf = (redemptionId: string) => keysAssignedTo(t, redemptionId);

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await tokenFor(t, 'admin'));
    mac = await productId(t.db, PRODUCTS.homeBusinessMac);
  });
  afterAll(() => t.close());

  describe('delete', () => {
    it('deletes one redemption; its code stays redeemed and its key stays used', async () => {
      const product = await windowsProduct('Delete One');
      const keyId = await addLicenseKey(t.db, product, 'DELETE-KEY-01');
      const r = await redeemNew(t, product);
      const res = await t.http().delete(`/api/redemptions/${r.id}`).set(auth).expect(200);
      expect(res.body).toEqual({ success: true, message: 'Redemption deleted' });
      expect(await t.db.query(`SELECT id FROM redemptions WHERE id = $1`, [r.id])).toEqual([]);
      const [code] = await t.db.query(`SELECT is_redeemed FROM voucher_codes WHERE code = $1`, [r.code]);
      expect(code.is_redeemed).toBe(true);
      // Still on the product's Redeemed tab (from released_codes now), without its redemption.
      const redeemedTab = await t
        .http()
        .get(`/api/products/${product}/voucher-codes-detailed?status=redeemed`)
        .set(auth)
        .expect(200);
      expect(redeemedTab.body.codes.map((c: { code: string; status: string }) => [c.code, c.status])).toEqual([
        [r.code, 'redeemed'],
      ]);
      expect(redeemedTab.body.codes[0].redemption).toBeNull();
      expect(redeemedTab.body.totalCount).toBe(1);
      const assignments = await t.db.query(`SELECT redemption_id FROM license_assignments WHERE license_key_id = $1`, [
        keyId,
      ]);
      expect(assignments).toEqual([{ redemption_id: null }]);
      const [key] = await t.db.query(`SELECT current_activations FROM license_keys WHERE id = $1`, [keyId]);
      expect(key.current_activations).toBe(1);
      // The key is not handed out again.
      const next = await redeemNew(t, product);
      expect(await assignmentsOf(next.id)).toEqual([]);
      const [audit] = await t.db.query(
        `SELECT details FROM security_audit_log WHERE action = 'redemption.delete' AND resource_id = $1`,
        [r.id],
      );
      expect(audit.details).toEqual({ voucherCode: r.code });
      await t.http().delete(`/api/redemptions/${r.id}`).set(auth).expect(404);
    });

    it('bulk-deletes and counts only what existed', async () => {
      const a = await redeemNew(t, mac);
      const b = await redeemNew(t, mac);
      const res = await t
        .http()
        .post('/api/redemptions/bulk-delete')
        .set(auth)
        .send({ redemptionIds: [a.id, b.id, '00000000-0000-4000-8000-000000000000'] })
        .expect(200);
      expect(res.body).toEqual({ deletedCount: 2 });
      expect(await t.db.query(`SELECT id FROM redemptions WHERE id = ANY($1::uuid[])`, [[a.id, b.id]])).toEqual([]);
      await t.http().post('/api/redemptions/bulk-delete').set(auth).send({ redemptionIds: [] }).expect(400);
    });
  });
});

describe('DELETE /api/admin/cleanup-redeemed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('deletes every voucher code, customer, redemption and licence assignment in one go; keys stay', async () => {
    const auth = bearer(await tokenFor(t, 'admin'));
    const proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    await addLicenseKey(t.db, proPlus, 'CLEAN-KEY-001');
    await redeemNew(t, proPlus);
    await redeemNew(t, mac);
    await t.db.query(countedCodes(`INSERT INTO voucher_codes (code, product_id) VALUES ('UNUSED-CLEAN-1', $1)`), [mac]);

    const res = await t.http().delete('/api/admin/cleanup-redeemed').set(auth).expect(200);
    expect(res.body).toEqual({
      success: true,
      message: 'System cleaned successfully',
      deleted: { voucherCodes: 3, customers: 2, redemptions: 2, licenseAssignments: 1 },
    });
    for (const table of ['voucher_codes', 'customers', 'redemptions', 'license_assignments', 'success_tokens']) {
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM ${table}`);
      expect(n).toBe(0);
    }
    const [key] = await t.db.query(`SELECT current_activations FROM license_keys WHERE key_hash = $1`, [
      keyHash(t.db, 'CLEAN-KEY-001'),
    ]);
    expect(key.current_activations).toBe(1);
    const [audit] = await t.db.query(`SELECT success, details FROM security_audit_log WHERE action = 'system.cleanup'`);
    expect(audit).toEqual({
      success: true,
      details: { voucherCodes: 3, customers: 2, redemptions: 2, licenseAssignments: 1 },
    });
    const list = await t.http().get('/api/redemptions').set(auth).expect(200);
    expect(list.body.pagination.totalCount).toBe(0);
  });
});
