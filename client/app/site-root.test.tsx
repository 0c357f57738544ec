import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TSitePage } from '../../contracts/site.ts';
import { makeUser } from '../test/render.tsx';
import { never, stubFetch } from '../test/fetch-stub.ts';
import { preloadSitePage, SiteRoot, type LoadApp } from './site-root.tsx';
import { setSettingsTimeZone } from '../lib/time-zone.ts';

// The landing page's own root: the prerendered tree the browser hydrates, and the hand-over to
// the whole app (here a stand-in element, which is what loadApp returns).
function renderLanding(loadApp: LoadApp) {
  return render(<SiteRoot location="/" page={{ kind: 'landing' }} loadApp={loadApp} />);
}

const app = (label: string) => Promise.resolve(<p>{label}</p>);

beforeEach(() => window.history.replaceState(null, '', '/'));
afterEach(() => vi.restoreAllMocks());

describe('SiteRoot', () => {
  it('shows the landing page to a signed-out visitor and loads nothing more', async () => {
    const { fetchMock } = stubFetch({ 'GET /api/auth/me': { body: { user: null } }, 'GET /api/articles?limit=3': () => never() });
    const loadApp = vi.fn<LoadApp>(() => app('the app'));
    renderLanding(loadApp);
    expect(screen.getByRole('heading', { level: 1, name: 'Automate Your Business Success' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Login' })).toHaveAttribute('href', '/login?next=%2F');
    await waitFor(() => expect(fetchMock).toHaveBeenCalledWith('/api/auth/me', expect.anything()));
    await act(async () => {});
    expect(loadApp).not.toHaveBeenCalled();
  });

  it('opens the whole app for a signed-in visitor, handing it the session user', async () => {
    const user = makeUser({ role: 'admin' });
    stubFetch({ 'GET /api/auth/me': { body: { user } }, 'GET /api/articles?limit=3': () => never() });
    const loadApp = vi.fn<LoadApp>(() => app('the app'));
    renderLanding(loadApp);
    expect(await screen.findByText('the app')).toBeInTheDocument();
    expect(loadApp).toHaveBeenCalledExactlyOnceWith(user);
    expect(window.location.pathname).toBe('/');
  });

  it('a plain click on a link moves the URL and opens the app there; a modified click is the browser’s', async () => {
    stubFetch({ 'GET /api/auth/me': { body: { user: null } }, 'GET /api/articles?limit=3': { body: [] } });
    const loadApp = vi.fn<LoadApp>(() => app('the app'));
    renderLanding(loadApp);
    const viewAll = screen.getByRole('link', { name: 'View All Insights' });
    expect(viewAll).toHaveAttribute('href', '/insights');

    // Ctrl+click opens a new tab in a browser: the landing page must not intercept it.
    const prevented: boolean[] = [];
    viewAll.addEventListener('click', (e) => prevented.push(e.defaultPrevented));
    fireEvent.click(viewAll, { ctrlKey: true });
    expect(prevented).toEqual([false]);
    expect(loadApp).not.toHaveBeenCalled();

    await userEvent.click(viewAll);
    expect(await screen.findByText('the app')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/insights');
    expect(loadApp).toHaveBeenCalledExactlyOnceWith(undefined);
  });

  it('stays on the landing page, logging why, when the app cannot load at /', async () => {
    const user = makeUser();
    stubFetch({ 'GET /api/auth/me': { body: { user } }, 'GET /api/articles?limit=3': () => never() });
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const loadApp = vi.fn<LoadApp>(() => Promise.reject(new Error('chunk gone')));
    renderLanding(loadApp);
    await waitFor(() => expect(error).toHaveBeenCalledWith('The app could not be loaded:', expect.objectContaining({ message: 'chunk gone' })));
    await act(async () => {});
    expect(screen.getByRole('heading', { level: 1, name: 'Automate Your Business Success' })).toBeInTheDocument();
    // The signed-in controls are the app's: the header does not pretend to have them. Its Login
    // link still leads on, to /login in the app's own page (which sends a signed-in user on).
    expect(screen.queryByRole('button', { name: 'Logout' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Login' })).toHaveAttribute('href', '/login?next=%2F');
  });

  describe('an article page', () => {
    const page: TSitePage = {
      kind: 'article',
      article: {
        id: '00000000-0000-4000-8000-0000000000a1',
        slug: 'why-automate',
        title: 'Why automate now',
        category: 'Automation',
        excerpt: 'Reasons to automate this quarter.',
        content: '## Costs\n\nManual entry costs **hours**. See [the method](https://example.org/method) and [the others](/insights).\n\n| Step | Time |\n| --- | --- |\n| Entry | 10 min |\n',
        createdAt: '2025-05-01T10:00:00.000Z',
        publishedAt: '2025-05-01T10:00:00.000Z',
        readTime: '6 min read',
        metaTitle: null,
        metaDescription: null,
        tags: [{ name: 'Automation', slug: 'automation' }],
        cover: null,
      },
    };
    const site = (loadApp: LoadApp) => <SiteRoot location="/insights/why-automate" page={page} loadApp={loadApp} />;

    afterEach(() => document.body.replaceChildren());

    it("hydrates the server's HTML without a mismatch, adopting the body as it is", async () => {
      window.history.replaceState(null, '', '/insights/why-automate');
      stubFetch({ 'GET /api/auth/me': { body: { user: null } } });
      const loadApp = vi.fn<LoadApp>(() => app('the app'));
      // What the server sends (client/prerender.tsx renders the same way).
      await preloadSitePage(page);
      const container = document.createElement('div');
      container.innerHTML = renderToString(site(loadApp));
      document.body.append(container);
      const body = container.querySelector('[data-article-body]')!;
      const nodes = [container.querySelector('h1'), body.querySelector('h2'), body.querySelector('table'), body.querySelector('a[href="/insights"]')];
      expect(nodes).not.toContain(null);
      expect(body.querySelector('a[href="https://example.org/method"]')).toHaveAttribute('rel', 'noopener noreferrer');
      // The server knows no reader's zone: the date on UTC's calendar, in the format of every article date.
      expect(container.querySelector('time')).toHaveTextContent('May 1, 2025');
      // A reader on UTC+14, where 10:00 UTC is already the next day.
      setSettingsTimeZone('Pacific/Kiritimati');

      // Development React reports any difference (text, attributes, inner HTML) on the console.
      const consoleError = vi.spyOn(console, 'error');
      const recoverable: unknown[] = [];
      const root = await act(async () => hydrateRoot(container, site(loadApp), { onRecoverableError: (error) => recoverable.push(error) }));
      await waitFor(() => expect(container.querySelector('time')).toHaveTextContent('May 2, 2025'));
      expect(recoverable).toEqual([]);
      expect(consoleError).not.toHaveBeenCalled();
      // The same nodes, hydrated, not rendered again.
      expect([container.querySelector('h1'), body.querySelector('h2'), body.querySelector('table'), body.querySelector('a[href="/insights"]')]).toEqual(nodes);
      expect(container.querySelector('[data-article-body]')).toBe(body);
      expect(loadApp).not.toHaveBeenCalled();
      act(() => root.unmount());
    });

    it('rendered in the browser without server HTML, loads the Markdown renderer for its body', async () => {
      stubFetch({ 'GET /api/auth/me': { body: { user: null } } });
      render(site(vi.fn<LoadApp>(() => app('the app'))));
      expect(screen.getByRole('heading', { level: 1, name: 'Why automate now' })).toBeInTheDocument();
      const article = screen.getByRole('article');
      expect(await within(article).findByRole('heading', { level: 2, name: 'Costs' })).toBeInTheDocument();
      expect(within(article).getByRole('table')).toBeInTheDocument();
      expect(screen.getByRole('link', { name: 'All insights' })).toHaveAttribute('href', '/insights');
    });
  });

  // Decision 0100: a tag's page, rendered by the server and adopted by the browser as it is.
  describe('a tag page', () => {
    const page: TSitePage = {
      kind: 'tag',
      tag: { name: 'Finance <b>ops</b>', slug: 'finance-b-ops-b' },
      page: 1,
      list: {
        items: [
          { id: 'a1', slug: 'closing-the-books', title: 'Closing the books faster', category: 'Finance', excerpt: 'Month-end in two days.', createdAt: '2025-04-01T10:00:00.000Z', publishedAt: '2025-04-01T10:00:00.000Z', readTime: '4 min read', cover: null },
        ],
        total: 1,
      },
    };
    const site = (loadApp: LoadApp) => <SiteRoot location="/insights/tag/finance-b-ops-b" page={page} loadApp={loadApp} />;
    afterEach(() => document.body.replaceChildren());

    it("hydrates the server's HTML without a mismatch, keeping the tag's page as it is", async () => {
      window.history.replaceState(null, '', '/insights/tag/finance-b-ops-b');
      stubFetch({ 'GET /api/auth/me': { body: { user: null } } });
      const loadApp = vi.fn<LoadApp>(() => app('the app'));
      await preloadSitePage(page);
      const container = document.createElement('div');
      container.innerHTML = renderToString(site(loadApp));
      document.body.append(container);
      const heading = container.querySelector('h1')!;
      expect(heading).toHaveTextContent('Articles tagged Finance <b>ops</b>');
      expect(heading.querySelector('b')).toBeNull();
      expect(container.querySelector('a[href="/insights/closing-the-books"]')).toHaveTextContent('Closing the books faster');
      expect(container.querySelector('a[href="/insights/tag/finance-b-ops-b/rss.xml"]')).toHaveTextContent('RSS feed of this tag');

      const consoleError = vi.spyOn(console, 'error');
      const recoverable: unknown[] = [];
      const root = await act(async () => hydrateRoot(container, site(loadApp), { onRecoverableError: (error) => recoverable.push(error) }));
      expect(recoverable).toEqual([]);
      expect(consoleError).not.toHaveBeenCalled();
      expect(container.querySelector('h1')).toBe(heading);
      expect(loadApp).not.toHaveBeenCalled();
      act(() => root.unmount());
    });
  });
});
