import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZApiError } from '../../contracts/errors.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../tests/fakes/ai-providers.ts';
import { bodyCases, queryCases, rawBodyCases, segmentCases, segmentExamples, unstorableTextBodies, unstorableTextQueries, type BodyCase } from './hostile/arbitraries.ts';
import { snapshotter, type Snapshot } from './hostile/db-snapshot.ts';
import { ENDPOINTS, HOSTILE_DOCUMENT_MAX_MB, type Endpoint } from './hostile/endpoints.ts';
import { ADMIN_EMAIL, createFixtures, type Fixtures } from './hostile/fixtures.ts';
import { expectedForBody, expectedForQuery, expectedForRawBody, expectedForSegment, type Expected } from './hostile/oracle.ts';
import { createTestApp, type TestApp } from './test-app.ts';

/** Fixed, so a run is reproducible; HOSTILE_SEED explores others, HOSTILE_SCALE=10 ten times as many cases. */
const SEED = Number(process.env.HOSTILE_SEED ?? 20_251_122);
const SCALE = Number(process.env.HOSTILE_SCALE ?? 1);
/** Cases per input kind and endpoint. A query the route ignores gets a few only: each one is
 * a successful request, which for a write route means one more row. */
const RUNS = { body: 40, query: 25, ignoredQuery: 8, path: 25 };
const TIMEOUT_MS = 120_000 * SCALE;

/** A stack frame (raw or JSON-escaped) or a source path in an answer means a leak. */
const LEAKS = [/(\\n|\n)\s+at \S/, /\.ts:\d+/, /\/server\//, /node_modules/, /"stack"/];
const PROTOTYPES = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype };

/**
 * Hostile input, as properties over generated requests, for every registered /api route: its
 * valid sample mutated (wrong types, missing and extra fields, huge strings and arrays, deep
 * nesting, unicode edge cases, prototype keys, invalid UTF-8), broken JSON, the wrong content
 * types, hostile query strings and path segments. Whatever is sent:
 *  1. never a 5xx;
 *  2. JSON with no stack or source path; a 400 names each field and its rule, exactly as the
 *     route's contract reports them when the contract refuses the input;
 *  3. a refused request (4xx) changes no row of any table;
 *  4. no prototype is polluted.
 */
describe('hostile input', () => {
  let fake: FakeAiProviders;
  let t: TestApp;
  let fx: Fixtures;
  let snapshot: () => Promise<Snapshot>;
  let prototypeKeys: Record<string, string[]>;
  const realParams = new Map<Endpoint, Promise<string>>();
  /** The database's snapshot while nothing has written since it was taken (saves half the
   * snapshots: a refused request's "after" is the next request's "before"). */
  let known: Snapshot | null = null;
  const databaseNow = async () => (known ??= await snapshot());

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    t = await createTestApp({
      env: {
        ...fake.env,
        ADMIN_EMAILS: ADMIN_EMAIL,
        MARKET_DATA: 'simulated',
        // Sharing is off by default; on for the admin, so share routes reach past the policy.
        CHAT_SHARE_ROLES: 'admin',
        // Limits that would refuse (and, for the budget, record) valid requests part-way through.
        SIGN_IN_RATE_LIMIT: '100000',
        WRITE_RATE_LIMIT: '100000',
        CHAT_RATE_LIMIT: '100000',
        BACKTEST_RATE_LIMIT: '100000',
        CHAT_DAILY_TOKEN_BUDGET: '0',
        DOCUMENT_MAX_MB: String(HOSTILE_DOCUMENT_MAX_MB),
        // The live console's stream ends on its own soon, so inject() gets its whole answer.
        EVENT_STREAM_MAX_MS: '50',
      },
    });
    fx = await createFixtures(t);
    // Describe it's assistant drafts a condition whatever it is sent (one on the agent's own
    // timeframe, so any agent timeframe takes it): a valid request is a 200, never a 4xx that wrote.
    fake.setStructuredReply('openai', {
      kind: 'json',
      value: {
        understood: true,
        notUnderstood: null,
        condition: {
          when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'close', timeframe: null }, operator: 'crosses-above', right: { indicator: 'sma', period: 50, timeframe: null } }] },
          trigger: { mode: 'once-per-close', cooldownMinutes: null },
        },
      },
    });
    snapshot = await snapshotter(t.database.db);
    prototypeKeys = Object.fromEntries(Object.entries(PROTOTYPES).map(([name, proto]) => [name, Reflect.ownKeys(proto).map(String).sort()]));
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  /** The real object's id or slug; a new one for each request that may delete it. */
  const realParam = (endpoint: Endpoint): Promise<string> => {
    const param = endpoint.param!;
    if (!param.freshEachRequest && realParams.has(endpoint)) return realParams.get(endpoint)!;
    known = null; // making the object writes
    const made = param.real(fx);
    if (!param.freshEachRequest) realParams.set(endpoint, made);
    return made;
  };

  const validBody = (endpoint: Endpoint): BodyCase | undefined =>
    endpoint.rawBody
      ? { label: 'the valid sample', contentType: 'application/octet-stream', payload: endpoint.rawBody.sample }
      : endpoint.body && { label: 'the valid sample', contentType: 'application/json', payload: JSON.stringify(endpoint.body.sample) };

  /** Sends one request (the valid sample where a part is not given) with the snapshot from just before it. */
  async function send(endpoint: Endpoint, parts: { segment?: string; search?: string; body?: BodyCase }) {
    let path = endpoint.param ? endpoint.route.replace(`:${endpoint.param.name}`, parts.segment ?? encodeURIComponent(await realParam(endpoint))) : endpoint.route;
    if (endpoint.fixedParams) for (const [name, value] of Object.entries(await endpoint.fixedParams(fx))) path = path.replace(`:${name}/`, `${encodeURIComponent(value)}/`);
    const url = `${path}${parts.search ?? endpoint.sampleQuery ?? ''}`;
    const body = parts.body ?? validBody(endpoint);
    if (endpoint.actor === 'own session') known = null; // signing in writes a session
    const cookie = endpoint.actor === 'admin' ? fx.admin : endpoint.actor === 'own session' ? await fx.throwawaySession() : undefined;
    const before = await databaseNow();
    known = null; // until checkAnswer finds the request refused and unchanged
    const res = await t.request({
      method: endpoint.method,
      url,
      ...(cookie ? { cookie } : {}),
      ...(body ? { payload: body.payload, headers: body.contentType === null ? {} : { 'content-type': body.contentType } } : {}),
    });
    return { url, res, before };
  }

  /** The four properties, for one answer. */
  async function checkAnswer(label: string, expected: Expected, res: LightMyRequestResponse, before: Snapshot, url: string): Promise<void> {
    const where = `${label} (expected ${expected.status ?? 'any non-5xx'}: ${expected.why}) -> ${res.statusCode} ${res.body.slice(0, 500)}`;
    expect(res.statusCode, where).toBeLessThan(500);
    for (const leak of LEAKS) expect(res.body, where).not.toMatch(leak);
    // Dot segments resolved out of /api (to the client app's HTML) are not an API answer.
    if (!new URL(url, 'http://test').pathname.startsWith('/api/')) return expectNoPollution(where);
    let body: unknown = undefined;
    if (res.statusCode !== 204) {
      // JSON, a stream of JSON lines (Test on history's answer), server-sent events with JSON
      // data (the live console, a chat answer joined again), a Markdown file (a chat's export) or
      // a chat image; their refusals are JSON.
      const type = String(res.headers['content-type']);
      const ndjson = /^application\/x-ndjson/.test(type);
      const sse = /^text\/event-stream/.test(type);
      const markdown = /^text\/markdown/.test(type);
      const image = /^image\/(png|jpeg|webp|gif)$/.test(type);
      expect(type, where).toMatch(
        (ndjson || sse || markdown || image) && res.statusCode < 300 ? /^(application\/x-ndjson|text\/event-stream|text\/markdown|image\/)/ : /^application\/json/,
      );
      body = markdown || image
        ? res.body
        : ndjson
          ? res.body.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown)
          : sse
            ? res.body.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as unknown)
            : JSON.parse(res.body);
    }
    if (expected.status !== undefined) expect(res.statusCode, where).toBe(expected.status);
    if (res.statusCode >= 400) {
      const error = ZApiError.parse(body);
      if (expected.details) expect(error.details, where).toEqual(expected.details);
      if (res.statusCode === 400) {
        expect(error.details?.length, `${where}: a 400 names the field`).toBeGreaterThan(0);
        for (const detail of error.details!) expect(detail.path && detail.message, `${where}: each detail has a field and a rule`).toBeTruthy();
      }
      known = await snapshot();
      expect(known, `${where}: a refused request changes nothing`).toEqual(before);
    }
    expectNoPollution(where);
  }

  function expectNoPollution(where: string): void {
    const blank = {} as Record<string, unknown>;
    expect([blank.polluted, blank.isAdmin, blank.role], `${where}: Object.prototype polluted`).toEqual([undefined, undefined, undefined]);
    for (const [name, proto] of Object.entries(PROTOTYPES)) {
      expect(Reflect.ownKeys(proto).map(String).sort(), `${where}: ${name}.prototype changed`).toEqual(prototypeKeys[name]);
    }
  }

  /** `examples` run first, on top of the random cases. */
  const options = <T>(endpoint: Endpoint, kind: keyof typeof RUNS, examples: T[] = []) => ({
    seed: SEED,
    numRuns: Math.round(SCALE * Math.min(RUNS[kind], endpoint.runs ?? Infinity)),
    examples: examples.map((example): [T] => [example]),
  });
  const shapeKeys = (endpoint: Endpoint): string[] => {
    const schema = endpoint.query?.schema as { shape?: Record<string, unknown> } | undefined;
    return schema?.shape ? Object.keys(schema.shape) : [];
  };

  it("the snapshot sees every write (a row added, changed, deleted; pg-boss's jobs), but no update that changes nothing and no session's last_seen_at", async () => {
    const { db } = t.database;
    const exec = (text: string) => db.execute(sql.raw(text));
    const start = await snapshot();
    const changed = async (what: string) => {
      const now = await snapshot();
      expect(now, what).not.toEqual(start);
      await exec('delete from public.hostile_changes');
      await exec(`insert into public.hostile_changes select key, value::bigint from json_each_text('${JSON.stringify(start)}')`);
      expect(await snapshot()).toEqual(start);
    };
    await exec("update users set name = name where email = 'nobody@example.com'");
    await exec('update sessions set last_seen_at = now()');
    await exec('update users set name = name');
    expect(await snapshot(), 'no change').toEqual(start);
    await exec("update users set name = name || '!' where email = " + `'${ADMIN_EMAIL}'`);
    await changed('a row changed');
    await exec("update users set name = left(name, -1) where email = " + `'${ADMIN_EMAIL}'`);
    await changed('the row changed back');
    await exec("insert into pgboss.job (name, data) select name, '{}' from pgboss.queue limit 1");
    await changed("a job of pg-boss's added");
    await exec("delete from pgboss.job where data = '{}'::jsonb");
    await changed("a job of pg-boss's deleted");
    known = null;
  });

  it('has a row for every registered /api route, and no row for a route that is gone', () => {
    const key = (r: { method: string; url?: string; route?: string }) => `${r.method} ${r.url ?? r.route}`;
    // Fastify adds a HEAD route for each GET; it answers as the GET does.
    const registered = new Set(t.app.apiRoutes.filter((r) => r.method !== 'HEAD').map(key));
    const covered = new Set(ENDPOINTS.map(key));
    expect([...registered].filter((r) => !covered.has(r)), 'routes without a row').toEqual([]);
    expect([...covered].filter((r) => !registered.has(r)), 'rows without a route').toEqual([]);
    // A route that reads a body must say so: a new write route cannot slip past the body cases.
    for (const endpoint of ENDPOINTS) {
      if (!['GET', 'DELETE'].includes(endpoint.method)) expect(endpoint.body ?? endpoint.rawBody, `${key(endpoint)} needs a body row`).toBeDefined();
    }
  });

  describe.each(ENDPOINTS.map((endpoint) => [`${endpoint.method} ${endpoint.route}`, endpoint] as const))('%s', (_name, endpoint) => {
    it('accepts its valid sample (so the cases below reach past validation)', async () => {
      const { res } = await send(endpoint, {});
      if (endpoint.sampleRefused) expect(res.statusCode, `${endpoint.sampleRefused.why}: ${res.body.slice(0, 500)}`).toBe(endpoint.sampleRefused.status);
      else expect(res.statusCode, res.body.slice(0, 500)).toBeLessThan(300);
    });

    if (endpoint.rawBody) {
      const { sample } = endpoint.rawBody;
      const limit = endpoint.bodyLimit!;
      it(
        'body: any bytes, the wrong content type, oversize',
        async () => {
          await fc.assert(
            fc.asyncProperty(rawBodyCases(sample, limit), async (body) => {
              const { url, res, before } = await send(endpoint, { body });
              await checkAnswer(body.label, expectedForRawBody(body, limit), res, before, url);
            }),
            options(endpoint, 'body'),
          );
        },
        TIMEOUT_MS,
      );
    }

    if (endpoint.body) {
      const { contract, sample } = endpoint.body;
      it(
        'body: mutated, broken, oversize or not JSON',
        async () => {
          await fc.assert(
            fc.asyncProperty(bodyCases(sample, endpoint.bodyLimit), async (body) => {
              const { url, res, before } = await send(endpoint, { body });
              await checkAnswer(body.label, expectedForBody(body, contract, endpoint.bodyLimit), res, before, url);
            }),
            options(endpoint, 'body', unstorableTextBodies(sample)),
          );
        },
        TIMEOUT_MS,
      );
    }

    it(
      'query: wrong values, repeated, unknown and prototype keys, broken escapes',
      async () => {
        await fc.assert(
          fc.asyncProperty(queryCases(shapeKeys(endpoint)), async (query) => {
            const { url, res, before } = await send(endpoint, { search: query.search });
            await checkAnswer(query.label, expectedForQuery(query, endpoint.query ?? null), res, before, url);
          }),
          options(endpoint, endpoint.query ? 'query' : 'ignoredQuery', unstorableTextQueries(shapeKeys(endpoint))),
        );
      },
      TIMEOUT_MS,
    );

    if (endpoint.param) {
      const param = endpoint.param;
      it(
        `path: hostile ${param.name}s (not UUIDs, traversal, NUL, broken escapes, over-long)`,
        async () => {
          const real = await realParam(endpoint);
          await fc.assert(
            fc.asyncProperty(segmentCases(real), async (segment) => {
              const { url, res, before } = await send(endpoint, { segment: segment.segment });
              await checkAnswer(segment.label, expectedForSegment(segment, param.name, param.contract, url), res, before, url);
            }),
            options(endpoint, 'path', segmentExamples(real)),
          );
        },
        TIMEOUT_MS,
      );
    }
  });

  it('leaves every prototype as it was after all of the above', () => {
    expectNoPollution('after the whole run');
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});
