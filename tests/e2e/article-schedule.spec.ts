import { randomUUID } from 'node:crypto';
import type { TArticle } from '../../contracts/articles.ts';
import { expect, expectFitsViewport, gotoPublicPage, PHONE_VIEWPORT, test, toasts } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 34 item 2 (docs/decisions/0098): an admin schedules an article in their time zone and
// sees it appear on the site at its time; shares a draft by a preview link that a signed-out
// reader opens, then revokes it.

// A zone that is not the server's, so a time read in the wrong zone is nine hours off.
test.use({ timezoneId: 'Asia/Tokyo' });

const TEXT = { category: 'Automation', excerpt: 'An article that waits for its time.', content: `# Scheduled\n\n${'A paragraph written ahead of its day. '.repeat(3)}` };

/** The wall clock in Tokyo (UTC+9, no daylight saving) `ms` from now, as a datetime-local field holds it. */
const tokyoWallTime = (ms: number) => new Date(Date.now() + ms + 9 * 3_600_000).toISOString().slice(0, 16);

test('an admin schedules an article in their zone and it appears on the site at its time', async ({ page, login, admin, baseURL }, testInfo) => {
  await login(page, admin);
  const headers = { origin: new URL(baseURL!).origin };
  const title = `Scheduled journey ${randomUUID().slice(0, 6)}`;
  await page.goto('/create-article');
  await page.getByLabel('Title', { exact: true }).fill(title);
  await page.getByLabel('Category').fill(TEXT.category);
  await page.getByLabel('Excerpt').fill(TEXT.excerpt);
  await page.getByLabel('Content', { exact: true }).fill(TEXT.content);
  const when = page.getByLabel('Schedule for (Asia/Tokyo)');
  // A couple of minutes ahead on Tokyo's clock: the form takes it as that instant.
  const wall = tokyoWallTime(2 * 60_000);
  await when.fill(wall);
  await expect(when).toHaveAccessibleDescription(`Appears on the website on ${new Date(`${wall}:00+09:00`).toLocaleString('en-US', { timeZone: 'Asia/Tokyo', month: 'short', day: 'numeric', year: 'numeric' })} ${wall.slice(11)} GMT+9.`);
  await expectNoSeriousViolations(page, testInfo, 'the publishing section', 'form');
  const created = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/articles' && res.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create Article' }).click();
  const article = (await (await created).json()) as TArticle;
  try {
    expect(article).toMatchObject({ status: 'scheduled', publishAt: new Date(`${wall}:00+09:00`).toISOString() });
    await expect(toasts(page).getByText('Article created successfully')).toBeVisible();

    await page.goto('/admin/articles');
    await expect(page.getByRole('table', { name: 'All articles' }).getByRole('row', { name: new RegExp(title) })).toContainText(`Scheduled for`);
    await gotoPublicPage(page, '/insights');
    await expect(page.getByRole('main').getByText(title)).toHaveCount(0);

    // Time is driven by moving the schedule close, not by waiting out the minutes.
    const soon = await page.request.patch(`/api/articles/${article.id}`, { headers, data: { publishAt: new Date(Date.now() + 3_000).toISOString() } });
    expect(soon.status()).toBe(200);
    await expect
      .poll(
        async () => {
          await gotoPublicPage(page, '/insights');
          return page.getByRole('main').getByRole('link', { name: new RegExp(title) }).count();
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThan(0);
    await gotoPublicPage(page, '/');
    await expect(page.getByRole('region', { name: 'Latest Insights' }).getByText(title)).toBeVisible();
    expect(await (await page.request.get('/rss.xml')).text()).toContain(`/insights/${article.slug}</link>`);
  } finally {
    await page.request.delete(`/api/articles/${article.id}`, { headers });
  }
});

test('an admin shares a draft by a preview link, a signed-out reader opens it, and a revoked link stops at once', async ({ page, login, admin, baseURL, openPage }, testInfo) => {
  await login(page, admin);
  const headers = { origin: new URL(baseURL!).origin };
  const title = `Preview journey ${randomUUID().slice(0, 6)}`;
  const created = await page.request.post('/api/articles', { headers, data: { title, ...TEXT } });
  expect(created.status()).toBe(201);
  const article = (await created.json()) as TArticle;
  try {
    await page.goto(`/admin/articles/${article.id}/edit`);
    const section = page.getByRole('region', { name: 'Share a preview link' });
    await section.getByRole('button', { name: 'Create a preview link' }).click();
    const linkBox = section.getByRole('textbox', { name: 'New preview link (shown this once)' });
    await expect(linkBox).toHaveValue(/\/preview\/[A-Za-z0-9_-]{43}$/);
    const url = await linkBox.inputValue();
    await expect(section.getByRole('list', { name: 'Working preview links' }).getByRole('listitem')).toHaveCount(1);
    await expectNoSeriousViolations(page, testInfo, 'share a preview link', 'section');
    const desktop = page.viewportSize()!;
    await page.setViewportSize(PHONE_VIEWPORT);
    await expectFitsViewport(page, 'the editor with its preview links, on a phone');
    await page.setViewportSize(desktop);

    const reader = await openPage();
    const opened = await reader.goto(url);
    expect(opened?.headers()['x-robots-tag']).toBe('noindex, nofollow');
    expect(opened?.headers()['cache-control']).toBe('no-store');
    await expect(reader.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(reader.getByRole('complementary', { name: 'Preview' })).toContainText('Preview: this article is not published yet');
    expect(await reader.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex, nofollow');
    await expectNoSeriousViolations(reader, testInfo, 'a preview opened signed out');
    // The draft itself is not public.
    expect((await reader.request.get(`/api/articles/${article.slug}`)).status()).toBe(404);

    await section.getByRole('button', { name: /^Revoke the preview link made / }).click();
    await expect(toasts(page).getByText('Preview link revoked')).toBeVisible();
    await expect(section.getByText('No preview link works now.')).toBeVisible();
    await reader.goto(url);
    await expect(reader.getByRole('heading', { name: 'Preview link not working' })).toBeVisible();
    await expect(reader.getByText('This preview link has expired or was revoked. Ask for a new one.')).toBeVisible();
  } finally {
    await page.request.delete(`/api/articles/${article.id}`, { headers });
  }
});
