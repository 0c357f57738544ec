import type { z } from 'zod';
import { BODY_LIMIT_BYTES } from '../../app.ts';
import { boundedDetails, type ErrorDetail } from '../../lib/errors.ts';
import type { BodyCase, QueryCase, SegmentCase } from './arbitraries.ts';

/**
 * What the API must answer a hostile case, worked out from the HTTP rules (DESIGN section 5)
 * and the route's zod contract, independently of the server's code: `status` and `details`
 * when the answer is certain; neither when the contract accepts the input and the service's
 * own rules decide (then only the properties every answer has apply).
 */
export type Expected = { status?: number; details?: ErrorDetail[]; why: string };

/** A route's input contract, and how the route hands it the raw value (`body ?? {}` etc.). */
export type Contract = { schema: z.ZodType; asSeen?: (raw: unknown) => unknown };

const NOT_JSON: ErrorDetail[] = [{ path: '(body)', message: 'Request body is not valid JSON' }];
/** The request guard's rule: a state-changing request's body must be JSON. */
const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;
/** find-my-way's default maxParamLength: a longer parameter never reaches the route. */
const MAX_PARAM_LENGTH = 100;

/**
 * zod's verdict as parseInput reports it: each failed field with its rule, within the bounds
 * every error answer keeps (the first problems, clipped, then a count; http.api.test.ts checks
 * those bounds on their own).
 */
export function contractVerdict(contract: Contract, raw: unknown): Expected {
  const result = contract.schema.safeParse(contract.asSeen ? contract.asSeen(raw) : raw);
  if (result.success) return { why: 'the contract accepts it' };
  return {
    status: 400,
    details: boundedDetails(result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(root)', message: issue.message }))),
    why: 'the contract refuses it',
  };
}

export function expectedForBody(c: BodyCase, contract: Contract | null, bodyLimit = BODY_LIMIT_BYTES): Expected {
  const bytes = Buffer.isBuffer(c.payload) ? c.payload : Buffer.from(c.payload);
  if (!JSON_CONTENT_TYPE.test(c.contentType ?? '')) return { status: 415, why: 'the body is not sent as JSON' };
  if (bytes.length > bodyLimit) return { status: 413, why: `the body is over the route's limit of ${bodyLimit} bytes` };
  let parsed: unknown;
  try {
    // The server decodes the bytes as UTF-8 too: invalid sequences become U+FFFD.
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { status: 400, details: NOT_JSON, why: 'the text is not JSON' };
  }
  if (hasPrototypeKeys(parsed)) return { status: 400, details: NOT_JSON, why: 'the JSON parser refuses prototype keys' };
  return contract ? contractVerdict(contract, parsed) : { why: 'the route ignores its body' };
}

/** A file's raw bytes (a document upload): octet-stream only, within the route's limit; what the bytes are is the route's to judge (never a 5xx, a 400 naming its field). */
export function expectedForRawBody(c: BodyCase, bodyLimit: number): Expected {
  const bytes = Buffer.isBuffer(c.payload) ? c.payload : Buffer.from(c.payload);
  if (!/^application\/octet-stream\s*(;|$)/i.test(c.contentType ?? '')) return bytes.length > 0 ? { status: 415, why: 'the bytes are not sent as application/octet-stream' } : { why: 'an empty body of any type' };
  if (bytes.length > bodyLimit) return { status: 413, why: `the body is over the route's limit of ${bodyLimit} bytes` };
  return { why: 'the route reads the bytes for their type' };
}

/** What fastify's query parser makes of the pairs: a repeated key becomes an array. */
export function expectedForQuery(c: QueryCase, contract: Contract | null): Expected {
  if (c.pairs === null) return { why: 'a raw part makes the parse unpredictable' };
  if (!contract) return { why: 'the route ignores its query' };
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of c.pairs) {
    const existing = Object.hasOwn(query, key) ? query[key] : undefined;
    const next = existing === undefined ? value : [...[existing].flat(), value];
    Object.defineProperty(query, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return contractVerdict(contract, query);
}

/** `url` is the whole URL the segment was put in; a dot segment there would be resolved away. */
export function expectedForSegment(c: SegmentCase, name: string, contract: Contract, url: string): Expected {
  if (c.decoded === null || new URL(url, 'http://test').pathname !== url.split('?')[0]) return { why: 'a raw segment may route anywhere' };
  if (c.decoded.length > MAX_PARAM_LENGTH) {
    return { status: 400, details: [{ path: '(url)', message: 'A path segment is too long' }], why: 'the segment is over the router limit' };
  }
  return contractVerdict(contract, { [name]: c.decoded });
}

/**
 * secure-json-parse (fastify's JSON parser) refuses `__proto__` keys and a `constructor` key
 * holding a `prototype` key, anywhere. Walks without recursion: the value may be deep.
 */
function hasPrototypeKeys(value: unknown): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item !== 'object') continue;
    if (!Array.isArray(item)) {
      if (Object.hasOwn(item, '__proto__')) return true;
      const ctor = (item as Record<string, unknown>).constructor;
      if (Object.hasOwn(item, 'constructor') && ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) return true;
    }
    for (const child of Object.values(item)) pending.push(child);
  }
  return false;
}
