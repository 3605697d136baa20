import { createAdminUser } from '../helpers/auth';
import { addCodes, productId, PRODUCTS, randomCode, redeemBody } from '../helpers/factories';
import { page, shot, signIn, t, tab, toastTitled, useAdminConsole } from '../helpers/admin-browser';
import { expectNoAxeViolations } from './axe';

/**
 * docs/product.md §12.7 in the console, in Chromium against the real API and database: an admin sets the Mac product's
 * licence package link in its card (a bad link is refused with its message and nothing is written), and a Mac
 * redemption's details show that link.
 */

useAdminConsole();

describe('Mac package links in the admin console', () => {
  it('are set in the product card and shown in the redemption details', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const link = `https://downloads.example.com/mac/licence-${randomCode('').slice(1, 9).toLowerCase()}.pkg`;
    const storedLink = async () =>
      (await t.db.query(`SELECT activation_link FROM products WHERE id = $1`, [mac]))[0].activation_link;

    await signIn(admin);
    const card = page.getByRole('region', { name: PRODUCTS.homeBusinessMac });
    const warning = card.getByText('No licence package link: Mac customers cannot activate. Set it in Package Links.');
    await warning.waitFor();
    // Only Mac products have package links (the Windows card's products.edit controls are there).
    const windows = page.getByRole('region', { name: PRODUCTS.proPlusWindows });
    await windows.getByRole('button', { name: 'Email Template' }).waitFor();
    expect(await windows.getByRole('button', { name: 'Package Links' }).count()).toBe(0);

    await card.getByRole('button', { name: 'Package Links' }).click();
    const dialog = page.getByRole('dialog', { name: `Package Links - ${PRODUCTS.homeBusinessMac}` });
    const field = dialog.getByRole('textbox', { name: 'Licence package link (License Activation)' });
    await field.fill(link.replace('https://', 'http://'));
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Must be an HTTPS URL').waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await storedLink()).toBeNull();
    // axe (WCAG 2.1 AA) on the dialog with its refused field.
    await expectNoAxeViolations(page);
    await shot('mac-package-links-refused');

    await field.fill(link);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await toastTitled('Package Links Updated').waitFor();
    await dialog.waitFor({ state: 'detached' });
    await warning.waitFor({ state: 'detached' });
    expect(await storedLink()).toBe(link);

    const [code] = await addCodes(t.db, mac, [randomCode('MACDET')]);
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code }))
      .expect(201);
    await tab('Recent Redemptions').click();
    const row = page.getByRole('row').filter({ hasText: code });
    await row.getByRole('button', { name: `View details of ${code}` }).click();
    const details = page.getByRole('dialog', { name: /Redemption Details/ });
    const packageLink = details.getByRole('link', { name: link });
    await packageLink.waitFor();
    expect(await packageLink.getAttribute('href')).toBe(link);
    await shot('mac-package-links-details');
  });
});
