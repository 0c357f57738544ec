import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ARTICLES_PAGE_SIZE, type TArticleSummary } from '../../../contracts/articles.ts';
import { never, stubFetch } from '../../test/fetch-stub.ts';
import { currentLocation, renderWithProviders } from '../../test/render.tsx';
import { PAGE_SIZE } from './article-queries.ts';
import InsightsPage, { pageFrom } from './insights-page.tsx';

const summary = (n: number): TArticleSummary => ({
  id: `a${n}`,
  slug: `article-${n}`,
  title: `Article ${n}`,
  category: 'Automation',
  excerpt: `Excerpt of article ${n}.`,
  createdAt: '2025-03-15T12:00:00.000Z',
  readTime: '4 min read',
});

/** The list API: `total` published articles, newest (highest number) first. */
function stubList(total: number) {
  return stubFetch(
    Object.fromEntries(
      Array.from({ length: Math.max(1, Math.ceil(total / 12)) + 1 }, (_, index) => {
        const offset = index * 12;
        const items = Array.from({ length: Math.max(0, Math.min(12, total - offset)) }, (_, i) => summary(total - offset - i));
        const response = () => new Response(JSON.stringify(items), { headers: { 'content-type': 'application/json', 'x-total-count': String(total) } });
        return [`GET /api/articles?limit=12&offset=${offset}`, response];
      }),
    ),
  );
}

const titles = () => screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);

describe('InsightsPage', () => {
  it('pages by the contract page size', () => {
    expect(PAGE_SIZE).toBe(ARTICLES_PAGE_SIZE);
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
