import { screen, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { TPublicArticle } from '../../../../contracts/articles.ts';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { sampleArticle } from '../../../test/sample-article.ts';
import { initialsOf } from './article-extras.tsx';
import ArticlePage from './article-page.tsx';
import TagPage from './tag-page.tsx';

const TAGS = [
  { name: 'Automation', slug: 'automation' },
  { name: 'Finance', slug: 'finance' },
];
const RELATED = [
  { slug: 'closing-the-books', title: 'Closing the books faster', excerpt: 'Month-end in two days.', category: 'Finance', publishedAt: '2025-04-01T10:00:00.000Z' },
  { slug: 'ocr-that-works', title: 'OCR that works', excerpt: 'Reading invoices reliably.', category: 'Automation', publishedAt: '2025-03-01T10:00:00.000Z' },
];

function renderArticle(article: Partial<TPublicArticle>) {
  stubFetch({ 'GET /api/articles/automating-invoices': { body: sampleArticle({ published: true, status: 'published', tags: TAGS, ...article }) } });
  return renderWithProviders(
    <Routes>
      <Route path="/insights/:slug" element={<ArticlePage />} />
    </Routes>,
    { path: '/insights/automating-invoices' },
  );
}

describe("an article's tags, author and related articles", () => {
  it('links every tag to its page, shows the author with their photo, and lists the related articles at the end', async () => {
    renderArticle({ author: { name: 'Ada Lovelace', picture: 'https://lh3.googleusercontent.com/a/photo' }, related: RELATED });
    const tags = await screen.findByRole('navigation', { name: 'Tags' });
    expect(within(tags).getAllByRole('link').map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Automation', '/insights/tag/automation'],
      ['Finance', '/insights/tag/finance'],
    ]);
    expect(screen.getByText('Ada Lovelace')).toBeInTheDocument();
    const photo = document.querySelector('img[src="https://lh3.googleusercontent.com/a/photo"]')!;
    // Sized (no layout shift), lazy, no referrer to the photo's host, decorative beside the name.
    expect(photo).toHaveAttribute('width', '32');
    expect(photo).toHaveAttribute('height', '32');
    expect(photo).toHaveAttribute('loading', 'lazy');
    expect(photo).toHaveAttribute('referrerpolicy', 'no-referrer');
    expect(photo).toHaveAttribute('alt', '');

    const related = screen.getByRole('region', { name: 'Related articles' });
    expect(within(related).getAllByRole('link').map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Closing the books faster', '/insights/closing-the-books'],
      ['OCR that works', '/insights/ocr-that-works'],
    ]);
    expect(within(related).getByText('Month-end in two days.')).toBeInTheDocument();
  });

  it('shows initials without a photo, "Unknown author" once the account is gone, and no related section when none shares a tag', async () => {
    const { unmount } = renderArticle({ author: { name: 'Grace Brewster Hopper', picture: null }, related: [] });
    expect(await screen.findByText('Grace Brewster Hopper')).toBeInTheDocument();
    expect(screen.getByText('GH')).toHaveAttribute('aria-hidden', 'true');
    expect(screen.queryByRole('region', { name: 'Related articles' })).not.toBeInTheDocument();
    unmount();

    renderArticle({ author: null });
    expect(await screen.findByText('Unknown author')).toBeInTheDocument();
    expect(document.querySelector('article img')).toBeNull();
  });

  it('keeps hostile tag names and author names as text', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    renderArticle({ tags: [{ name: hostile, slug: 'img-src-x-onerror-alert-1' }], author: { name: `"><script>alert(1)</script>`, picture: null } });
    expect(await screen.findByRole('link', { name: hostile })).toHaveAttribute('href', '/insights/tag/img-src-x-onerror-alert-1');
    expect(screen.getByText('"><script>alert(1)</script>')).toBeInTheDocument();
    expect(document.querySelector('article script, article img')).toBeNull();
  });

  it('makes initials from the first and last names', () => {
    expect(initialsOf('Ada Lovelace')).toBe('AL');
    expect(initialsOf('  plato ')).toBe('P');
    expect(initialsOf('Émile Zola Jr')).toBe('ÉJ');
  });
});

describe('a tag page in the app', () => {
  const renderTag = (slug: string) =>
    renderWithProviders(
      <Routes>
        <Route path="/insights/tag/:slug" element={<TagPage />} />
      </Routes>,
      { path: `/insights/tag/${slug}` },
    );

  it("lists the tag's articles under its name, with its RSS feed", async () => {
    const items = RELATED.map((r, i) => ({ id: `id-${i}`, createdAt: r.publishedAt, readTime: '5 min read', ...r }));
    const { requests } = stubFetch({ 'GET /api/articles/tag/finance?limit=12&offset=0': { body: { tag: { name: 'Finance', slug: 'finance' }, items, total: 2 } } });
    renderTag('finance');
    expect(await screen.findByRole('heading', { level: 1, name: 'Articles tagged Finance' })).toBeInTheDocument();
    expect(requests[0]!.url).toBe('/api/articles/tag/finance?limit=12&offset=0');
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(['Closing the books faster', 'OCR that works']);
    expect(screen.getByRole('link', { name: 'RSS feed of this tag' })).toHaveAttribute('href', '/insights/tag/finance/rss.xml');
    expect(document.title).toMatch(/^Articles tagged Finance · /);
  });

  it('says a tag without published articles is not found', async () => {
    stubFetch({ 'GET /api/articles/tag/nothing?limit=12&offset=0': { status: 404, body: { error: 'Not Found', message: 'Tag not found' } } });
    renderTag('nothing');
    expect(await screen.findByRole('heading', { name: 'Tag not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See all insights' })).toHaveAttribute('href', '/insights');
  });
});
