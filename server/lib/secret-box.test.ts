import { describe, expect, it } from 'vitest';
import { createSecretBox, SecretBoxError } from './secret-box.ts';

const MATERIAL = 'a-test-key-of-at-least-thirty-two-characters';

describe('secret box', () => {
  const box = createSecretBox(MATERIAL);

  it('seals without the clear text and opens with the same key and context', () => {
    const sealed = box.seal('https://hooks.slack.com/services/T0/B0/secret-part', 'channel-1');
    expect(sealed).not.toContain('secret-part');
    expect(sealed.split('.').slice(0, 2)).toEqual(['v1', box.keyId]);
    expect(box.open(sealed, 'channel-1')).toBe('https://hooks.slack.com/services/T0/B0/secret-part');
  });

  it('gives a different ciphertext each time (a fresh IV)', () => {
    expect(box.seal('same', 'c')).not.toBe(box.seal('same', 'c'));
  });

  it('refuses a value moved to another context, altered, or sealed under another key', () => {
    const sealed = box.seal('token', 'channel-1');
    expect(() => box.open(sealed, 'channel-2')).toThrow(SecretBoxError);
    const parts = sealed.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'), 'channel-1')).toThrow(expect.objectContaining({ reason: 'malformed' }));
    const other = createSecretBox(`${MATERIAL}-rotated`);
    expect(other.keyId).not.toBe(box.keyId);
    expect(() => other.open(sealed, 'channel-1')).toThrow(expect.objectContaining({ reason: 'other-key' }));
  });
});
