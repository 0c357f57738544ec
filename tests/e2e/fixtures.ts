import { randomUUID } from 'node:crypto';
import { test as base, expect, type BrowserContext, type BrowserContextOptions, type Locator, type Page, type Request, type Response } from '@playwright/test';
import type { BrowserWindow } from './support/browser-types.ts';
import { ADMIN_EMAIL, ADMIN_NAME } from './support/constants.ts';

export { expect } from '@playwright/test';

export type Credentials = { email: string; name: string };
export type ApiUser = { id: string; email: string; name: string; role: 'admin' | 'guest' };

type Fixtures = {
  /** Signs in through POST /api/auth/local/login with the page's own request context, so the
   * session cookie lands in the page's browser context. Navigate afterwards. */
  login: (page: Page, who: Credentials) => Promise<ApiUser>;
  /** admin@example.com: the only admin (ADMIN_EMAILS). */
  admin: Credentials;
  /** A guest with an email no other test uses. */
  guest: Credentials;
  /** A user who can own agents (made admin by the admin) with an email no other test uses, so
   * their agents, alerts and settings are theirs alone. */
  owner: Credentials;
  /** A page in a browser context of its own (another person: separate cookies), watched like
   * the test's own page: its uncaught errors and CSP violations fail the test too. Use it
   * instead of browser.newPage()/newContext(), which nothing watches. */
  openPage: (options?: BrowserContextOptions) => Promise<Page>;
};

/**
 * Collects what must fail a test: uncaught errors in any page of the context and Content
 * Security Policy violations. A violation is reported two ways: Chromium's console message
 * ("... violates the following Content Security Policy directive ...") when it reaches the
 * console API, and a `securitypolicyviolation` listener installed before any page script runs
 * (init scripts are injected by the browser, not as inline scripts, so the CSP allows them).
 */
export async function monitorContext(context: BrowserContext): Promise<string[]> {
  const problems: string[] = [];
  await context.addInitScript(() => {
    (globalThis as unknown as BrowserWindow).document.addEventListener(
      'securitypolicyviolation',
      (e) => {
        console.error(
          `[e2e] CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`,
        );
      },
      true,
    );
  });
  const watch = (page: Page) => {
    page.on('pageerror', (err) => problems.push(`uncaught error on ${page.url()}: ${err.stack ?? err.message}`));
    page.on('console', (msg) => {
      const text = msg.text();
      if (/Content Security Policy|\[e2e\] CSP violation/i.test(text)) problems.push(`CSP violation on ${page.url()}: ${text}`);
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  return problems;
}

export function expectNoPageProblems(problems: string[]): void {
  expect(problems, 'uncaught page errors and Content Security Policy violations').toEqual([]);
}

export const test = base.extend<Fixtures>({
  context: async ({ context }, use) => {
    const problems = await monitorContext(context);
    await use(context);
    expectNoPageProblems(problems);
  },

  login: async ({ baseURL }, use) => {
    await use(async (page, { email, name }) => {
      const res = await page.request.post('/api/auth/local/login', {
        data: { email, name },
        headers: { origin: new URL(baseURL!).origin },
      });
      expect(res.status(), `local sign-in as ${email}: ${await res.text()}`).toBe(200);
      const body = (await res.json()) as { user: ApiUser };
      return body.user;
    });
  },

  openPage: async ({ browser }, use) => {
    const opened: Array<{ context: BrowserContext; problems: string[] }> = [];
    await use(async (options) => {
      // Inside a test, Playwright fills in the config's context options (baseURL, locale, ...).
      const context = await browser.newContext(options);
      opened.push({ context, problems: await monitorContext(context) });
      return context.newPage();
    });
    await Promise.all(opened.map(({ context }) => context.close()));
    expectNoPageProblems(opened.flatMap(({ problems }) => problems));
  },

  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as a destructured object
  admin: async ({}, use) => {
    await use({ email: ADMIN_EMAIL, name: ADMIN_NAME });
  },

  // eslint-disable-next-line no-empty-pattern -- as above
  guest: async ({}, use) => {
    const id = randomUUID().slice(0, 8);
    await use({ email: `guest-${id}@example.com`, name: `Grace ${id}` });
  },

  owner: async ({ playwright, baseURL }, use) => {
    const id = randomUUID().slice(0, 8);
    const owner = { email: `owner-${id}@example.com`, name: `Olive ${id}` };
    // A cookie jar of its own: sign the new user in once, then promote them as the admin.
    const api = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { origin: new URL(baseURL!).origin } });
    const signIn = async (who: Credentials): Promise<ApiUser> => {
      const res = await api.post('/api/auth/local/login', { data: who });
      expect(res.status(), `local sign-in as ${who.email}`).toBe(200);
      return ((await res.json()) as { user: ApiUser }).user;
    };
    const user = await signIn(owner);
    await signIn({ email: ADMIN_EMAIL, name: ADMIN_NAME });
    expect((await api.patch(`/api/users/${user.id}`, { data: { role: 'admin' } })).status(), 'promote the owner').toBe(200);
    await api.dispose();
    await use(owner);
  },
});

/**
 * Opens a public page (`/`, `/insights`, an article) and waits until its scripts run it. They
 * load only once the page has painted (client/site-boot.ts, docs/decisions/0068); until then its
 * links are plain links (a click loads the next page) and its menu button does nothing. The sign
 * is the session check they make as soon as the page has hydrated.
 */
export async function gotoPublicPage(page: Page, url: string): Promise<Response | null> {
  const session = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/auth/me');
  const response = await page.goto(url);
  await session;
  return response;
}

/** The site header (a <header> outside any sectioning element has the banner role). */
export const siteHeader = (page: Page): Locator => page.getByRole('banner');

/** A header control by its exact name, whether built as a link or as a button. */
export function headerItem(page: Page, name: string): Locator {
  const header = siteHeader(page);
  return header.getByRole('link', { name, exact: true }).or(header.getByRole('button', { name, exact: true }));
}

/** sonner's live region ("Notifications alt+T"): texts found here are toasts, not page text. */
export const toasts = (page: Page): Locator => page.getByRole('region', { name: /notifications/i });

/** The header's sign-out control: a direct button, or an account menu (the user's photo)
 * with a sign-out item. */
export async function signOutFromHeader(page: Page): Promise<void> {
  const header = siteHeader(page);
  const direct = header.getByRole('button', { name: /log ?out|sign ?out/i });
  if (await direct.isVisible()) {
    await direct.click();
    return;
  }
  await header.getByRole('button', { name: /account|profile|user|menu/i }).first().click();
  await page.getByRole('menuitem', { name: /log ?out|sign ?out/i }).click();
}

/** What only a signed-in header shows (SPEC: Dashboard for all, the admin screens for admins). */
const SIGNED_IN_HEADER_ITEMS = ['Dashboard', 'Chat Console', 'Agents Console', 'Create Article', 'Articles', 'Users', 'Usage'];

/** The header as a signed-out visitor sees it: a Login control, and no signed-in link,
 * avatar, bell or Logout. */
export async function expectSignedOutHeader(page: Page): Promise<void> {
  const header = siteHeader(page);
  await expect(headerItem(page, 'Login')).toBeVisible();
  for (const name of SIGNED_IN_HEADER_ITEMS) await expect(headerItem(page, name), `header link ${name}`).toHaveCount(0);
  await expect(header.getByRole('button', { name: /log ?out|sign ?out/i })).toHaveCount(0);
  await expect(header.getByRole('button', { name: /^Notifications/ })).toHaveCount(0);
  await expect(header.getByRole('img')).toHaveCount(0);
}

/** The page's calls to our API from now on, each with its answer's status once it has one. */
export type ApiCall = { method: string; path: string; status?: number };
export function recordApiCalls(page: Page): ApiCall[] {
  const calls: ApiCall[] = [];
  const byRequest = new Map<Request, ApiCall>();
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/api/')) return;
    const call = { method: request.method(), path: url.pathname + url.search };
    calls.push(call);
    byRequest.set(request, call);
  });
  page.on('response', (response) => {
    const call = byRequest.get(response.request());
    if (call) call.status = response.status();
  });
  return calls;
}

/** Signs out from the header and waits for the server's answer. Returns what gives the calls
 * the page made since (of those `calls` records). */
export async function signOutAndWatch(page: Page, calls: ApiCall[]): Promise<() => ApiCall[]> {
  const answered = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/auth/logout');
  await signOutFromHeader(page);
  expect((await answered).status()).toBe(204);
  const from = calls.findIndex((call) => call.method === 'POST' && call.path === '/api/auth/logout') + 1;
  expect(from, 'the sign-out request was recorded').toBeGreaterThan(0);
  return () => calls.slice(from);
}

/** After sign-out nothing may ask for what only a signed-in user may see: no notifications, and
 * no call the server refuses for want of a session. */
export function expectNoSignedInCalls(after: ApiCall[]): void {
  const signedIn = after.filter((call) => call.path.startsWith('/api/notifications') || call.status === 401);
  expect(signedIn, 'calls to signed-in endpoints after sign-out').toEqual([]);
}

/** Waits until window.scrollY has not changed for a few animation frames (smooth scrolling). */
export async function waitForScrollToSettle(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      new Promise<boolean>((resolve) => {
        const win = globalThis as unknown as BrowserWindow;
        const start = win.scrollY;
        let frames = 0;
        const tick = () => {
          if (win.scrollY !== start) return resolve(false);
          if (++frames >= 10) return resolve(true);
          win.requestAnimationFrame(tick);
        };
        win.requestAnimationFrame(tick);
      }),
    undefined,
    { polling: 50, timeout: 5_000 },
  );
}

/** Waits for CSS and Web Animations on the page to finish (cards that animate in). */
export async function waitForAnimations(page: Page): Promise<void> {
  await page.waitForFunction(
    () => (globalThis as unknown as BrowserWindow).document.getAnimations().every((a) => a.playState !== 'running'),
    undefined,
    {
      polling: 100,
      timeout: 5_000,
    },
  );
}

/** A phone's viewport (iPhone 12 to 15): every screen must fit it. */
export const PHONE_VIEWPORT = { width: 390, height: 844 } as const;

/**
 * Fails when the page scrolls sideways, or when a visible element reaches past the viewport's
 * left or right edge, even inside a box that scrolls: a list or form that must be scrolled
 * sideways inside its card does not fit either. Only content that scrolls sideways by design
 * may be wider than the screen, inside its box: code in a `pre`, and what a `data-scroll-x` box
 * holds (a wide table in an article).
 */
export async function expectFitsViewport(page: Page, screen: string): Promise<void> {
  const found = await page.evaluate(() => {
    type Box = { left: number; right: number; width: number; height: number };
    type El = {
      tagName: string;
      id: string;
      parentElement: El | null;
      textContent: string | null;
      scrollWidth: number;
      clientWidth: number;
      getAttribute(name: string): string | null;
      getBoundingClientRect(): Box;
    };
    type Style = { visibility: string; clipPath: string; clip: string; overflowX: string };
    const win = globalThis as unknown as {
      innerWidth: number;
      document: { documentElement: { scrollWidth: number }; body: El & { querySelectorAll(selector: string): Iterable<El> } };
      getComputedStyle(el: El): Style;
    };
    const { document } = win;
    const width = win.innerWidth;
    const scrollsByDesign = (el: El) => el.tagName === 'PRE' || el.getAttribute('data-scroll-x') !== null;
    // Screen-reader-only text (clipped to nothing) is not on the screen.
    const clippedAway = (el: El) => {
      const style = win.getComputedStyle(el);
      return style.clipPath === 'inset(50%)' || style.clip === 'rect(0px, 0px, 0px, 0px)';
    };
    const exempt = (el: El) => {
      if (clippedAway(el)) return true;
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (scrollsByDesign(p) || clippedAway(p)) return true;
      return false;
    };
    const describe = (el: El) => {
      const name = el.getAttribute('aria-label') ?? (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      return `<${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}> "${name}"`;
    };
    const past: string[] = [];
    for (const el of document.body.querySelectorAll('*')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const style = win.getComputedStyle(el);
      if (style.visibility === 'hidden' || exempt(el)) continue;
      if (box.left < -0.5 || box.right > width + 0.5) {
        past.push(`${describe(el)} spans ${Math.round(box.left)}..${Math.round(box.right)} px`);
      } else if ((style.overflowX === 'auto' || style.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1 && !scrollsByDesign(el)) {
        // A box that scrolls sideways because what it holds is wider (a chat log with a long
        // word in it, a table in a card): the content is off-screen all the same.
        past.push(`${describe(el)} scrolls ${el.scrollWidth} px in ${el.clientWidth} px`);
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, width, past };
  });
  // Soft: a journey through many screens reports every one that does not fit, then fails.
  expect.soft(found.scrollWidth, `${screen}: the page is ${found.scrollWidth} px wide in a ${found.width} px viewport`).toBeLessThanOrEqual(found.width);
  expect.soft(found.past.slice(0, 12), `${screen}: elements past the viewport's edges`).toEqual([]);
}
