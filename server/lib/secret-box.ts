import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (docs/decisions/0043): AES-256-GCM with a key derived by HKDF-SHA256 from a
 * setting (CHANNEL_SECRET_KEY, else SESSION_SECRET). A sealed value is
 * `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts): the format version, and the key's
 * id, a fingerprint of the derived key, so a value sealed under another key is recognised as
 * such instead of failing as corrupt. `context` (e.g. the channel's id) is bound as associated
 * data: a sealed value copied to another row does not open there.
 */
export type SecretBox = {
  readonly keyId: string;
  seal(plain: string, context: string): string;
  /** Throws SecretBoxError when the value was sealed under another key, or was altered. */
  open(sealed: string, context: string): string;
};

export class SecretBoxError extends Error {
  readonly reason: 'other-key' | 'malformed';

  constructor(reason: 'other-key' | 'malformed') {
    super(reason === 'other-key' ? 'The secret was saved under another key' : 'The saved secret is damaged');
    this.name = 'SecretBoxError';
    this.reason = reason;
  }
}

const VERSION = 'v1';
const IV_BYTES = 12;
// A fixed salt: the input is already a secret; the info names the purpose, so the same
// SESSION_SECRET gives a key unrelated to the cookie signatures it also makes.
const SALT = 'axiom-secret-box';
const INFO = 'channel-secrets v1';

export function createSecretBox(material: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', material, SALT, INFO, 32));
  const keyId = createHash('sha256').update(key).digest('base64url').slice(0, 8);
  return {
    keyId,
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, keyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const parts = sealed.split('.');
      if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretBoxError('malformed');
      const [, id, iv, tag, ciphertext] = parts as [string, string, string, string, string];
      if (id !== keyId) throw new SecretBoxError('other-key');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('malformed');
      }
    },
  };
}
