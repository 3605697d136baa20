/**
 * Why a provider did not take an e-mail, as far as the outside may know: a class and the SMTP reply code. The raw
 * error text is not it: an SMTP server's rejection quotes the recipient's address (`550 5.1.1 <jane@…>: unknown`),
 * so it stays in the e-mail log (staff only) and never leaves in a webhook (docs/security.md "Webhook payloads").
 */
export type MailFailureReason = 'rejected' | 'auth' | 'timeout' | 'connection' | 'other';

export interface MailFailure {
  reason: MailFailureReason;
  /** The SMTP reply code (e.g. 550) when the server answered one. */
  smtpCode: number | null;
}

const CONNECTION_CODES = new Set([
  'ECONNECTION',
  'ECONNREFUSED',
  'ECONNRESET',
  'ESOCKET',
  'EDNS',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETLS',
]);

/** Nodemailer's errors carry `code` (ECONNECTION, ETIMEDOUT, EAUTH, EENVELOPE, EMESSAGE…) and `responseCode`. */
export function classifyMailError(err: unknown): MailFailure {
  const e = (err ?? {}) as { code?: unknown; responseCode?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const smtpCode =
    typeof e.responseCode === 'number' && e.responseCode >= 200 && e.responseCode < 600 ? e.responseCode : null;
  if (code === 'EAUTH') return { reason: 'auth', smtpCode };
  if (code === 'ETIMEDOUT' || /timeout|timed out/i.test(String(e.message ?? ''))) {
    return { reason: 'timeout', smtpCode };
  }
  if (smtpCode !== null && smtpCode >= 400) return { reason: 'rejected', smtpCode };
  if (CONNECTION_CODES.has(code)) return { reason: 'connection', smtpCode };
  return { reason: 'other', smtpCode };
}
