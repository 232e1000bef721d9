import { randomBytes, createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { dirname } from 'node:path';

/** The key that encrypts private keys and seeds at rest (AES-256-GCM). */
export class MasterKey {
  private constructor(private readonly key: Buffer) {}

  /** Loads the key file, creating it (0600) when absent; `created` tells the caller to warn about backups. */
  static loadOrCreate(file: string): { masterKey: MasterKey; created: boolean } {
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8').trim();
      if (!/^[0-9a-f]{64}$/.test(text)) {
        throw new Error(`master key file ${file} must hold 64 hex characters (32 bytes)`);
      }
      return { masterKey: new MasterKey(Buffer.from(text, 'hex')), created: false };
    }
    mkdirSync(dirname(file), { recursive: true });
    const key = randomBytes(32);
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return { masterKey: new MasterKey(key), created: true };
  }

  /** Builds a key from raw bytes (tests). */
  static fromBytes(bytes: Uint8Array): MasterKey {
    if (bytes.length !== 32) throw new Error('master key must be 32 bytes');
    return new MasterKey(Buffer.from(bytes));
  }

  /** A 32-byte key for one purpose (HMAC-SHA256 of the purpose under the master key); never stored. */
  deriveKey(purpose: string): Buffer {
    return createHmac('sha256', this.key).update(`satgate:${purpose}`, 'utf8').digest();
  }

  /** Encrypts a secret; the result is `v1:` + base64(iv ‖ tag ‖ ciphertext). */
  seal(plaintext: Uint8Array | string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : Buffer.from(plaintext);
    const ct = Buffer.concat([cipher.update(data), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')}`;
  }

  /** Decrypts what seal produced; throws when the key is wrong or the data was altered. */
  unseal(sealed: string): Buffer {
    if (!sealed.startsWith('v1:')) throw new Error('unknown sealed secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    if (raw.length < 28) throw new Error('sealed secret is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
  }
}
