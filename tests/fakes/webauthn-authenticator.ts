/**
 * A software WebAuthn authenticator and client for API tests (issue 33 item 2): it answers the
 * options our server hands out the way a browser and a platform authenticator do, as the WebAuthn
 * Level 3 specification lays out the bytes:
 *
 * - clientDataJSON: {type: 'webauthn.create' | 'webauthn.get', challenge, origin, crossOrigin}.
 * - authenticator data: SHA-256(rpId) (32 bytes) | flags (1: UP 0x01, UV 0x04, BE 0x08, BS 0x10,
 *   AT 0x40) | signature counter (4, big-endian) | at registration, the attested credential data:
 *   AAGUID (16) | credential id length (2, big-endian) | credential id | COSE_Key (CBOR).
 * - attestation object: CBOR {fmt: 'none', attStmt: {}, authData}.
 * - assertion signature: ES256 (ECDSA P-256 with SHA-256, ASN.1 DER) over authData ||
 *   SHA-256(clientDataJSON).
 *
 * Each credential is discoverable (a resident key): it keeps the user handle it was made for and
 * returns it at sign-in. The counter grows by one per assertion unless `counter: 'none'` (as
 * synced passkeys do, which always send 0).
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;
/** COSE: kty EC2 (2), alg ES256 (-7), crv P-256 (1). */
const COSE_KTY = 1;
const COSE_ALG = 3;
const COSE_CRV = -1;
const COSE_X = -2;
const COSE_Y = -3;

type CborValue = number | string | Uint8Array | CborValue[] | Map<CborValue, CborValue>;

function cborHead(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  const head = Buffer.alloc(5);
  head[0] = (major << 5) | 26;
  head.writeUInt32BE(length, 1);
  return head;
}

/** Enough of CBOR (RFC 8949) for attestation objects and COSE keys: integers, byte and text strings, arrays, maps. */
export function encodeCbor(value: CborValue): Buffer {
  if (typeof value === 'number') return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([cborHead(4, value.length), ...value.map(encodeCbor)]);
  const parts: Buffer[] = [cborHead(5, value.size)];
  for (const [k, v] of value) parts.push(encodeCbor(k), encodeCbor(v));
  return Buffer.concat(parts);
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');

export type SoftwareCredential = {
  id: string;
  rpId: string;
  /** The WebAuthn user handle the server gave at registration (base64url). */
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
};

/** Registration options as @simplewebauthn/server makes them (the fields this authenticator reads). */
type CreationOptions = { challenge: string; rp: { id?: string; name: string }; user: { id: string }; excludeCredentials?: Array<{ id: string }> };
type RequestOptions = { challenge: string; rpId?: string; allowCredentials?: Array<{ id: string }> };

export function createSoftwareAuthenticator({ origin, counter = 'counting' }: { origin: string; counter?: 'counting' | 'none' }) {
  const credentials: SoftwareCredential[] = [];
  const rpIdOf = (rpId: string | undefined) => rpId ?? new URL(origin).hostname;

  function clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  function authData(rpId: string, flags: number, signCount: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(signCount);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** navigator.credentials.create(): a new ES256 credential, answered with attestation 'none'. */
  function register(options: CreationOptions) {
    const rpId = rpIdOf(options.rp.id);
    if (options.excludeCredentials?.some((c) => credentials.some((own) => own.id === c.id && own.rpId === rpId))) {
      throw new Error('InvalidStateError: this authenticator already holds one of the excluded credentials');
    }
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = encodeCbor(
      new Map<CborValue, CborValue>([
        [COSE_KTY, 2],
        [COSE_ALG, -7],
        [COSE_CRV, 1],
        [COSE_X, Buffer.from(jwk.x!, 'base64url')],
        [COSE_Y, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const credentialId = randomBytes(16);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, credentialId, coseKey]);
    const data = authData(rpId, FLAG_UP | FLAG_UV | FLAG_AT, 0, attested);
    const attestationObject = encodeCbor(new Map<CborValue, CborValue>([['fmt', 'none'], ['attStmt', new Map()], ['authData', data]]));
    const credential: SoftwareCredential = { id: b64url(credentialId), rpId, userHandle: options.user.id, privateKey, counter: 0 };
    credentials.push(credential);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientData('webauthn.create', options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get(): an assertion by the credential named (or this site's first). */
  function authenticate(options: RequestOptions, pick?: SoftwareCredential) {
    const rpId = rpIdOf(options.rpId);
    const allowed = options.allowCredentials?.length ? options.allowCredentials.map((c) => c.id) : null;
    const credential = pick ?? credentials.find((c) => c.rpId === rpId && (!allowed || allowed.includes(c.id)));
    if (!credential) throw new Error('NotAllowedError: no credential for this site');
    if (counter === 'counting') credential.counter += 1;
    const data = authData(rpId, FLAG_UP | FLAG_UV, counter === 'counting' ? credential.counter : 0);
    const client = clientData('webauthn.get', options.challenge);
    const signature = sign('sha256', Buffer.concat([data, sha256(client)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(client),
        authenticatorData: b64url(data),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  return { register, authenticate, credentials };
}

export type SoftwareAuthenticator = ReturnType<typeof createSoftwareAuthenticator>;
