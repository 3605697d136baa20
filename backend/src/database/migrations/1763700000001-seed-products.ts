import { MigrationInterface, QueryRunner } from 'typeorm';

const WINDOWS_SUBJECT = 'Your {{product_name}} licence key and download link';
const WINDOWS_TEMPLATE = `<p>Hello {{customer_name}},</p>
<p>Thank you for redeeming voucher <strong>{{voucher_code}}</strong>. Your licence is ready.</p>
<p><strong>Product key:</strong> {{license_key}}</p>
<p><strong>Download:</strong> <a href="{{download_link}}">{{download_link}}</a></p>
<ol>
  <li>Download and run the installer.</li>
  <li>Open an Office app (Word, Excel or PowerPoint).</li>
  <li>Enter the product key when asked.</li>
  <li>Activate and enjoy.</li>
</ol>
<p>Keep this key safe: you need it to reinstall.</p>`;

const MAC_SUBJECT = 'Your {{product_name}} installation set';
const MAC_TEMPLATE = `<p>Hello {{customer_name}},</p>
<p>Thank you for redeeming voucher <strong>{{voucher_code}}</strong>. Install the three packages in this order:</p>
<ol>
  <li>Office Removal Tool</li>
  <li>Office 2024 Installer: <a href="{{download_link}}">{{download_link}}</a></li>
  <li>License Activation (no manual key entry needed)</li>
</ol>
<p>Requirements: macOS 13.0 or later, Intel or Apple Silicon, 4 GB RAM (8 GB recommended), 10 GB free disk.</p>`;

/** The three products of docs/product.md §1.2. `{{product_name}}` in a subject is filled like the other placeholders. */
export class SeedProducts1763700000001 implements MigrationInterface {
  name = 'SeedProducts1763700000001';

  public async up(q: QueryRunner): Promise<void> {
    const products: Array<[string, boolean, string, string, string]> = [
      ['Office 2024 Professional Plus (Windows)', true, 'https://setup.office.com/', WINDOWS_SUBJECT, WINDOWS_TEMPLATE],
      ['Office 2024 Home & Business (Windows)', true, 'https://setup.office.com/', WINDOWS_SUBJECT, WINDOWS_TEMPLATE],
      [
        'Office 2024 Home & Business (Mac)',
        false,
        'https://go.microsoft.com/fwlink/?linkid=2009112',
        MAC_SUBJECT,
        MAC_TEMPLATE,
      ],
    ];
    for (const [name, managed, link, subject, template] of products) {
      await q.query(
        `INSERT INTO products (name, is_license_managed, download_link, email_subject, email_template, status)
         VALUES ($1, $2, $3, $4, $5, 'active') ON CONFLICT (name) DO NOTHING`,
        [name, managed, link, subject, template],
      );
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM products WHERE name LIKE 'Office 2024 %' AND NOT EXISTS (
      SELECT 1 FROM voucher_codes v WHERE v.product_id = products.id)`);
  }
}
