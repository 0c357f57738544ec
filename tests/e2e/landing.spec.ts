import { type Locator, type Page } from '@playwright/test';
import { expect, gotoPublicPage, headerItem, siteHeader, test, waitForScrollToSettle } from './fixtures.ts';
import type { BrowserWindow } from './support/browser-types.ts';
import { startAppServer } from './support/app-server.ts';
import { CONTACT_EMAIL, HEADER_OFFSET_PX } from './support/constants.ts';
import type { SeedArticle } from './support/seed-articles.ts';

// SPEC section 2, "Landing page (/)" and "Header".
const HEADLINE = 'Automate Your Business Success';
const SERVICES = ['Intelligent Process Automation', 'AI/Machine Learning Solutions', 'Data Analytics Integration'];
const ANCHORS = [
  { label: 'Services', id: 'services' },
  { label: 'Insights', id: 'insights' },
  { label: 'Contact', id: 'contact' },
] as const;

const section = (page: Page, id: string) => page.locator(`#${id}`);

/** How far (px) the section's top is from where the anchor should put it: 64 px below the
 * viewport top, or as close as the page allows when it is scrolled to the bottom. */
function anchorError(page: Page, id: string): Promise<number> {
  return page.evaluate(
    ({ id, offset }) => {
      const win = globalThis as unknown as BrowserWindow;
      const el = win.document.getElementById(id);
      if (!el) return Number.POSITIVE_INFINITY;
      const top = el.getBoundingClientRect().top;
      const maxScroll = win.document.documentElement.scrollHeight - win.innerHeight;
      const atBottom = Math.abs(win.scrollY - maxScroll) <= 1;
      if (atBottom && top > offset) return 0; // the page cannot scroll further
      return Math.abs(top - offset);
    },
    { id, offset: HEADER_OFFSET_PX },
  );
}

/** The smallest element that holds the text and everything in `alsoHas` (one card). */
function cardWith(scope: Locator, text: string, alsoHas: string[]): Locator {
  let card = scope.locator('*').filter({ has: scope.page().getByText(text, { exact: true }) });
  for (const t of alsoHas) card = card.filter({ hasText: t });
  return card.last();
}

test.describe('landing page', () => {
  test('shows hero, services, insights and contact in that order with the SPEC texts', async ({ page }) => {
    await page.goto('/');
    const headline = page.getByRole('heading', { level: 1, name: HEADLINE });
    await expect(headline).toBeVisible();

    const services = section(page, 'services');
    const insights = section(page, 'insights');
    const contact = section(page, 'contact');
    for (const s of [services, insights, contact]) await expect(s).toBeAttached();

    const tops = await Promise.all([headline, services, insights, contact].map(async (l) => (await l.boundingBox())?.y ?? NaN));
    expect(tops, 'hero, services, insights, contact from top to bottom').toEqual([...tops].sort((a, b) => a - b));
    expect(new Set(tops).size).toBe(4);

    for (const title of SERVICES) {
      await services.getByText(title, { exact: true }).scrollIntoViewIfNeeded();
      await expect(services.getByText(title, { exact: true })).toBeVisible();
    }

    await contact.scrollIntoViewIfNeeded();
    await expect(contact.getByRole('heading', { name: 'Contact Us' })).toBeVisible();
    await expect(contact).toContainText(CONTACT_EMAIL);
    const mail = contact.locator(`a[href="mailto:${CONTACT_EMAIL}"]`);
    await expect(mail, `a mailto:${CONTACT_EMAIL} link in the contact section`).toHaveCount(1);
    await expect(mail).toBeVisible();
  });

  test('insights say "No articles published yet." when nothing is published', async ({ page }) => {
    test.slow();
    // A server of its own: the shared one may have articles published by other journeys.
    const server = await startAppServer({
      articles: [{ title: 'Draft only', category: 'Draft', excerpt: 'Not published.', published: false, createdAt: '2025-01-01T12:00:00Z' }],
    });
    try {
      await page.goto(`${server.url}/`);
      const insights = section(page, 'insights');
      await insights.scrollIntoViewIfNeeded();
      await expect(insights.getByText('No articles published yet.')).toBeVisible();
      await expect(insights.getByText('Draft only')).toHaveCount(0);
    } finally {
      await server.stop();
    }
  });

  test('insights show the three newest published articles as cards', async ({ page }) => {
    test.slow();
    const articles: SeedArticle[] = [
      { title: 'Oldest published insight', category: 'Archive', excerpt: 'Should not be shown: only three fit.', readTime: '2 min read', createdAt: '2025-01-10T12:00:00Z' },
      { title: 'Scaling workflow automation', category: 'Automation', excerpt: 'How teams automate approvals end to end.', readTime: '4 min read', createdAt: '2025-02-14T12:00:00Z' },
      { title: 'Machine learning in operations', category: 'AI', excerpt: 'Forecasting demand with simple models.', readTime: '6 min read', createdAt: '2025-03-03T12:00:00Z' },
      { title: 'Dashboards that drive decisions', category: 'Analytics', excerpt: 'Metrics that matter to the business.', readTime: '3 min read', createdAt: '2025-04-21T12:00:00Z' },
      { title: 'Unpublished draft', category: 'Draft', excerpt: 'Never public.', published: false, createdAt: '2025-05-01T12:00:00Z' },
    ];
    const server = await startAppServer({ articles });
    try {
      await page.goto(`${server.url}/`);
      const insights = section(page, 'insights');
      await insights.scrollIntoViewIfNeeded();

      for (const a of articles.slice(1, 4).reverse()) {
        const card = cardWith(insights, a.title, [a.excerpt, a.readTime!]);
        await expect(card, `card for "${a.title}"`).toBeVisible();
        await expect(card.getByText(a.category, { exact: true })).toBeVisible();
        // "creation date in the visitor's locale format" (en-US here): any of the usual forms.
        const forms = await page.evaluate((iso) => {
          const d = new Date(iso);
          const styles: Intl.DateTimeFormatOptions[] = [{}, { dateStyle: 'medium' }, { dateStyle: 'long' }, { dateStyle: 'short' }];
          return styles.map((s) => d.toLocaleDateString(undefined, s));
        }, a.createdAt);
        const text = (await card.textContent()) ?? '';
        expect(forms.some((f) => text.includes(f)), `"${a.title}" card shows its date as one of ${forms.join(' | ')}: ${text}`).toBe(true);
      }
      await expect(insights.getByText(articles[0]!.title)).toHaveCount(0);
      await expect(insights.getByText('Unpublished draft')).toHaveCount(0);
      await expect(insights.getByText('No articles published yet.')).toHaveCount(0);
      await expect(
        insights.getByRole('link', { name: 'View All Insights' }).or(insights.getByRole('button', { name: 'View All Insights' })),
      ).toBeVisible();
    } finally {
      await server.stop();
    }
  });

  test('header anchors scroll each section to 64 px below the top of the viewport', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1, name: HEADLINE })).toBeVisible();

    // Down through the page, then back up to the first section.
    for (const { label, id } of [...ANCHORS, ANCHORS[0]]) {
      const anchor = headerItem(page, label);
      await expect(anchor, `header anchor ${label}`).toBeVisible();
      await anchor.click();
      await expect.poll(() => anchorError(page, id), { message: `#${id} top ends ${HEADER_OFFSET_PX} px below the viewport top` }).toBeLessThanOrEqual(3);
      await waitForScrollToSettle(page);
      expect(await anchorError(page, id), `#${id} after scrolling settled`).toBeLessThanOrEqual(3);
      // The fixed header stays in view and does not cover the section's top.
      await expect(siteHeader(page)).toBeInViewport();
    }
  });

  test('header anchors are not shown once signed in, nor away from /', async ({ page, login, guest }) => {
    await page.goto('/no-such-page');
    await expect(page.getByRole('heading', { name: '404 Page Not Found' })).toBeVisible();
    for (const { label } of ANCHORS) await expect(headerItem(page, label)).toHaveCount(0);

    await login(page, guest);
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1, name: HEADLINE })).toBeVisible();
    await expect(headerItem(page, 'Dashboard')).toBeVisible();
    for (const { label } of ANCHORS) await expect(headerItem(page, label)).toHaveCount(0);
  });

  test('is prerendered: hero, services, contact and footer are in the HTML, painted with JavaScript off', async ({ openPage }) => {
    const page = await openPage({ javaScriptEnabled: false });
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1, name: HEADLINE })).toBeVisible();
    for (const title of SERVICES) await expect(section(page, 'services').getByText(title, { exact: true })).toBeVisible();
    await expect(section(page, 'contact').locator(`a[href="mailto:${CONTACT_EMAIL}"]`)).toBeVisible();
    await expect(page.locator('footer')).toContainText(`© ${new Date().getFullYear()} `);
    // Nothing is left for the server to fill in.
    expect(await page.content()).not.toMatch(/%[A-Z_]+%/);
  });

  test('hydrates, then hands over to the whole app in place when the visitor goes further', async ({ page }) => {
    await gotoPublicPage(page, '/');
    const viewAll = page.getByRole('link', { name: 'View All Insights' });
    await expect(viewAll).toHaveAttribute('href', '/insights');
    // A mark on the window survives only if the next page is not a new document.
    await page.evaluate(() => ((globalThis as unknown as { landed?: boolean }).landed = true));
    await viewAll.click();
    await expect(page).toHaveURL(/\/insights$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Insights' })).toBeVisible();
    expect(await page.evaluate(() => (globalThis as unknown as { landed?: boolean }).landed)).toBe(true);

    // The app now owns the history: back shows the landing page again, without a reload.
    await page.goBack();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('heading', { level: 1, name: HEADLINE })).toBeVisible();
    expect(await page.evaluate(() => (globalThis as unknown as { landed?: boolean }).landed)).toBe(true);
  });

  test('Login on / opens the sign-in page in place', async ({ page }) => {
    await gotoPublicPage(page, '/');
    await page.evaluate(() => ((globalThis as unknown as { landed?: boolean }).landed = true));
    await siteHeader(page).getByRole('link', { name: 'Login' }).click();
    await expect(page).toHaveURL(/\/login\?next=%2F$/);
    await expect(page.getByRole('main').getByLabel(/email/i)).toBeVisible();
    expect(await page.evaluate(() => (globalThis as unknown as { landed?: boolean }).landed)).toBe(true);
  });

  test('Login on / is a plain link to the sign-in page while JavaScript is off', async ({ openPage }) => {
    const page = await openPage({ javaScriptEnabled: false });
    await page.goto('/');
    const login = siteHeader(page).getByRole('link', { name: 'Login' });
    await expect(login).toHaveAttribute('href', '/login?next=%2F');
    const loginPage = page.waitForResponse((res) => new URL(res.url()).pathname === '/login');
    await login.click();
    await expect(page).toHaveURL(/\/login\?next=%2F$/);
    expect((await loginPage).status()).toBe(200);
  });

  test('Login clicked before the landing page has hydrated reaches the sign-in form', async ({ page }) => {
    // The landing page's entry script never arrives: what shows is the prerendered HTML alone.
    // (Its script written into the page loads the entry, and what it imports, once it has painted.)
    const html = await (await page.request.get('/')).text();
    const entry = /<script type="module" data-hydrate="([^" ]+)/.exec(html)?.[1];
    expect(entry, 'the landing page names its entry script').toBeDefined();
    await page.route((url) => url.pathname === entry, (route) => route.abort());
    await page.goto('/');
    await siteHeader(page).getByRole('link', { name: 'Login' }).click();
    await expect(page).toHaveURL(/\/login\?next=%2F$/);
    // /login is the app's own page, whose script loads: the sign-in form.
    await expect(page.getByRole('main').getByLabel(/email/i)).toBeVisible();
  });

  test('/insights is rendered by the server with its articles, then hydrates with local dates', async ({ page, openPage }) => {
    test.slow(); // starts and seeds a server process of its own
    const articles: SeedArticle[] = [
      { title: 'Server rendered insight', category: 'Automation', excerpt: 'Visible before any JavaScript runs.', readTime: '4 min read', createdAt: '2025-02-14T12:00:00Z' },
      { title: 'A second insight', category: 'AI', excerpt: 'Also in the HTML from the server.', readTime: '6 min read', createdAt: '2025-03-03T12:00:00Z' },
    ];
    const server = await startAppServer({ articles });
    try {
      const noScript = await openPage({ javaScriptEnabled: false });
      await noScript.goto(`${server.url}/insights`);
      await expect(noScript).toHaveTitle(/^Insights · /);
      await expect(noScript.getByRole('heading', { level: 1, name: 'Insights' })).toBeVisible();
      const cards = noScript.getByRole('main').getByRole('listitem');
      await expect(cards).toHaveCount(2);
      await expect(cards.first()).toContainText('A second insight');
      // Without JavaScript the date is on UTC's calendar, the server knowing no reader's zone, in
      // the one format of every date (docs/decisions/0066).
      await expect(cards.first().locator('time')).toHaveText('Mar 3, 2025');

      // The page loads its scripts once it has painted (docs/decisions/0068): hydrated once it has asked for the session.
      await gotoPublicPage(page, `${server.url}/insights`);
      const card = page.getByRole('main').getByRole('listitem').filter({ hasText: 'Server rendered insight' });
      await expect(card.locator('time')).toHaveText('Feb 14, 2025');
      // Hydrated: a card's link hands over to the app in place.
      await page.evaluate(() => ((globalThis as unknown as { landed?: boolean }).landed = true));
      await card.getByRole('link', { name: 'Server rendered insight' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Server rendered insight' })).toBeVisible();
      expect(await page.evaluate(() => (globalThis as unknown as { landed?: boolean }).landed)).toBe(true);
    } finally {
      await server.stop();
    }
  });
});
