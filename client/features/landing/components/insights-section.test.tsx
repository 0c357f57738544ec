import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { TArticleSummary } from '../../../../contracts/articles.ts';
import { never, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import { InsightsSection } from './insights-section.tsx';

const article = (n: number, overrides: Partial<TArticleSummary> = {}): TArticleSummary => ({
  id: `a${n}`,
  slug: `article-${n}`,
  title: `Article ${n}`,
  category: `Category ${n}`,
  excerpt: `Excerpt of article ${n}.`,
  createdAt: `2025-0${n}-15T12:00:00.000Z`,
  publishedAt: `2025-0${n}-15T12:00:00.000Z`,
  readTime: `${n} min read`,
  cover: null,
  ...overrides,
});

const section = () => screen.getByRole('region', { name: 'Latest Insights' });

describe('InsightsSection', () => {
  it('asks for at most three articles and shows three grey pulsing placeholders while loading', () => {
    const { requests } = stubFetch({ 'GET /api/articles?limit=3': () => never() });
    renderWithProviders(<InsightsSection />);
    const placeholders = within(section()).getAllByTestId('insight-placeholder');
    expect(placeholders).toHaveLength(3);
    for (const placeholder of placeholders) expect(placeholder.querySelector('.animate-pulse.bg-slate-200')).not.toBeNull();
    expect(within(section()).getByRole('list', { name: 'Loading articles' })).toHaveAttribute('aria-busy', 'true');
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/articles?limit=3']);
  });

  it('shows each article as a card: category badge, clamped title and excerpt, local date, read time', async () => {
    // Dates are read in a named zone, never the machine's (docs/decisions/0066).
    setSettingsTimeZone('Asia/Tokyo');
    const articles = [article(1), article(2), article(3)];
    stubFetch({ 'GET /api/articles?limit=3': { body: articles } });
    renderWithProviders(<InsightsSection />);

    const titles = await within(section()).findAllByRole('heading', { level: 3 });
    expect(titles.map((t) => t.textContent)).toEqual(['Article 1', 'Article 2', 'Article 3']);
    for (const [index, item] of articles.entries()) {
      const card = within(section()).getAllByRole('listitem')[index]!;
      expect(within(card).getByText(item.category)).toBeInTheDocument();
      expect(within(card).getByRole('heading', { name: item.title })).toHaveClass('line-clamp-2');
      expect(within(card).getByText(item.excerpt)).toHaveClass('line-clamp-3');
      const date = within(card).getByText(`${['Jan', 'Feb', 'Mar'][index]} 15, 2025`);
      expect(date.tagName).toBe('TIME');
      expect(date).toHaveAttribute('datetime', item.createdAt);
      expect(within(card).getByText(item.readTime)).toBeInTheDocument();
      expect(within(card).getByRole('link', { name: item.title })).toHaveAttribute('href', `/insights/${item.slug}`);
    }
    expect(within(section()).queryByTestId('insight-placeholder')).not.toBeInTheDocument();
  });

  it('never shows more than three cards', async () => {
    stubFetch({ 'GET /api/articles?limit=3': { body: [article(1), article(2), article(3), article(4)] } });
    renderWithProviders(<InsightsSection />);
    expect(await within(section()).findAllByRole('heading', { level: 3 })).toHaveLength(3);
  });

  it('says "No articles published yet." when there are none', async () => {
    stubFetch({ 'GET /api/articles?limit=3': { body: [] } });
    renderWithProviders(<InsightsSection />);
    expect(await within(section()).findByText('No articles published yet.')).toBeInTheDocument();
  });

  it('shows no error state (and no empty message) when loading fails', async () => {
    const { fetchMock } = stubFetch({ 'GET /api/articles?limit=3': { status: 500, body: { error: 'Internal Server Error' } } });
    renderWithProviders(<InsightsSection />);
    await vi.waitFor(() => expect(within(section()).queryByTestId('insight-placeholder')).not.toBeInTheDocument());
    expect(fetchMock).toHaveBeenCalledOnce();
    expect(within(section()).queryByRole('alert')).not.toBeInTheDocument();
    expect(within(section()).queryByText(/error|failed/i)).not.toBeInTheDocument();
    expect(within(section()).queryByText('No articles published yet.')).not.toBeInTheDocument();
  });

  it('links View All Insights to /insights', () => {
    stubFetch({ 'GET /api/articles?limit=3': () => never() });
    renderWithProviders(<InsightsSection />);
    expect(within(section()).getByRole('link', { name: 'View All Insights' })).toHaveAttribute('href', '/insights');
  });
});
