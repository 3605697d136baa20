/**
 * The redeem page's Idempotency-Key (docs/product.md §19.1): 128 random bits made for the form when it
 * is first sent, kept in this tab's sessionStorage so that a double click, a retry after a lost answer or a reload of
 * the page sends the same key, and forgotten when the success page opens. Code and e-mail alone never get a success
 * page again (staff see both); only this key does, and it never leaves this tab.
 */
const STORAGE_KEY = 'redeem-idempotency-key';

/** Only when sessionStorage cannot be used (a privacy mode): the key then lives as long as the page. */
let inMemory: string | null = null;

function newKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

/** The form's key: the one this tab keeps, or a new one, kept from now on. */
export function redeemIdempotencyKey(): string {
  const store = storage();
  try {
    const kept = store?.getItem(STORAGE_KEY);
    if (kept) return kept;
  } catch {
    // Unreadable storage: as if there were none.
  }
  const key = inMemory ?? newKey();
  try {
    if (store) store.setItem(STORAGE_KEY, key);
    else inMemory = key;
  } catch {
    inMemory = key;
  }
  return key;
}

/** The success page opens: the next form gets a key of its own. */
export function forgetRedeemIdempotencyKey(): void {
  inMemory = null;
  try {
    storage()?.removeItem(STORAGE_KEY);
  } catch {
    // Nothing kept.
  }
}

export const REDEEM_IDEMPOTENCY_STORAGE_KEY = STORAGE_KEY;
