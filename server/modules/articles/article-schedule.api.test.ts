import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISH_QUEUE } from '../runtime/job-queue.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';

/** Rows of a raw query, on either database (both drivers answer `{ rows }`). */
async function rowsOf<T>(t: TestApp, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await t.database.db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** Drafts, scheduling and preview links (issue 34 item 2, docs/decisions/0098). */
const text = {
  category: 'Automation',
  excerpt: 'What the scheduled article is about.',
  content: `# Scheduled\n\n${'A paragraph written ahead of its day. '.repeat(3)}`,
};
let n = 0;
const titled = () => `Scheduled article number ${++n}`;

describe('drafts and scheduled articles', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.signIn('admin@example.com');
  });
  afterAll(async () => t.close());

  const create = (body: object) => t.request({ method: 'POST', url: '/api/articles', payload: { title: titled(), ...text, ...body }, cookie: admin });
  const patch = (id: string, body: object) => t.request({ method: 'PATCH', url: `/api/articles/${id}`, payload: body, cookie: admin });
  const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();
  /** Where a reader can meet an article: the list (/insights and the landing read it), its page, RSS and the sitemap. */
  async function publicly(slug: string) {
    const [list, page, api, rss, sitemap] = await Promise.all([
      t.request({ url: '/api/articles' }),
      t.request({ url: `/insights/${slug}` }),
      t.request({ url: `/api/articles/${slug}` }),
      t.request({ url: '/rss.xml' }),
      t.request({ url: '/sitemap.xml' }),
    ]);
    return {
      list: (list.json() as Array<{ slug: string }>).filter((a) => a.slug === slug).length,
      page: page.statusCode,
      api: api.statusCode,
      rss: rss.body.split(`/insights/${slug}</link>`).length - 1,
      sitemap: sitemap.body.split(`/insights/${slug}</loc>`).length - 1,
    };
  }
  const hidden = { list: 0, page: 404, api: 404, rss: 0, sitemap: 0 };
  const shown = { list: 1, page: 200, api: 200, rss: 1, sitemap: 1 };
  const jobStates = async (articleId: string) =>
    (await rowsOf<{ state: string }>(t, sql`select state from pgboss.job where name = ${PUBLISH_QUEUE} and singleton_key = ${articleId} order by created_on`)).map(
      (row) => row.state,
    );

  it('a new article is a draft; published true publishes it now, false takes it out everywhere', async () => {
    const draft = (await create({})).json();
    expect(draft).toMatchObject({ status: 'draft', published: false, publishAt: null });
    expect(await publicly(draft.slug)).toEqual(hidden);

    const published = (await patch(draft.id, { published: true })).json();
    expect(published).toMatchObject({ status: 'published', published: true, publishAt: null });
    expect(Date.parse(published.publishedAt)).toBeGreaterThan(Date.parse(draft.createdAt));
    expect(await publicly(draft.slug)).toEqual(shown);

    const unpublished = (await patch(draft.id, { published: false })).json();
    expect(unpublished).toMatchObject({ status: 'draft', published: false });
    expect(await publicly(draft.slug)).toEqual(hidden);
    // Published again, it keeps the date it first went public.
    expect((await patch(draft.id, { published: true })).json().publishedAt).toBe(published.publishedAt);
  });

  it('refuses a publish time that is past, malformed, too far or sent with published true, and changes nothing', async () => {
    const draft = (await create({})).json();
    const cases: Array<[object, string]> = [
      [{ publishAt: new Date(Date.now() - 60_000).toISOString() }, 'Publish time must be in the future'],
      [{ publishAt: 'tomorrow at nine' }, 'Publish time must be a date and time with its offset (ISO 8601)'],
      [{ publishAt: '2099-01-01T09:00' }, 'Publish time must be a date and time with its offset (ISO 8601)'],
      [{ publishAt: inFuture(3661 * 86_400_000) }, 'Publish time must be within 3660 days'],
      [{ publishAt: inFuture(3_600_000), published: true }, 'Choose to publish now or at a time, not both'],
    ];
    for (const [body, message] of cases) {
      const res = await patch(draft.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details).toContainEqual({ path: 'publishAt', message });
      const created = await create(body);
      expect(created.statusCode).toBe(400);
    }
    const saved = (await t.request({ url: `/api/admin/articles/${draft.id}`, cookie: admin })).json();
    expect(saved).toMatchObject({ status: 'draft', publishAt: null, updatedAt: draft.updatedAt });
  });

  it('a scheduled article stays out of the lists, page, RSS and sitemap until its time, then appears in all of them once', async () => {
    const publishAt = inFuture(1500);
    const scheduled = (await create({ publishAt })).json();
    expect(scheduled).toMatchObject({ status: 'scheduled', published: false, publishAt });
    expect(await publicly(scheduled.slug)).toEqual(hidden);
    expect(await jobStates(scheduled.id)).toEqual(['created']);

    await until(() => publicly(scheduled.slug), (seen) => seen.list === 1, 15_000);
    expect(await publicly(scheduled.slug)).toEqual(shown);
    const article = (await t.request({ url: `/api/admin/articles/${scheduled.id}`, cookie: admin })).json();
    // Its public date is the time it was scheduled for.
    expect(article).toMatchObject({ status: 'published', published: true, publishAt: null, publishedAt: publishAt });
    expect(await until(() => jobStates(scheduled.id), (states) => states[0] === 'completed')).toEqual(['completed']);
  });

  it('moving the time moves its one job; making it a draft, publishing it now or deleting it cancels the job', async () => {
    const scheduled = (await create({ publishAt: inFuture(3_600_000) })).json();
    const later = inFuture(7_200_000);
    expect((await patch(scheduled.id, { publishAt: later })).json()).toMatchObject({ status: 'scheduled', publishAt: later });
    expect(await jobStates(scheduled.id)).toEqual(['created']);
    const [job] = await rowsOf<{ start_after: Date }>(t, sql`select start_after from pgboss.job where name = ${PUBLISH_QUEUE} and singleton_key = ${scheduled.id}`);
    expect(new Date(job!.start_after).toISOString()).toBe(later);

    expect((await patch(scheduled.id, { publishAt: null })).json()).toMatchObject({ status: 'draft', publishAt: null });
    expect(await jobStates(scheduled.id)).toEqual(['cancelled']);

    await patch(scheduled.id, { publishAt: later });
    expect((await patch(scheduled.id, { published: true })).json()).toMatchObject({ status: 'published', publishAt: null });
    expect(await jobStates(scheduled.id)).toEqual(['cancelled', 'cancelled']);

    const other = (await create({ publishAt: later })).json();
    expect((await t.request({ method: 'DELETE', url: `/api/articles/${other.id}`, cookie: admin })).statusCode).toBe(204);
    expect(await jobStates(other.id)).toEqual(['cancelled']);
  });

  it('schedules weeks ahead without a timer Node cannot keep (it would fire at once, with a warning)', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const far = (await create({ publishAt: inFuture(40 * 86_400_000) })).json();
      await new Promise((resolve) => setImmediate(resolve));
      expect(far.status).toBe('scheduled');
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('scheduling a published article takes it off the site until its time; an edit of its text leaves the schedule', async () => {
    const live = (await create({ published: true })).json();
    const publishAt = inFuture(3_600_000);
    expect((await patch(live.id, { published: false, publishAt })).json()).toMatchObject({ status: 'scheduled', publishAt });
    expect(await publicly(live.slug)).toEqual(hidden);
    expect((await patch(live.id, { title: 'A new title for the scheduled one' })).json()).toMatchObject({ status: 'scheduled', publishAt });
    expect(await jobStates(live.id)).toEqual(['created']);
  });
});

describe('preview links', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { PREVIEW_LINK_TTL_HOURS: '2' } });
    admin = await t.signIn('admin@example.com');
  });
  afterAll(async () => t.close());

  const draft = async () =>
    (await t.request({ method: 'POST', url: '/api/articles', payload: { title: titled(), ...text, content: `${text.content}\n\nDraft body <b>kept</b>.` }, cookie: admin })).json() as {
      id: string;
      slug: string;
    };
  const share = (id: string) => t.request({ method: 'POST', url: `/api/admin/articles/${id}/preview-links`, cookie: admin });
  const tokenOf = (url: string) => url.split('/preview/')[1]!;
  const read = (token: string, cookie?: string) => t.request({ url: `/api/preview/${token}`, ...(cookie ? { cookie } : {}) });

  it('opens a draft for a signed-out reader, kept from caches and search engines; the page has the same headers', async () => {
    const article = await draft();
    const created = await share(article.id);
    expect(created.statusCode).toBe(201);
    const link = created.json();
    expect(link.url).toMatch(/^http:\/\/localhost:3000\/preview\/[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(link.expiresAt) - Date.parse(link.createdAt)).toBe(2 * 3_600_000);
    // Only the token's SHA-256 is kept.
    const stored = (await rowsOf<{ token_hash: string }>(t, sql`select token_hash from article_preview_links where id = ${link.id}`))[0]!;
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(tokenOf(link.url));

    const res = await read(tokenOf(link.url));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ slug: article.slug, status: 'draft', publishAt: null, content: expect.stringContaining('Draft body') });
    expect(res.json()).not.toHaveProperty('authorId');
    expect(res.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const page = await t.request({ url: new URL(link.url).pathname });
    expect(page.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(page.headers['cache-control']).toBe('no-store');
    // The draft itself stays out of the public list.
    expect((await t.request({ url: `/api/articles/${article.slug}` })).statusCode).toBe(404);
  });

  it('lists the working links with who made them; a revoked one answers 404 with a plain message at once', async () => {
    const article = await draft();
    const first = (await share(article.id)).json();
    const second = (await share(article.id)).json();
    const list = (await t.request({ url: `/api/admin/articles/${article.id}/preview-links`, cookie: admin })).json();
    expect(list.links.map((l: { id: string }) => l.id)).toEqual([second.id, first.id]);
    expect(list.links[0]).toMatchObject({ createdBy: { name: 'admin' } });
    expect(list.links[0]).not.toHaveProperty('url');

    expect((await t.request({ method: 'DELETE', url: `/api/admin/articles/${article.id}/preview-links/${first.id}`, cookie: admin })).statusCode).toBe(204);
    const gone = await read(tokenOf(first.url));
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('This preview link has expired or was revoked. Ask for a new one.');
    expect(gone.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect((await read(tokenOf(second.url))).statusCode).toBe(200);
    expect((await t.request({ url: `/api/admin/articles/${article.id}/preview-links`, cookie: admin })).json().links).toHaveLength(1);
    // Revoking again, or another article's link, is not found.
    expect((await t.request({ method: 'DELETE', url: `/api/admin/articles/${article.id}/preview-links/${first.id}`, cookie: admin })).statusCode).toBe(404);
    const other = await draft();
    expect((await t.request({ method: 'DELETE', url: `/api/admin/articles/${other.id}/preview-links/${second.id}`, cookie: admin })).statusCode).toBe(404);
  });

  it('expires after PREVIEW_LINK_TTL_HOURS; an unknown token is the same 404, a malformed one a 400 naming the rule', async () => {
    const article = await draft();
    const link = (await share(article.id)).json();
    t.advanceTime(2 * 3_600_000 - 60_000);
    expect((await read(tokenOf(link.url))).statusCode).toBe(200);
    t.advanceTime(60_000);
    const expired = await read(tokenOf(link.url));
    expect(expired.statusCode).toBe(404);
    expect(expired.json().message).toBe('This preview link has expired or was revoked. Ask for a new one.');
    expect((await t.request({ url: `/api/admin/articles/${article.id}/preview-links`, cookie: admin })).json().links).toEqual([]);
    const unknown = await read('A'.repeat(43));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('This preview link has expired or was revoked. Ask for a new one.');
    for (const token of ['short', '%3Cscript%3E']) {
      const res = await read(token);
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([{ path: 'token', message: 'Preview token must be 43 base64url characters' }]);
    }
  });

  it('is refused for a published article, and shows a scheduled one with its time', async () => {
    const published = (await t.request({ method: 'POST', url: '/api/articles', payload: { title: titled(), ...text, published: true }, cookie: admin })).json();
    const refused = await share(published.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe('This article is published: share its address instead of a preview link');
    const publishAt = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = (await t.request({ method: 'POST', url: '/api/articles', payload: { title: titled(), ...text, publishAt }, cookie: admin })).json();
    const link = (await share(scheduled.id)).json();
    expect((await read(tokenOf(link.url))).json()).toMatchObject({ status: 'scheduled', publishAt });
    expect((await share('00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
  });
});
