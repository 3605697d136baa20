import { MigrationInterface, QueryRunner } from 'typeorm';

/** The seeded Mac template as migration 1763700000001 wrote it: a template still equal to it was never edited. */
const SEEDED_MAC_TEMPLATE = `<p>Hello {{customer_name}},</p>
<p>Thank you for redeeming voucher <strong>{{voucher_code}}</strong>. Install the three packages in this order:</p>
<ol>
  <li>Office Removal Tool</li>
  <li>Office 2024 Installer: <a href="{{download_link}}">{{download_link}}</a></li>
  <li>License Activation (no manual key entry needed)</li>
</ol>
<p>Requirements: macOS 13.0 or later, Intel or Apple Silicon, 4 GB RAM (8 GB recommended), 10 GB free disk.</p>`;

/** The seeded Mac template with the links of the three packages (docs/product.md §12.7). */
export const MAC_TEMPLATE_WITH_LINKS = `<p>Hello {{customer_name}},</p>
<p>Thank you for redeeming voucher <strong>{{voucher_code}}</strong>. Install the three packages in this order:</p>
<ol>
  <li>Office Removal Tool: <a href="{{removal_tool_link}}">{{removal_tool_link}}</a></li>
  <li>Office 2024 Installer: <a href="{{download_link}}">{{download_link}}</a></li>
  <li>License Activation, your licence package (no manual key entry needed): <a href="{{activation_link}}">{{activation_link}}</a></li>
</ol>
<p>Requirements: macOS 13.0 or later, Intel or Apple Silicon, 4 GB RAM (8 GB recommended), 10 GB free disk.</p>`;

/**
 * A Mac product's licence package link and Removal Tool link (docs/product.md §4.1, §12.7); the seeded Mac template
 * gets both links where it is still exactly as seeded (an edited template is the admin's and stays as it is).
 */
export class MacActivationLink1796223742298 implements MigrationInterface {
  name = 'MacActivationLink1796223742298';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE products ADD COLUMN IF NOT EXISTS activation_link varchar(2048)`);
    await q.query(`ALTER TABLE products ADD COLUMN IF NOT EXISTS removal_tool_link varchar(2048)`);
    await q.query(`UPDATE products SET email_template = $1 WHERE email_template = $2`, [
      MAC_TEMPLATE_WITH_LINKS,
      SEEDED_MAC_TEMPLATE,
    ]);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE products SET email_template = $1 WHERE email_template = $2`, [
      SEEDED_MAC_TEMPLATE,
      MAC_TEMPLATE_WITH_LINKS,
    ]);
    await q.query(`ALTER TABLE products DROP COLUMN IF EXISTS removal_tool_link`);
    await q.query(`ALTER TABLE products DROP COLUMN IF EXISTS activation_link`);
  }
}
