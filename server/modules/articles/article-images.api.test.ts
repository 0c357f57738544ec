import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLE_IMAGE_LIMITS } from '../../../contracts/article-images.ts';
import { memoryLogger } from '../../test/memory-logger.ts';
import { siteBuildDir } from '../../test/site-build.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { makePng, photo, pngChunk, pngHeader } from '../../../tests/fakes/sample-images.ts';
import { decodePixels } from '../chat/image-decode.ts';
import { createArticleImagesService } from './article-images.service.ts';

const article = {
  title: 'Illustrated automation',
  category: 'Automation',
  excerpt: 'An article with pictures in it.',
  content: `# Pictures\n\n${'A paragraph about automation. '.repeat(3)}`,
  published: true,
};
const PAYLOAD = '<script>alert(document.cookie)</script><html><body onload=alert(1)>';
const RIFF_WEBP = (bytes: Buffer) => bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP';

describe('article images', () => {
  let t: TestApp;
  let admin: string;
  let guest: string;
  beforeAll(async () => {
    t = await createTestApp({ clientDir: siteBuildDir(), env: { ADMIN_EMAILS: 'admin@example.com', SITE_NAME: 'Acme' } });
    admin = await t.signIn('admin@example.com', 'Admin');
    guest = await t.signIn('guest@example.com', 'Guest');
  });
  afterAll(async () => t.close());

  const upload = (bytes: Buffer, type: string, cookie: string | null = admin) =>
    t.request({ method: 'POST', url: `/api/articles/images?type=${encodeURIComponent(type)}`, payload: bytes, headers: { 'content-type': 'application/octet-stream' }, ...(cookie ? { cookie } : {}) });
  const fetchUrl = (url: string, headers: Record<string, string> = {}) => t.request({ url, headers });
  const sql = async <T>(text: string): Promise<T[]> => ((await t.database.db.execute(text)) as unknown as { rows: T[] }).rows;

  it('a PNG and a JPEG become WebP variants at the widths asked, capped at their own, served with a year of cache, an ETag and their type', async () => {
    const res = await upload(makePng(1200, 600), 'image/png');
    expect(res.statusCode).toBe(201);
    const image = res.json();
    expect(image).toMatchObject({ width: 1200, height: 600, markdownUrl: `/media/articles/${image.id}/720.webp#1200x600` });
    expect(image.urls.map((u: { width: number }) => u.width)).toEqual([480, 720, 960, 1200]);
    for (const { width, url } of image.urls as Array<{ width: number; url: string }>) {
      const served = await fetchUrl(url);
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('image/webp');
      expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      expect(served.headers.etag).toBe(`"${image.id}-${width}"`);
      expect(RIFF_WEBP(served.rawPayload)).toBe(true);
      // VP8 key frame: the 14-bit width at byte 26.
      expect(served.rawPayload.readUInt16LE(26) & 0x3fff).toBe(width);
      expect((await fetchUrl(url, { 'if-none-match': served.headers.etag as string })).statusCode).toBe(304);
    }
    const jpeg = await upload(photo('jpegBaseline'), 'image/jpeg');
    expect(jpeg.statusCode).toBe(201);
    expect(jpeg.json().urls).toEqual([{ width: 48, url: `/media/articles/${jpeg.json().id}/48.webp` }]);
    expect((await fetchUrl(jpeg.json().urls[0].url)).headers['content-type']).toBe('image/webp');
    // The same file again is the same image.
    expect((await upload(makePng(1200, 600), 'image/png')).json().id).toBe(image.id);
  });

  it('404 for an unknown image or width', async () => {
    const { id } = (await upload(photo('webp'), 'image/webp')).json();
    expect((await fetchUrl(`/media/articles/${id}/960.webp`)).statusCode).toBe(404);
    expect((await fetchUrl('/media/articles/00000000-0000-4000-8000-000000000000/48.webp')).statusCode).toBe(404);
  });

  it('a polyglot is accepted only re-encoded: the served bytes carry none of its payload', async () => {
    const jpegWithHtml = Buffer.concat([photo('jpegBaseline'), Buffer.from(PAYLOAD)]);
    const pngWithScript = makePng(64, 40, { before: [pngChunk('tEXt', Buffer.from(`Comment\0${PAYLOAD}`))] });
    for (const [type, bytes] of [['image/jpeg', jpegWithHtml], ['image/png', pngWithScript]] as const) {
      const res = await upload(bytes, type);
      expect(res.statusCode, type).toBe(201);
      for (const { url } of res.json().urls as Array<{ url: string }>) {
        const served = (await fetchUrl(url)).rawPayload;
        expect(RIFF_WEBP(served)).toBe(true);
        expect(served.toString('latin1')).not.toMatch(/<script|<html|onload/i);
      }
    }
  });

  it('refuses, with the field and the rule, a huge image before decoding it, a wrong declared type and a file that is no image', async () => {
    const huge = await upload(pngHeader(30_000, 30_000), 'image/png');
    expect(huge.statusCode).toBe(400);
    expect(huge.json().details).toEqual([{ path: 'data', message: expect.stringContaining('30000 x 30000 pixels; the largest accepted is') }]);
    const wrongType = await upload(makePng(10, 10), 'image/jpeg');
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().details).toEqual([{ path: 'contentType', message: expect.stringContaining('the file is a PNG image, not JPEG') }]);
    for (const bytes of [Buffer.from(PAYLOAD), Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>')]) {
      const notAnImage = await upload(bytes, 'image/png');
      expect(notAnImage.statusCode).toBe(400);
      expect(notAnImage.json().details[0]).toMatchObject({ path: 'data', message: expect.stringContaining('must be a JPEG, PNG or WebP image') });
    }
    const cut = makePng(64, 64);
    expect((await upload(cut.subarray(0, cut.length >> 1), 'image/png')).json().details[0].message).toMatch(/incomplete or damaged/);
    expect(await sql('select id from article_images where width = 30000')).toEqual([]);
  });

  it('413 over the size limit; signed out 401, not an admin 403', async () => {
    const tooBig = await upload(Buffer.alloc(ARTICLE_IMAGE_LIMITS.maxBytes + 1), 'image/png');
    expect(tooBig.statusCode).toBe(413);
    expect((await upload(photo('webp'), 'image/webp', null)).statusCode).toBe(401);
    expect((await upload(photo('webp'), 'image/webp', guest)).statusCode).toBe(403);
  });

  it('a cover needs alt text (at most 200 characters) and an uploaded image; the lists and the page show it', async () => {
    const cover = (await upload(makePng(800, 400), 'image/png')).json();
    const create = (body: object) => t.request({ method: 'POST', url: '/api/articles', payload: { ...article, ...body }, cookie: admin });
    const noAlt = await create({ coverImageId: cover.id });
    expect(noAlt.statusCode).toBe(400);
    expect(noAlt.json().details).toEqual([{ path: 'coverAlt', message: 'Cover alt text is required when a cover image is set' }]);
    expect((await create({ coverImageId: cover.id, coverAlt: 'x'.repeat(201) })).json().details).toEqual([{ path: 'coverAlt', message: 'Cover alt text must be at most 200 characters' }]);
    const unknown = await create({ coverImageId: '00000000-0000-4000-8000-000000000000', coverAlt: 'A chart' });
    expect(unknown.json().details).toEqual([{ path: 'coverImageId', message: 'Cover image must be an uploaded image' }]);
    const created = await create({ coverImageId: cover.id, coverAlt: 'A chart of invoices' });
    expect(created.statusCode).toBe(201);
    const at = (w: number) => `/media/articles/${cover.id}/${w}.webp`;
    const expected = { alt: 'A chart of invoices', src: at(800), srcSet: `${at(480)} 480w, ${at(720)} 720w, ${at(800)} 800w`, sizes: '(min-width: 768px) 720px, calc(100vw - 2rem)', fetchPriority: 'high', width: 800, height: 400 };
    expect(created.json()).toMatchObject({ coverImageId: cover.id, coverAlt: 'A chart of invoices', cover: expected });
    const listed = (await t.request({ url: '/api/articles' })).json().find((a: { id: string }) => a.id === created.json().id);
    const { fetchPriority: _first, ...onCards } = expected;
    expect(listed.cover).toEqual({ ...onCards, sizes: '(min-width: 1024px) 400px, (min-width: 640px) 50vw, 100vw', loading: 'lazy' });
    expect((await t.request({ url: `/api/articles/${created.json().slug}` })).json().cover).toEqual(expected);
    // Clearing the alt text of a kept cover is refused and changes nothing; removing the cover is fine.
    const patch = (body: object) => t.request({ method: 'PATCH', url: `/api/articles/${created.json().id}`, payload: body, cookie: admin });
    const cleared = await patch({ coverAlt: '' });
    expect(cleared.statusCode).toBe(400);
    expect(cleared.json().details).toEqual([{ path: 'coverAlt', message: 'Cover alt text is required when a cover image is set' }]);
    expect((await t.request({ url: `/api/articles/${created.json().slug}` })).json().cover).toEqual(expected);
    expect((await patch({ coverImageId: null, coverAlt: null })).json()).toMatchObject({ coverImageId: null, coverAlt: null, cover: null });
    expect((await t.request({ url: `/api/articles/${created.json().slug}` })).json().cover).toBeNull();
  });

  it('a revision keeps the cover: restoring one puts its cover and alt text back', async () => {
    const [first, second] = [(await upload(makePng(41, 20), 'image/png')).json(), (await upload(makePng(42, 20), 'image/png')).json()];
    const created = (await t.request({ method: 'POST', url: '/api/articles', payload: { ...article, title: 'Revised cover', coverImageId: first.id, coverAlt: 'First' }, cookie: admin })).json();
    await t.request({ method: 'PATCH', url: `/api/articles/${created.id}`, payload: { coverImageId: second.id, coverAlt: 'Second' }, cookie: admin });
    const { revisions } = (await t.request({ url: `/api/admin/articles/${created.id}/revisions`, cookie: admin })).json();
    expect(revisions).toHaveLength(2);
    const oldest = revisions[revisions.length - 1];
    const restored = await t.request({ method: 'POST', url: `/api/articles/${created.id}/revisions/${oldest.id}/restore`, cookie: admin, payload: {} });
    expect(restored.json()).toMatchObject({ coverImageId: first.id, coverAlt: 'First', cover: { alt: 'First', width: 41 } });
  });

  it("the pages' data carries the cover's <img> (the article's fetched first, the cards' lazily, every width); the social card and JSON-LD use its JPEG", async () => {
    const cover = (await upload(makePng(1000, 500), 'image/png')).json();
    const created = (
      await t.request({ method: 'POST', url: '/api/articles', payload: { ...article, title: 'Covered and shared', coverImageId: cover.id, coverAlt: 'Invoices <on> a "desk"' }, cookie: admin })
    ).json();
    const srcset = [480, 720, 960, 1000].map((w) => `/media/articles/${cover.id}/${w}.webp ${w}w`).join(', ');
    const page = (await t.request({ url: `/insights/${created.slug}` })).body;
    // The page's data (what the server renders and the browser hydrates) carries the <img> attributes.
    const siteData = (html: string) => JSON.parse(/<script type="application\/json" id="site-page">(.*?)<\/script>/.exec(html)![1]!);
    expect(siteData(page).article.cover).toEqual({ alt: 'Invoices <on> a "desk"', src: `/media/articles/${cover.id}/1000.webp`, srcSet: srcset, sizes: '(min-width: 768px) 720px, calc(100vw - 2rem)', width: 1000, height: 500, fetchPriority: 'high' });
    const ogImage = /<meta property="og:image" content="([^"]+)"/.exec(page)![1]!;
    expect(ogImage).toBe(`${t.config.publicUrl}/media/articles/${cover.id}/1000.jpg`);
    expect(page).toContain('<meta property="og:image:type" content="image/jpeg"');
    const jsonLd = JSON.parse(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(page)![1]!);
    expect(jsonLd.image).toEqual([ogImage]);
    const jpeg = await fetchUrl(new URL(ogImage).pathname);
    expect(jpeg.headers['content-type']).toBe('image/jpeg');
    expect([...jpeg.rawPayload.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const card = siteData((await t.request({ url: '/insights' })).body).list.items.find((item: { id: string }) => item.id === created.id);
    expect(card.cover).toMatchObject({ srcSet: srcset, loading: 'lazy', width: 1000, height: 500 });
  });

  it("lays a transparent image's link-preview JPEG on white (JPEG has no transparency), and keeps the page's WebP transparent", async () => {
    const clear = (await upload(makePng(64, 32, { colors: 'clear' }), 'image/png')).json();
    const jpeg = await decodePixels('image/jpeg', (await fetchUrl(`/media/articles/${clear.id}/64.jpg`)).rawPayload);
    // Every pixel white, within JPEG's rounding (black before: the encoder dropped the alpha).
    expect(Math.min(...jpeg.data)).toBeGreaterThanOrEqual(250);
    const webp = await decodePixels('image/webp', (await fetchUrl(`/media/articles/${clear.id}/64.webp`)).rawPayload);
    expect(Math.max(...webp.data.filter((_, i) => i % 4 === 3))).toBe(0);
  });

  it('cleanup deletes only images no article uses (cover, content, kept revision) past the grace period, and logs the count', async () => {
    const make = async (w: number) => (await upload(makePng(w, 20), 'image/png')).json() as { id: string; markdownUrl: string };
    const [asCover, inContent, inOldRevision, unused, recent] = await Promise.all([make(31), make(32), make(33), make(34), make(35)]);
    const create = (body: object) => t.request({ method: 'POST', url: '/api/articles', payload: { ...article, published: false, ...body }, cookie: admin });
    await create({ title: 'Has a cover', coverImageId: asCover.id, coverAlt: 'Cover' });
    await create({ title: 'Has a picture', content: `${article.content}\n\n![A picture](${inContent.markdownUrl})` });
    const revised = (await create({ title: 'Had a picture', content: `${article.content}\n\n![Old](${inOldRevision.markdownUrl})` })).json();
    await t.request({ method: 'PATCH', url: `/api/articles/${revised.id}`, payload: { content: `${article.content} Without it now.` }, cookie: admin });
    const old = [asCover, inContent, inOldRevision, unused].map((i) => `'${i.id}'`).join(',');
    await t.database.db.execute(`update article_images set created_at = now() - interval '25 hours' where id in (${old})`);
    const { logger, lines } = memoryLogger();
    const purged = await createArticleImagesService({ db: t.database.db, logger }).purgeUnused();
    const left = new Set((await sql<{ id: string }>('select id from article_images')).map((r) => r.id));
    expect(left.has(unused.id)).toBe(false);
    for (const kept of [asCover, inContent, inOldRevision, recent]) expect(left.has(kept.id)).toBe(true);
    expect(purged).toBe(1);
    expect(lines.some((line) => line.msg === 'deleted article images no article uses' && line.count === purged)).toBe(true);
    expect((await fetchUrl(`/media/articles/${unused.id}/34.webp`)).statusCode).toBe(404);
  });
});
