import fc from 'fast-check';

/**
 * Hostile requests for property tests, built from one valid sample: the sample's bodies with
 * wrong types, missing and extra fields, huge strings and arrays, deep nesting, unicode edge
 * cases, prototype keys and raw invalid UTF-8; invalid JSON text and the wrong content types;
 * hostile query strings and path segments. Each case prints as a short label, not its
 * (possibly megabyte) payload, when a property fails.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type BodyCase = { label: string; contentType: string | null; payload: string | Buffer };
/** `pairs` is what the server's query parser should see; null when a raw part makes that unknowable. */
export type QueryCase = { label: string; search: string; pairs: Array<[string, string]> | null };
/** `decoded` is the parameter the router should hand the route; null for raw hostile segments. */
export type SegmentCase = { label: string; segment: string; decoded: string | null };

/** Strings that trip naive text handling: lone surrogates, NUL, bidi overrides, combining
 * marks, emoji sequences, BOM, line separators, escapes, paths and injection classics. */
export const UNICODE_EDGES: readonly string[] = [
  '\uD800',
  '\uDFFF',
  'a\uDBFFb',
  '\uDC00\uD800',
  '\u0000',
  'a\u0000b',
  '\u202Egnp.exe\u202C',
  '\u200F\u200E\u2066\u2069',
  `Z${'\u0336\u0334\u0301'.repeat(300)}`,
  'e\u0301\u0302\u0303',
  '👩‍👩‍👧‍👦🏳️‍🌈🇫🇷',
  '𝕏𝔂𝕫',
  '\uFEFF',
  '\u2028\u2029',
  '\u001B[31mred\u001B[0m',
  '\r\n\t\v\f\b',
  '\uFFFE\uFFFF',
  'İıßﬀ',
  '../../etc/passwd',
  '..\\..\\windows',
  '%00%2e%2e%2f',
  '<script>alert(1)</script>',
  "'; drop table users; --",
  '${jndi:ldap://x}',
  '{{7*7}}',
  '"\\',
];

/** UTF-8 that is not: overlong '/', an encoded surrogate, beyond U+10FFFF, stray bytes. */
const INVALID_UTF8: readonly number[][] = [
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xff, 0xfe],
  [0x80],
];

/** Any UTF-16 code unit (lone surrogates included, which fast-check's 'binary' leaves out),
 * any astral code point, and a few troublemakers often enough to matter. */
const anyUnit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
  fc.constantFrom('\u0000', '\uD800', '\uDC00', '\u202E', '\u0301'),
);
const anyText = (length: { minLength?: number; maxLength: number }) => fc.string({ unit: anyUnit, ...length });

/** Keys that mean something to JavaScript objects. */
export const PROTOTYPE_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

const WRONG_VALUES: readonly Json[] = [null, true, false, 0, -1, 1.5, -0.000001, 2 ** 53 + 1, 1e308, '', 'text', '0', 'true', 'null', [], {}, [null], [[]], { a: 1 }, ['a', 1, null]];
/** Number literals JSON.parse takes but no sane schema should: Infinity, 30 digits, underflow. */
const RAW_NUMBERS: readonly string[] = ['1e999', '-1e999', '123456789012345678901234567890', '1e-400', '-0'];

/** Text to splice into the JSON at a marker instead of a value (nesting, numbers, bytes). */
type Raw = { raw: string | Buffer; label: string };
type Value = { json: Json; label: string } | Raw;

const isObject = (v: Json): v is { [key: string]: Json } => v !== null && typeof v === 'object' && !Array.isArray(v);

type Path = Array<string | number>;

/** Array items a mutation may target: the first few are enough, and a huge array stays cheap. */
const ITEMS_VISITED = 20;

/** Every path in a value (the root is []), parents before children. */
function pathsOf(value: Json, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (Array.isArray(value)) value.slice(0, ITEMS_VISITED).forEach((v, i) => pathsOf(v, [...path, i], out));
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) pathsOf(v, [...path, k], out);
  return out;
}

function getAt(value: Json, path: Path): Json {
  return path.reduce<Json>((v, key) => (v as Record<string | number, Json>)[key]!, value);
}

/** Sets an own property, even `__proto__` (plain assignment would change the prototype). */
function setOwn(target: Json, key: string | number, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const pick = <T>(items: readonly T[], index: number): T => items[index % items.length]!;

/** A mutation picks its target by index into the paths the draft has when it applies, so a
 * sequence stays valid whatever earlier steps removed. */
type Mutation = (draft: Draft) => string;
type Draft = { value: Json; splices: Map<string, string | Buffer> };

/** Replaces a value below the root, or the root when there is nothing below it. */
function replaceAt(draft: Draft, target: number, make: (current: Json) => Value): string {
  const all = pathsOf(draft.value);
  const path = pick(all.length > 1 ? all.slice(1) : all, target);
  const replacement = make(getAt(draft.value, path));
  let json: Json;
  if ('raw' in replacement) {
    json = `\uE000raw${draft.splices.size}\uE000`;
    draft.splices.set(json, replacement.raw);
  } else json = structuredClone(replacement.json); // the constants must never be mutated later
  if (path.length === 0) draft.value = json;
  else setOwn(getAt(draft.value, path.slice(0, -1)), path.at(-1)!, json);
  return `${path.join('.') || '(root)'} = ${replacement.label}`;
}

const describeValue = (v: Json) => {
  const text = JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
};

const wrongType: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.oneof(fc.constantFrom(...WRONG_VALUES).map((json): Value => ({ json, label: describeValue(json) })), fc.constantFrom(...RAW_NUMBERS).map((raw): Value => ({ raw, label: raw }))))
  .map(([target, value]) => (draft) => `wrong type: ${replaceAt(draft, target, () => value)}`);

const missingField: fc.Arbitrary<Mutation> = fc.nat().map((target) => (draft) => {
  const fields = pathsOf(draft.value).filter((p) => p.length > 0 && isObject(getAt(draft.value, p.slice(0, -1))));
  if (fields.length === 0) return 'missing: no field';
  const path = pick(fields, target);
  delete (getAt(draft.value, path.slice(0, -1)) as Record<string, Json>)[path.at(-1)!];
  return `missing ${path.join('.')}`;
});

const hostileKey = fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS, ...UNICODE_EDGES), anyText({ maxLength: 20 }), fc.nat(300_000).map((n) => 'k'.repeat(n)));
const pollutingValue: Json = { polluted: 'yes', isAdmin: true, role: 'admin' };

const extraField: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), hostileKey, fc.oneof(fc.constant(pollutingValue), fc.constant<Json>({ prototype: pollutingValue }), fc.constantFrom(...WRONG_VALUES)))
  .map(([target, key, value]) => (draft) => {
    const objects = pathsOf(draft.value).filter((p) => isObject(getAt(draft.value, p)));
    if (objects.length === 0) return 'extra: no object';
    const path = pick(objects, target);
    setOwn(getAt(draft.value, path), key, structuredClone(value)); // the constants must never be mutated later
    return `extra ${[...path, key.length > 30 ? `${key.slice(0, 27)}...(${key.length})` : JSON.stringify(key)].join('.')} = ${describeValue(value)}`;
  });

/** 100k+ characters: over every length limit the contracts have (the largest is 100 000). */
const hugeString: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.integer({ min: 100_001, max: 300_000 }), fc.constantFrom('a', 'é', '😀', '\u202E', 'e\u0301', ' ', '\u0000'))
  .map(([target, length, unit]) => (draft) => `huge string: ${replaceAt(draft, target, () => ({ json: unit.repeat(Math.ceil(length / unit.length)), label: `${JSON.stringify(unit)} x ${length}` }))}`);

const hugeArray: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.integer({ min: 10_000, max: 100_000 }), fc.boolean())
  .map(([target, length, copyCurrent]) => (draft) =>
    `huge array: ${replaceAt(draft, target, (current) => {
      // Copies of a small value only (not of a huge one, nor of a splice marker), each its own
      // object: a later mutation of one must not grow all of them.
      const item = copyCurrent && JSON.stringify(current).length < 200 && !String(current).startsWith('\uE000') ? current : 0;
      return { json: Array.from({ length }, () => (typeof item === 'object' ? structuredClone(item) : item)), label: `${length} x ${describeValue(item)}` };
    })}`,
  );

/** Thousands of levels, spliced in as text: building them as values would recurse as deep. */
const deepNesting: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.integer({ min: 1_000, max: 6_000 }), fc.constantFrom('array', 'object'))
  .map(([target, depth, kind]) => (draft) => {
    const raw = kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}null${'}'.repeat(depth)}`;
    return `deep nesting: ${replaceAt(draft, target, () => ({ raw, label: `${depth} nested ${kind}s` }))}`;
  });

/** An edge string alone, or appended to the current string so its other rules still hold. */
const unicodeEdge: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.oneof(fc.constantFrom(...UNICODE_EDGES), anyText({ minLength: 1, maxLength: 30 })), fc.boolean())
  .map(([target, edge, append]) => (draft) => {
    const strings = pathsOf(draft.value).filter((p) => typeof getAt(draft.value, p) === 'string');
    if (strings.length === 0) return `unicode: ${replaceAt(draft, target, () => ({ json: edge, label: JSON.stringify(edge) }))}`;
    const path = pick(strings, target);
    const current = getAt(draft.value, path) as string;
    const json = append ? `${current}${edge}` : edge;
    if (path.length === 0) draft.value = json;
    else setOwn(getAt(draft.value, path.slice(0, -1)), path.at(-1)!, json);
    return `unicode: ${path.join('.') || '(root)'} ${append ? '+=' : '='} ${JSON.stringify(edge).slice(0, 40)}`;
  });

/** Bytes that are not UTF-8, inside a JSON string. */
const invalidUtf8: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.constantFrom(...INVALID_UTF8))
  .map(([target, bytes]) => (draft) =>
    `invalid UTF-8: ${replaceAt(draft, target, () => ({ raw: Buffer.concat([Buffer.from('"x'), Buffer.from(bytes), Buffer.from('y"')]), label: bytes.map((b) => b.toString(16)).join(' ') }))}`,
  );

/** Unicode edges weigh most: appended to a valid string they leave the rest of the body valid,
 * so they reach the services and the database, where text troubles hide. */
const mutation = fc.oneof(
  { weight: 2, arbitrary: wrongType },
  { weight: 1, arbitrary: missingField },
  { weight: 2, arbitrary: extraField },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: hugeArray },
  { weight: 1, arbitrary: deepNesting },
  { weight: 4, arbitrary: unicodeEdge },
  { weight: 1, arbitrary: invalidUtf8 },
);

function render(draft: Draft): string | Buffer {
  const text = JSON.stringify(draft.value);
  if (draft.splices.size === 0) return text;
  // Split the text at each marker and put the raw parts in between, as bytes.
  const parts: Buffer[] = [];
  let rest = text;
  for (const [marker, raw] of draft.splices) {
    const quoted = JSON.stringify(marker);
    const at = rest.indexOf(quoted);
    if (at < 0) continue; // a later mutation replaced the marker's place
    parts.push(Buffer.from(rest.slice(0, at)), Buffer.isBuffer(raw) ? raw : Buffer.from(raw));
    rest = rest.slice(at + quoted.length);
  }
  parts.push(Buffer.from(rest));
  return Buffer.concat(parts);
}

const labelled = <T extends { label: string }>(value: T): T => Object.assign(value, { [fc.toStringMethod]: () => value.label });

/** The sample with zero to three mutations, sent as JSON: mostly one, which tests one rule at
 * a time; zero keeps a valid request in the mix; more find what single faults do not. */
function mutatedBodies(sample: Json): fc.Arbitrary<BodyCase> {
  const mutations = fc.oneof(
    { weight: 1, arbitrary: fc.constant([]) },
    { weight: 6, arbitrary: fc.tuple(mutation) },
    { weight: 3, arbitrary: fc.array(mutation, { minLength: 2, maxLength: 3 }) },
  );
  return mutations.map((mutations) => {
    const draft: Draft = { value: structuredClone(sample), splices: new Map() };
    const steps = mutations.map((m) => m(draft));
    return labelled({ label: steps.join('; ') || 'the valid sample', contentType: 'application/json', payload: render(draft) });
  });
}

/** The characters PostgreSQL cannot store: NUL in text, unpaired surrogates in jsonb. */
const UNSTORABLE = ['\u0000', '\uD800', '\uDC00'];

/**
 * Not left to chance: each string of the sample with each unstorable character appended, the
 * one fault most likely to pass a contract and reach the database. fast-check runs these
 * before its random cases.
 */
export function unstorableTextBodies(sample: Json): BodyCase[] {
  return pathsOf(sample)
    .filter((path) => typeof getAt(sample, path) === 'string')
    .flatMap((path) =>
      UNSTORABLE.map((char) => {
        const draft: Draft = { value: structuredClone(sample), splices: new Map() };
        const current = getAt(draft.value, path) as string;
        if (path.length === 0) draft.value = current + char;
        else setOwn(getAt(draft.value, path.slice(0, -1)), path.at(-1)!, current + char);
        return labelled({ label: `unicode: ${path.join('.') || '(root)'} += ${JSON.stringify(char)}`, contentType: 'application/json', payload: render(draft) });
      }),
    );
}

/** Text that is not JSON, or is JSON of the wrong shape at the root. */
function brokenBodies(sample: Json): fc.Arbitrary<BodyCase> {
  const text = JSON.stringify(sample);
  const broken = [
    '',
    ' ',
    '{',
    '}',
    '[',
    'nul',
    'undefined',
    'NaN',
    '\u0000',
    `${text},`,
    `${text}${text}`,
    `${text}x`,
    text.replace(/"/g, "'"),
    text.replace(/"([^"]+)":/g, '$1:'),
    `/* comment */${text}`,
    text.replace(/}$/, ',}'),
    text.replace(/:/, '::'),
  ];
  const otherRoots = ['null', '[]', '{}', '"text"', '0', 'true', `[${text}]`];
  return fc.oneof(
    fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => labelled({ label: `truncated at ${cut}`, contentType: 'application/json', payload: text.slice(0, cut) })),
    fc.constantFrom(...broken).map((payload) => labelled({ label: `not JSON: ${JSON.stringify(payload.slice(0, 30))}`, contentType: 'application/json', payload })),
    fc.constantFrom(...otherRoots).map((payload) => labelled({ label: `root ${payload.slice(0, 30)}`, contentType: 'application/json', payload })),
  );
}

/** The valid JSON under another content type (or none), and forms and multipart for real. */
function wrongContentTypes(sample: Json): fc.Arbitrary<BodyCase> {
  const text = JSON.stringify(sample);
  const fields = isObject(sample) ? Object.entries(sample).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]) : [['value', text] as [string, string]];
  const form = new URLSearchParams(fields).toString() || 'a=1';
  const boundary = 'hostile-boundary';
  const multipart = `${fields.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('')}--${boundary}--\r\n`;
  const cases: BodyCase[] = [
    { label: 'JSON as text/plain', contentType: 'text/plain', payload: text },
    { label: 'JSON with no content type', contentType: null, payload: text },
    { label: 'JSON as application/x-www-form-urlencoded', contentType: 'application/x-www-form-urlencoded', payload: text },
    { label: 'a real form', contentType: 'application/x-www-form-urlencoded', payload: form },
    { label: 'real multipart', contentType: `multipart/form-data; boundary=${boundary}`, payload: multipart },
    { label: 'JSON as application/json-patch+json', contentType: 'application/json-patch+json', payload: text },
    { label: 'JSON as text/json', contentType: 'text/json', payload: text },
    { label: 'JSON as application/xml', contentType: 'application/xml', payload: `<body>${text}</body>` },
    { label: 'JSON as APPLICATION/JSON', contentType: 'APPLICATION/JSON', payload: text },
    { label: 'JSON with a charset', contentType: 'application/json; charset=utf-8', payload: text },
    { label: 'JSON with an odd charset', contentType: 'application/json; charset=latin1', payload: text },
  ];
  return fc.constantFrom(...cases.map(labelled));
}

/** Just over the body limit (the app's 1 MB, or the route's own), in a field or as a huge array. */
function oversizeBodies(sample: Json, limit: number): fc.Arbitrary<BodyCase> {
  return fc.integer({ min: limit + 1, max: 2 * limit }).map((bytes) =>
    labelled({ label: `${bytes} bytes`, contentType: 'application/json', payload: JSON.stringify({ ...(isObject(sample) ? sample : { sample }), filler: 'x'.repeat(bytes) }) }),
  );
}

/**
 * A route that takes a file's raw bytes (a document upload): any bytes (text, binary, the
 * magic of one format with the rest of another), the sample under other content types, and
 * bodies over its limit.
 */
export function rawBodyCases(sample: string | Buffer, limit: number): fc.Arbitrary<BodyCase> {
  const octets = 'application/octet-stream';
  const magics = ['%PDF-1.7\n', 'PK\u0003\u0004', 'PK\u0005\u0006', '<!doctype html>', '\uFEFF', '\u0089PNG\r\n\u001a\n'];
  return fc.oneof(
    { weight: 4, arbitrary: fc.uint8Array({ maxLength: 4096 }).map((bytes) => labelled({ label: `${bytes.length} random bytes`, contentType: octets, payload: Buffer.from(bytes) })) },
    { weight: 3, arbitrary: anyText({ maxLength: 2000 }).map((text) => labelled({ label: `text ${JSON.stringify(text.slice(0, 40))}`, contentType: octets, payload: text })) },
    {
      weight: 3,
      arbitrary: fc.tuple(fc.constantFrom(...magics), fc.uint8Array({ maxLength: 2048 })).map(([magic, rest]) =>
        labelled({ label: `${JSON.stringify(magic)} then ${rest.length} random bytes`, contentType: octets, payload: Buffer.concat([Buffer.from(magic, 'latin1'), Buffer.from(rest)]) }),
      ),
    },
    { weight: 2, arbitrary: fc.constantFrom<string | null>('application/json', 'text/plain', null, 'multipart/form-data; boundary=x', 'application/pdf').map((type) => labelled({ label: `the sample as ${type}`, contentType: type, payload: sample })) },
    { weight: 1, arbitrary: fc.integer({ min: limit + 1, max: limit + 4096 }).map((bytes) => labelled({ label: `${bytes} bytes`, contentType: octets, payload: 'x'.repeat(bytes) })) },
  );
}

export function bodyCases(sample: Json, limit = 1024 * 1024): fc.Arbitrary<BodyCase> {
  return fc.oneof(
    { weight: 12, arbitrary: mutatedBodies(sample) },
    { weight: 3, arbitrary: brokenBodies(sample) },
    { weight: 3, arbitrary: wrongContentTypes(sample) },
    { weight: 1, arbitrary: oversizeBodies(sample, limit) },
  );
}

// --- Query strings ----------------------------------------------------------------------------

/** Only well-formed text can be percent-encoded; lone surrogates go raw (see RAW_QUERY_PARTS). */
const wellFormed = (text: string) => text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

const QUERY_VALUES: readonly string[] = ['', '-1', '0', '1.5', '1e3', '1e999', 'NaN', 'Infinity', '0x10', ' 1', '1 ', '+1', '9'.repeat(400), 'null', 'true', '[]', '{}', '[object Object]'];
/** Parts whose parse the test does not predict: broken escapes, NUL, empty keys, brackets. */
const RAW_QUERY_PARTS: readonly string[] = ['%00', 'limit=%00', 'a=%E0%A4%A', 'limit=%', 'a=%ZZ', 'a=%ED%A0%80', '&&&', '=x', 'limit', 'limit[]=1', 'limit[a]=1', '__proto__[polluted]=yes', 'constructor[prototype][polluted]=yes', 'a=1#frag', 'a=b=c', ';limit=1'];

const queryValue = fc.oneof(
  fc.constantFrom(...QUERY_VALUES, ...UNICODE_EDGES),
  fc.integer().map(String),
  fc.double().map(String),
  anyText({ maxLength: 30 }),
  fc.integer({ min: 10_000, max: 100_000 }).map((n) => 'x'.repeat(n)),
);

export function queryCases(keys: readonly string[], sample: Record<string, string> = {}): fc.Arbitrary<QueryCase> {
  const key = fc.oneof(fc.constantFrom(...(keys.length > 0 ? keys : ['limit'])), fc.constantFrom(...PROTOTYPE_KEYS), anyText({ minLength: 1, maxLength: 20 }));
  const step = fc.tuple(fc.constantFrom('set', 'add', 'drop'), key, queryValue);
  return fc.tuple(fc.array(step, { maxLength: 4 }), fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...RAW_QUERY_PARTS) })).map(([steps, raw]) => {
    let pairs: Array<[string, string]> = Object.entries(sample);
    for (const [op, k, v] of steps) {
      const name = wellFormed(k);
      if (op === 'drop') pairs = pairs.filter(([existing]) => existing !== name);
      else if (op === 'set') pairs = [...pairs.filter(([existing]) => existing !== name), [name, wellFormed(v)]];
      else pairs.push([name, wellFormed(v)]);
    }
    const encoded = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
    const parts = raw === null ? encoded : [...encoded, raw];
    const short = (s: string) => (s.length > 20 ? `${JSON.stringify(s.slice(0, 17))}...(${s.length})` : JSON.stringify(s));
    const label = `query ${pairs.map(([k, v]) => `${short(k)}=${short(v)}`).join('&')}${raw === null ? '' : ` + raw ${raw}`}`;
    return labelled({ label, search: parts.length > 0 ? `?${parts.join('&')}` : '', pairs: raw === null ? pairs : null });
  });
}

/** Each key the route reads, holding each unstorable character (sent percent-encoded). */
export function unstorableTextQueries(keys: readonly string[]): QueryCase[] {
  return keys.flatMap((key) =>
    ['\u0000', 'x\u0000'].map((value) => labelled({ label: `query ${key}=${JSON.stringify(value)}`, search: `?${key}=${encodeURIComponent(value)}`, pairs: [[key, value] as [string, string]] })),
  );
}

// --- Path segments ----------------------------------------------------------------------------

/** Segments sent as they are: dot segments, broken and NUL escapes, encoded traversal. */
const RAW_SEGMENTS: readonly string[] = ['..', '.', '../..', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f', '%2e%2e', '%00', 'x%00', '%E0%A4%A', '%', '%ZZ', '%ED%A0%80', '%C0%AF', 'a;b', ';', '*', '%20', '~', '%2F', 'a/..', `${'%41'.repeat(200)}`];

/** NUL, an encoded surrogate, a broken escape and one character over the router's limit, on the
 * real value, always tried first. */
export function segmentExamples(real: string): SegmentCase[] {
  return [
    labelled({ label: 'segment real + NUL', segment: `${encodeURIComponent(real)}%00`, decoded: `${real}\u0000` }),
    labelled({ label: 'raw segment real + encoded surrogate', segment: `${encodeURIComponent(real)}%ED%A0%80`, decoded: null }),
    labelled({ label: 'raw segment real + broken escape', segment: `${encodeURIComponent(real)}%E0%A4%A`, decoded: null }),
    labelled({ label: 'segment of 101 characters', segment: 'a'.repeat(101), decoded: 'a'.repeat(101) }),
  ];
}

/** Hostile stand-ins for a real id or slug: UUID look-alikes, random unicode, over-long ones, raw. */
export function segmentCases(real: string): fc.Arbitrary<SegmentCase> {
  const lookAlikes = [
    real.toUpperCase(),
    ` ${real}`,
    `${real}\u0000`,
    real.replace(/-/g, ''),
    `{${real}}`,
    `${real}/extra`,
    `${real.slice(0, -1)}g`,
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '-1',
    '0',
    'null',
    'undefined',
  ];
  const encoded = fc
    .oneof(
      fc.uuid(),
      fc.constantFrom(...lookAlikes, ...UNICODE_EDGES),
      anyText({ minLength: 1, maxLength: 60 }),
      fc.integer({ min: 90, max: 400 }).map((n) => 'a'.repeat(n)),
    )
    .map((text) => {
      const decoded = wellFormed(text);
      return labelled({ label: `segment ${JSON.stringify(decoded.slice(0, 60))}${decoded.length > 60 ? `...(${decoded.length})` : ''}`, segment: encodeURIComponent(decoded), decoded });
    });
  const raw = fc.constantFrom(...RAW_SEGMENTS, `${real}%00`, `${real}%2F..`).map((segment) => labelled({ label: `raw segment ${segment.slice(0, 60)}`, segment, decoded: null }));
  return fc.oneof({ weight: 3, arbitrary: encoded }, { weight: 1, arbitrary: raw });
}
