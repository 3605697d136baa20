import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'crypto';
import type { AppConfig } from './app-config';

/** Format of a sealed value: version byte, key id (4 bytes), nonce (12), ciphertext, GCM tag (16). */
const VERSION = 1;
const ID_BYTES = 4;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER = 1 + ID_BYTES + NONCE_BYTES;

interface DataKey {
  id: Buffer;
  encryption: Buffer;
  hmac: Buffer;
}

function derive(secret: Buffer): DataKey {
  const sub = (info: string, length: number) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, length));
  return { id: sub('ovr data key id', ID_BYTES), encryption: secret, hmac: sub('ovr licence key hmac', 32) };
}

/**
 * Licence keys at rest (docs/product.md §18.1): AES-256-GCM with a random nonce per value under DATA_KEY, and a keyed
 * hash (HMAC-SHA256 under a key derived from DATA_KEY by HKDF) for uniqueness and exact lookup. A sealed value
 * names its key (a 4-byte id derived from it), so while a rotation runs values under DATA_KEY_PREVIOUS still open.
 */
export class DataCipher {
  private readonly current: DataKey;
  private readonly previous?: DataKey;

  constructor(currentKey: Buffer, previousKey?: Buffer) {
    this.current = derive(currentKey);
    this.previous = previousKey && derive(previousKey);
  }

  static fromConfig(config: Pick<AppConfig, 'dataKey' | 'dataKeyPrevious'>): DataCipher {
    return new DataCipher(config.dataKey, config.dataKeyPrevious);
  }

  get hasPrevious(): boolean {
    return !!this.previous;
  }

  seal(plain: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.encryption, nonce);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), this.current.id, nonce, body, cipher.getAuthTag()]);
  }

  open(sealed: Buffer): string {
    if (sealed.length < HEADER + TAG_BYTES || sealed[0] !== VERSION) throw new Error('Not a sealed value');
    const key = this.keyOf(sealed);
    if (!key) throw new Error('Sealed under an unknown data key: set DATA_KEY (and DATA_KEY_PREVIOUS while rotating)');
    const decipher = createDecipheriv('aes-256-gcm', key.encryption, sealed.subarray(1 + ID_BYTES, HEADER));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(sealed.subarray(HEADER, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }

  /** The 4-byte key id every value sealed under the current DATA_KEY carries in bytes 2–5 (SQL: substring(x FROM 2 FOR 4)). */
  get currentKeyId(): Buffer {
    return Buffer.from(this.current.id);
  }

  /** True when `sealed` is under the current DATA_KEY (a rotation leaves it alone). */
  isCurrent(sealed: Buffer): boolean {
    return sealed.subarray(1, 1 + ID_BYTES).equals(this.current.id);
  }

  /**
   * True when `sealed` is under DATA_KEY_PREVIOUS: what a rotation re-seals. A value under neither key (a third key)
   * is left alone, and counted by rotate-data-key's closing check.
   */
  isRotatable(sealed: Buffer): boolean {
    return !!this.previous && sealed.subarray(1, 1 + ID_BYTES).equals(this.previous.id);
  }

  /** The keyed hash under the current key. */
  hash(plain: string): Buffer {
    return createHmac('sha256', this.current.hmac).update(plain, 'utf8').digest();
  }

  /** The keyed hash under the previous key (only while rotating). */
  previousHash(plain: string): Buffer | undefined {
    return this.previous && createHmac('sha256', this.previous.hmac).update(plain, 'utf8').digest();
  }

  private keyOf(sealed: Buffer): DataKey | undefined {
    const id = sealed.subarray(1, 1 + ID_BYTES);
    if (id.equals(this.current.id)) return this.current;
    if (this.previous && id.equals(this.previous.id)) return this.previous;
    return undefined;
  }
}
