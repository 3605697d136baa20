import { Injectable } from '@nestjs/common';
import { macPackageLinks, PackageLinkColumns } from './mac-package-links';
import { DataCipher } from '../../config/data-cipher';
import { returnedRows } from '../../common/utils/sql';
import { DatabaseService } from '../../database/database.service';
import { latestLicenseKeySql, openStoredKey } from '../license/license.repository';
import { stripManualPrefix } from '../license/entities/license-key.entity';

/** One licence of a customer, as their licence centre shows it (docs/product.md §21). */
export interface CustomerLicence {
  redemptionId: string;
  productName: string;
  voucherCode: string;
  redeemedAt: Date;
  licenseKey: string | null;
  downloadLink: string;
  /** Mac products (docs/product.md §12.7): the licence package and the Removal Tool; null otherwise. */
  activationLink: string | null;
  removalToolLink: string | null;
  isManualProcessing: boolean;
  /** Held for review by a risk rule (docs/product.md §25.2): no key until staff approve it. */
  heldForReview: boolean;
  /** Refunded (docs/product.md §19.3): the licence centre then shows no key and no download. */
  refundedAt: Date | null;
  emailStatus: string;
}

/** What is stored about one address, for the customer's own data export. */
export interface CustomerRecord {
  /** The customer row as stored: its details are those of the address's first redemption (uq_customers_email). */
  customer: {
    id: string;
    email: string;
    firstName: string;
    lastName: string;
    phone: string | null;
    country: string | null;
    zipCode: string | null;
    ipAddress: string | null;
    createdAt: Date;
  };
  redemptions: Array<{
    redemptionId: string;
    voucherCode: string;
    productName: string;
    firstName: string;
    lastName: string;
    phone: string | null;
    zipCode: string | null;
    country: string | null;
    ipAddress: string | null;
    redeemedAt: Date;
    emailStatus: string;
    refundedAt: Date | null;
    licenseKey: string | null;
    heldForReview: boolean;
  }>;
}

/**
 * The customer's own view of the redemption module's tables (`customers`, `redemptions`, `success_tokens`), by
 * (lower-cased) e-mail: the licence centre, the data export and the erasure (docs/product.md). Joins the voucher,
 * product and licence tables in the owner's statements, as the success page's view does.
 */
@Injectable()
export class CustomerDataRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  /** The customer of this address when it has at least one redemption (uq_customers_email). */
  async customerWithRedemptions(email: string): Promise<string | undefined> {
    const [row] = await this.database.manager.query(
      `SELECT c.id FROM customers c WHERE c.email = $1 AND EXISTS (SELECT 1 FROM redemptions r WHERE r.customer_id = c.id)`,
      [email],
    );
    return row?.id;
  }

  /**
   * Every redemption of the address, newest first, its licence read live (as the success page reads it). A refunded
   * one shows no key and no download, as its success page is closed (docs/product.md §19.3).
   */
  async licencesOf(email: string): Promise<CustomerLicence[]> {
    return (await this.licencesAsStored(email)).map((licence) =>
      licence.refundedAt
        ? { ...licence, licenseKey: null, downloadLink: '', activationLink: null, removalToolLink: null }
        : licence,
    );
  }

  /** The licences as stored, refunded ones' keys included: the customer's data export gives them as given. */
  private async licencesAsStored(email: string): Promise<CustomerLicence[]> {
    const rows = await this.database.manager.query(
      `SELECT r.id, p.name AS product_name, v.code, r.redeemed_at, r.email_status, p.is_license_managed,
              -- Held (docs/product.md §25.2): no key shown, like a redemption waiting for one.
              r.awaiting_license OR r.held_at IS NOT NULL AS awaiting_license,
              r.held_at IS NOT NULL AND r.refunded_at IS NULL AS held, r.refunded_at,
              p.product_key, p.product_key_ciphertext, p.download_link AS product_link, lk.license_key, lk.key_ciphertext,
              lk.download_link AS license_link, p.activation_link, p.removal_tool_link
         FROM customers c
         JOIN redemptions r ON r.customer_id = c.id
         JOIN voucher_codes v ON v.id = r.voucher_code_id
         JOIN products p ON p.id = r.product_id
         LEFT JOIN LATERAL (${latestLicenseKeySql('r')}) lk ON true
        WHERE c.email = $1
        ORDER BY r.redeemed_at DESC, r.id`,
      [email],
    );
    return rows.map((row: Record<string, any>): CustomerLicence => {
      const manual: boolean = row.awaiting_license;
      const key = row.is_license_managed
        ? openStoredKey(this.cipher, row as { license_key: string | null; key_ciphertext: Buffer | null })
        : row.product_key_ciphertext
          ? this.cipher.open(row.product_key_ciphertext)
          : row.product_key;
      const links = macPackageLinks(row as PackageLinkColumns);
      return {
        redemptionId: row.id,
        productName: row.product_name,
        voucherCode: row.code,
        redeemedAt: row.redeemed_at,
        licenseKey: manual || !key ? null : stripManualPrefix(key),
        downloadLink: manual ? '' : (row.license_link ?? row.product_link ?? ''),
        activationLink: manual ? null : links.activationLink,
        removalToolLink: links.removalToolLink,
        isManualProcessing: manual,
        heldForReview: row.held,
        refundedAt: row.refunded_at,
        emailStatus: row.email_status,
      };
    });
  }

  /** Whether this redemption is one of the address's (the customer's resend asks before anything else). */
  async owns(email: string, redemptionId: string): Promise<boolean> {
    const [row] = await this.database.manager.query(
      `SELECT 1 FROM redemptions r JOIN customers c ON c.id = r.customer_id WHERE r.id = $1 AND c.email = $2`,
      [redemptionId, email],
    );
    return !!row;
  }

  /** Everything the redemption module stores about the address, as given (undefined: nothing). */
  async recordOf(email: string): Promise<CustomerRecord | undefined> {
    const [customer] = await this.database.manager.query(
      `SELECT id, email, first_name, last_name, phone, country, zip_code, ip_address, created_at
         FROM customers WHERE email = $1`,
      [email],
    );
    if (!customer) return undefined;
    const licences = new Map((await this.licencesAsStored(email)).map((l) => [l.redemptionId, l]));
    const rows = await this.database.manager.query(
      `SELECT r.id, v.code, p.name AS product_name, r.first_name, r.last_name, r.phone, r.zip_code, r.country,
              r.ip_address, r.redeemed_at, r.email_status, r.refunded_at
         FROM redemptions r
         JOIN voucher_codes v ON v.id = r.voucher_code_id
         JOIN products p ON p.id = r.product_id
        WHERE r.customer_id = $1
        ORDER BY r.redeemed_at DESC, r.id`,
      [customer.id],
    );
    return {
      customer: {
        id: customer.id,
        email: customer.email,
        firstName: customer.first_name,
        lastName: customer.last_name,
        phone: customer.phone,
        country: customer.country,
        zipCode: customer.zip_code,
        ipAddress: customer.ip_address,
        createdAt: customer.created_at,
      },
      redemptions: rows.map((r: Record<string, any>) => ({
        redemptionId: r.id,
        voucherCode: r.code,
        productName: r.product_name,
        firstName: r.first_name,
        lastName: r.last_name,
        phone: r.phone,
        zipCode: r.zip_code,
        country: r.country,
        ipAddress: r.ip_address,
        redeemedAt: r.redeemed_at,
        emailStatus: r.email_status,
        refundedAt: r.refunded_at,
        licenseKey: licences.get(r.id)?.licenseKey ?? null,
        heldForReview: licences.get(r.id)?.heldForReview ?? false,
      })),
    };
  }

  /**
   * Erases the personal data of the address's customer, on the erasure's transaction (docs/product.md §21.3):
   * the customer row loses its e-mail (a later redemption with the address makes a new row) and what the first
   * redemption gave; each redemption its names, phone, zip code, IP and country; the success tokens (which copy the
   * e-mail) go. The rows stay, with their code, product, dates, e-mail status and key assignment, for the accounts.
   * No counted column changes, so no counter moves. Undefined: no such customer.
   */
  async erase(email: string): Promise<{ customerId: string; redemptionIds: string[]; erasedAt: Date } | undefined> {
    const db = this.database.current;
    const [customer] = returnedRows<{ id: string; erased_at: Date }>(
      await db.query(
        `UPDATE customers SET email = NULL, first_name = '', last_name = '', phone = NULL, country = NULL, zip_code = NULL,
              ip_address = NULL, erased_at = now()
        WHERE email = $1 RETURNING id, erased_at`,
        [email],
      ),
    );
    if (!customer) return undefined;
    const redemptions = returnedRows<{ id: string }>(
      await db.query(
        // Locked in id order, as every statement that locks several redemptions: no deadlock.
        `UPDATE redemptions SET first_name = '', last_name = '', phone = NULL, zip_code = NULL, ip_address = NULL,
              country = NULL, idempotency_key_hash = NULL, erased_at = now()
        WHERE id IN (SELECT id FROM redemptions WHERE customer_id = $1 ORDER BY id FOR NO KEY UPDATE)
        RETURNING id`,
        [customer.id],
      ),
    );
    const redemptionIds = redemptions.map((r) => r.id);
    await db.query(`DELETE FROM success_tokens WHERE redemption_id = ANY($1::uuid[])`, [redemptionIds]);
    return { customerId: customer.id, redemptionIds, erasedAt: customer.erased_at };
  }
}
