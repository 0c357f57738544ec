import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { expect, test, toasts } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 3: an admin writes, publishes, edits and removes an article from the browser; visitors
// read it on the landing page, at /insights and on its own page; nothing unpublished leaks.

const CONTENT = `## Why automate invoices

Manual entry costs **hours** every week. A pipeline:

1. captures the PDF,
2. extracts the fields,
3. posts them to the ledger.

| Step | Before | After |
| --- | --- | --- |
| Entry | 10 min | 0 min |

See [our method](https://example.com/method).
`;

async function fillArticleForm(page: Page, fields: { title: string; category: string; excerpt: string; content: string }) {
  await page.getByLabel('Title', { exact: true }).fill(fields.title);
  await page.getByLabel('Category').fill(fields.category);
  await page.getByLabel('Excerpt').fill(fields.excerpt);
  await page.getByLabel('Content').fill(fields.content);
}

/** Waits for a list of articles to have loaded (a card, or the empty message), so that an
 * article missing from it is missing indeed, not merely not loaded yet. */
async function articlesLoaded(scope: Locator): Promise<void> {
  await expect(scope.locator('li h2, li h3').first().or(scope.getByText('No articles published yet.'))).toBeVisible();
}

/** What the server-rendered article's journey reads in the page (tests have no DOM types). */
type ArticleWindow = {
  fromServer?: unknown[];
  document: { readyState: string; addEventListener(type: 'readystatechange', listener: () => void): void; querySelector(selector: string): unknown; contains(node: unknown): boolean };
};

/** The admin list's row for an article. */
const row = (page: Page, title: string) => page.getByRole('row').filter({ hasText: title });

test.describe('articles', () => {
  test('an admin creates a draft, publishes, edits and deletes it; visitors see only the published article', async ({ page, login, admin, openPage }) => {
    const title = `Invoice automation ${randomUUID().slice(0, 6)}`;
    await login(page, admin);

    // Validation on submit with SPEC's messages, then a valid draft.
    await page.goto('/create-article');
    await page.getByRole('button', { name: 'Create Article' }).click();
    await expect(page.getByText('Title must be at least 5 characters')).toBeVisible();
    await expect(page.getByText('Excerpt must be at least 10 characters')).toBeVisible();
    await expect(page.getByText('Content must be at least 50 characters')).toBeVisible();
    await expect(page.getByText('Category is required')).toBeVisible();
    await expect(page.getByLabel('Read Time')).toHaveValue('5 min read');
    await expect(page.getByText('Make this article visible on the website')).toBeVisible();
    await fillArticleForm(page, { title, category: 'Automation', excerpt: 'How a finance team stopped retyping invoices.', content: CONTENT });
    await page.getByRole('button', { name: 'Create Article' }).click();
    await expect(toasts(page).getByText('Success!')).toBeVisible();
    await expect(toasts(page).getByText('Article created successfully')).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);

    // A draft is not on the landing page, for a visitor in a separate browser.
    const visitor = await openPage();
    await visitor.goto('/');
    await expect(visitor.getByRole('heading', { name: 'Latest Insights' })).toBeVisible();
    await articlesLoaded(visitor.locator('#insights'));
    await expect(visitor.getByText(title)).toHaveCount(0);

    // Publish from the admin list.
    await page.goto('/admin/articles');
    await expect(row(page, title).getByText('Draft')).toBeVisible();
    await row(page, title).getByRole('button', { name: 'Publish' }).click();
    await expect(row(page, title).getByText('Published')).toBeVisible();

    // Visitors find it in Insights and read it on its own page, Markdown rendered.
    await visitor.goto('/');
    await visitor.getByRole('link', { name: title }).first().click();
    await expect(visitor).toHaveURL(/\/insights\/invoice-automation-/);
    await expect(visitor.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(visitor.getByRole('heading', { name: 'Why automate invoices' })).toBeVisible();
    await expect(visitor.getByRole('table')).toBeVisible();
    await expect(visitor.getByRole('link', { name: 'our method' })).toHaveAttribute('rel', /noopener/);
    await visitor.goto('/insights');
    await expect(visitor.getByRole('link', { name: title })).toBeVisible();

    // Edit with the same form.
    await page.goto('/admin/articles');
    await row(page, title).getByRole('link', { name: 'Edit' }).or(row(page, title).getByRole('button', { name: 'Edit' })).click();
    await expect(page.getByLabel('Title', { exact: true })).toHaveValue(title);
    await page.getByLabel('Title', { exact: true }).fill(`${title} (updated)`);
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(toasts(page).getByText('Article updated successfully')).toBeVisible();
    await page.goto('/admin/articles');
    await expect(row(page, `${title} (updated)`)).toBeVisible();

    // Delete, with a confirmation.
    await row(page, `${title} (updated)`).getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('alertdialog').or(page.getByRole('dialog'));
    await expect(confirm).toContainText('Delete this article?');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect(row(page, `${title} (updated)`)).toHaveCount(0);
    await visitor.goto('/insights');
    await articlesLoaded(visitor.getByRole('main'));
    await expect(visitor.getByText(title)).toHaveCount(0);
    await visitor.close();
  });

  test('a guest opening /create-article sees the denial', async ({ page, login, guest }) => {
    await login(page, guest);
    await page.goto('/create-article');
    await expect(page.getByText('Access denied. Only administrators can create articles.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Create Article' })).toHaveCount(0);
  });

  test('an unknown article says so, with status 404 and the way back to /insights; no hint for developers', async ({ page }) => {
    const res = await page.goto('/insights/no-such-article');
    expect(res?.status()).toBe(404);
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { level: 1, name: 'Article not found' })).toBeVisible();
    await expect(page).toHaveTitle(/^Article not found · /);
    await expect(page.getByText('Did you forget to add the page to the router?')).toHaveCount(0);
    await expect(page.getByRole('heading', { name: '404 Page Not Found' })).toHaveCount(0);
    await main.getByRole('link', { name: 'See all insights' }).click();
    await expect(page).toHaveURL(/\/insights$/);
    await expect(page.getByRole('heading', { level: 1, name: /Insights/ })).toBeVisible();
  });

  test('hostile Markdown runs no script and leaves no dangerous link', async ({ page, login, admin, baseURL }) => {
    await login(page, admin);
    // Every payload reports to a binding the test installs: one that ran is recorded whatever it
    // did next (a javascript: URL that returns a string replaces the document and its globals).
    const ran: string[] = [];
    await page.exposeBinding('__xss', (_source, what: string) => void ran.push(what));
    const hostile = [
      '<script>__xss("script")</script>',
      '<img src="x" onerror="__xss(\'img\')">',
      '<svg onload="__xss(\'svg\')"></svg>',
      '[click me](javascript:__xss(%22link%22))',
      '[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
      '<a href="javascript:__xss(\'raw\')">raw link</a>',
      '![img](javascript:__xss(%22img-src%22))',
      'Some ordinary text so the article is long enough to publish.',
    ].join('\n\n');
    const res = await page.request.post('/api/articles', {
      headers: { origin: new URL(baseURL!).origin },
      data: { title: `Hostile ${randomUUID().slice(0, 6)}`, category: 'Security', excerpt: '<b onmouseover=alert(1)>bold</b> excerpt', content: hostile, published: true },
    });
    expect(res.status()).toBe(201);
    const { slug } = (await res.json()) as { slug: string };

    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`/insights/${slug}`);
    const article = page.locator('main');
    await expect(article.getByText('Some ordinary text so the article is long enough to publish.')).toBeVisible();
    // Really click each hostile link's text (whatever the sanitizer left of it): a link that kept
    // its script would run it, which the binding, or the page's CSP check (the fixture fails on
    // any violation), reports.
    for (const text of ['click me', 'data link', 'raw link']) {
      const target = article.getByText(text).last();
      await expect(target, `"${text}" is on the page`).toBeVisible();
      await target.click();
      await expect(page, `clicking "${text}" went nowhere`).toHaveURL(new RegExp(`/insights/${slug}$`));
    }
    expect(ran, 'payloads that ran').toEqual([]);
    expect(dialogs).toEqual([]);
    await expect(page.locator('main script')).toHaveCount(0);
    await expect(page.locator('main [onerror], main [onload], main [onmouseover], main [onclick]')).toHaveCount(0);
    await expect(
      page.locator('main a[href^="javascript:" i], main a[href^="data:" i], main a[href^="vbscript:" i], main img[src^="javascript:" i], main img[src^="data:" i]'),
    ).toHaveCount(0);
  });

  test("an article's page is rendered by the server: read without JavaScript, hydrated in place without the Markdown renderer, axe-clean", async ({
    login,
    admin,
    baseURL,
    openPage,
  }, testInfo) => {
    test.slow(); // three browser contexts and axe
    const title = `Server rendered article ${randomUUID().slice(0, 6)}`;
    const author = await openPage();
    await login(author, admin);
    const created = await author.request.post('/api/articles', {
      headers: { origin: new URL(baseURL!).origin },
      data: { title, category: 'Automation', excerpt: 'Readable before any script runs.', content: CONTENT, readTime: '4 min read', published: true },
    });
    expect(created.status()).toBe(201);
    const { slug, createdAt } = (await created.json()) as { slug: string; createdAt: string };

    // The HTML alone: the article, its Markdown rendered, its date on UTC's calendar (the server knows
    // no reader's zone), in the one format of every date: SPEC's 'MMM d, yyyy' (docs/decisions/0066).
    const noScript = await openPage({ javaScriptEnabled: false });
    const res = await noScript.goto(`/insights/${slug}`);
    expect(res?.status()).toBe(200);
    await expect(noScript).toHaveTitle(new RegExp(`^${title} · `));
    const article = noScript.getByRole('article');
    await expect(article.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(article.getByRole('heading', { name: 'Why automate invoices' })).toBeVisible();
    await expect(article.getByRole('table')).toBeVisible();
    await expect(article.getByRole('link', { name: 'our method' })).toHaveAttribute('rel', /noopener/);
    const shownDate = new Date(createdAt).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' }); // the e2e browser is on UTC
    await expect(article.locator('time')).toHaveText(shownDate);
    const html = await res!.text();
    expect(html, 'the page loads no Markdown renderer up front').not.toMatch(/assets\/markdown-/);

    // With JavaScript: the nodes the server sent are the ones hydrated (a mismatch would make React
    // replace them, and report an error, which fails the test); the article's body is adopted as
    // the server rendered it, so the Markdown renderer is never fetched.
    const visitor = await openPage();
    const errors: string[] = [];
    visitor.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    const scripts: string[] = [];
    visitor.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });
    await visitor.addInitScript(() => {
      const win = globalThis as unknown as ArticleWindow;
      // Parsed, before any module script runs.
      win.document.addEventListener('readystatechange', () => {
        if (win.document.readyState === 'interactive') win.fromServer = ['article h1', 'article h2', 'article table'].map((s) => win.document.querySelector(s));
      });
    });
    await visitor.goto(`/insights/${slug}`);
    // Hydrated: the reader's date, in the same format.
    await expect(visitor.getByRole('article').locator('time')).toHaveText(shownDate);
    const kept = () =>
      visitor.evaluate(() => {
        const { fromServer = [], document: doc } = globalThis as unknown as ArticleWindow;
        return fromServer.length === 3 && fromServer.every((node) => node !== null && doc.contains(node));
      });
    expect(await kept(), "the server's nodes are still in the page").toBe(true);
    await expect(visitor.getByRole('link', { name: 'our method' })).toHaveAttribute('target', '_blank');
    await expectNoSeriousViolations(visitor, testInfo, 'article-page');
    expect(errors, 'console errors (a hydration mismatch is one)').toEqual([]);
    expect(scripts.length, 'scripts loaded').toBeGreaterThan(0);
    expect(scripts.filter((script) => /\/markdown-/.test(script))).toEqual([]);

    // Hydrated: its links hand over to the app in place.
    await visitor.evaluate(() => ((globalThis as unknown as { landed?: boolean }).landed = true));
    await visitor.getByRole('link', { name: 'All insights' }).click();
    await expect(visitor).toHaveURL(/\/insights$/);
    await expect(visitor.getByRole('heading', { level: 1, name: 'Insights' })).toBeVisible();
    expect(await visitor.evaluate(() => (globalThis as unknown as { landed?: boolean }).landed)).toBe(true);
    expect(await kept()).toBe(false);
  });
});
