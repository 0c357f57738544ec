import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { TArticleSummary } from '../../../../contracts/articles.ts';
import { INSIGHTS_PAGE_SIZE } from '../../../../contracts/site.ts';
import { never, stubFetch } from '../../../test/fetch-stub.ts';
import { currentLocation, renderWithProviders } from '../../../test/render.tsx';
import InsightsPage, { pageFrom } from './insights-page.tsx';

const summary = (n: number): TArticleSummary => ({
  id: `a${n}`,
  slug: `article-${n}`,
  title: `Article ${n}`,
  category: 'Automation',
  excerpt: `Excerpt of article ${n}.`,
  createdAt: '2025-03-15T12:00:00.000Z',
  publishedAt: '2025-03-15T12:00:00.000Z',
  readTime: '4 min read',
  cover: null,
});

/** The list API: `total` published articles, newest (highest number) first, served for any
 * page size the page asks (`limit`), so a page asking the wrong size is seen, not refused. */
function stubList(total: number) {
  const requests: Array<{ url: string }> = [];
  vi.stubGlobal('fetch', async (input: string | URL | Request) => {
    const url = String(input instanceof Request ? input.url : input);
    requests.push({ url });
    const query = new URL(url, 'http://test').searchParams;
    const limit = Number(query.get('limit'));
    const offset = Number(query.get('offset'));
    const items = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => summary(total - offset - i));
    return new Response(JSON.stringify(items), { headers: { 'content-type': 'application/json', 'x-total-count': String(total) } });
  });
  return { requests };
}

const titles = () => screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);

describe('InsightsPage', () => {
  it('pages by the contract page size, the one the server renders /insights with', async () => {
    // Three pages exactly at the contract's size; any other size the page used would page
    // differently (more or fewer cards, another page count).
    const { requests } = stubList(3 * INSIGHTS_PAGE_SIZE);
    renderWithProviders(<InsightsPage />, { path: '/insights?page=2' });
    expect(await screen.findByRole('link', { name: `Article ${2 * INSIGHTS_PAGE_SIZE}` })).toBeInTheDocument();
    expect(titles()).toHaveLength(INSIGHTS_PAGE_SIZE);
    expect(titles().at(-1)).toBe(`Article ${INSIGHTS_PAGE_SIZE + 1}`);
    expect(screen.getByRole('navigation', { name: 'Pagination' })).toHaveTextContent('Page 2 of 3');
    expect(requests.map((r) => r.url)).toEqual([`/api/articles?limit=${INSIGHTS_PAGE_SIZE}&offset=${INSIGHTS_PAGE_SIZE}`]);
  });

  it('reads ?page=N as a positive whole number, else page 1', () => {
    expect([pageFrom(null), pageFrom('0'), pageFrom('-2'), pageFrom('abc'), pageFrom('2.5'), pageFrom('3')]).toEqual([1, 1, 1, 1, 1, 3]);
  });

  it('shows the first 12 articles as cards linking to their pages, with Previous/Next', async () => {
    vi.stubGlobal('scrollTo', vi.fn());
    const { requests } = stubList(30);
    renderWithProviders(<InsightsPage />, { path: '/insights' });
    expect(screen.getByRole('heading', { level: 1, name: 'Insights' })).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Article 30' })).toHaveAttribute('href', '/insights/article-30');
    expect(titles()).toHaveLength(12);
    expect(titles()[0]).toBe('Article 30');
    expect(requests[0]!.url).toBe('/api/articles?limit=12&offset=0');

    const nav = screen.getByRole('navigation', { name: 'Pagination' });
    expect(nav).toHaveTextContent('Page 1 of 3');
    expect(within(nav).queryByRole('link', { name: 'Previous' })).not.toBeInTheDocument();
    await userEvent.click(within(nav).getByRole('link', { name: 'Next' }));
    expect(currentLocation()).toBe('/insights?page=2');
    expect(await screen.findByRole('link', { name: 'Article 18' })).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Pagination' })).toHaveTextContent('Page 2 of 3');

    await userEvent.click(screen.getByRole('link', { name: 'Next' }));
    expect(await screen.findByRole('link', { name: 'Article 6' })).toBeInTheDocument();
    expect(titles()).toHaveLength(6);
    expect(screen.queryByRole('link', { name: 'Next' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Previous' })).toHaveAttribute('href', '/insights?page=2');
  });

  it('opens at ?page=N', async () => {
    const { requests } = stubList(30);
    renderWithProviders(<InsightsPage />, { path: '/insights?page=2' });
    expect(await screen.findByRole('link', { name: 'Article 18' })).toBeInTheDocument();
    expect(requests[0]!.url).toBe('/api/articles?limit=12&offset=12');
    expect(screen.getByRole('link', { name: 'Previous' })).toHaveAttribute('href', '/insights');
  });

  it('has no pagination when everything fits on one page', async () => {
    stubList(3);
    renderWithProviders(<InsightsPage />, { path: '/insights' });
    expect(await screen.findByRole('link', { name: 'Article 3' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Pagination' })).not.toBeInTheDocument();
  });

  it('says "No articles published yet." when there are none', async () => {
    stubList(0);
    renderWithProviders(<InsightsPage />, { path: '/insights' });
    expect(await screen.findByText('No articles published yet.')).toBeInTheDocument();
  });

  it('explains a page past the end', async () => {
    stubFetch({ 'GET /api/articles?limit=12&offset=48': new Response('[]', { headers: { 'x-total-count': '5' } }) });
    renderWithProviders(<InsightsPage />, { path: '/insights?page=5' });
    expect(await screen.findByText(/There is no page 5/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the first page' })).toHaveAttribute('href', '/insights');
  });

  it('shows placeholders while loading and an error with a retry', async () => {
    stubFetch({ 'GET /api/articles?limit=12&offset=0': () => never() });
    const { unmount } = renderWithProviders(<InsightsPage />, { path: '/insights' });
    expect(screen.getByRole('list', { name: 'Loading articles' })).toHaveAttribute('aria-busy', 'true');
    unmount();

    stubFetch({ 'GET /api/articles?limit=12&offset=0': { status: 500, body: { error: 'Internal Server Error' } } });
    renderWithProviders(<InsightsPage />, { path: '/insights' });
    expect(await screen.findByRole('alert')).toHaveTextContent('500: Internal Server Error');
    stubList(2);
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('link', { name: 'Article 2' })).toBeInTheDocument();
  });
});
