import { screen, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import ArticlePage from './article-page.tsx';
import { safeUrl } from '../../../components/markdown.tsx';
import { sampleArticle } from '../../../test/sample-article.ts';

const CONTENT = `## Why automate

Some *emphasis*, **strong** and a [relative link](/insights) and an [external one](https://example.org/page) and [mail](mailto:hi@example.com).

- one
- two

| Tool | Use |
|------|-----|
| n8n  | flows |

\`\`\`ts
const answer = 42;
\`\`\`

Bad: [x](javascript:alert(1)) and [y](JaVaScRiPt:alert(2)) and [z](data:text/html,hi) and <javascript:alert(3)>.

<script>alert('xss')</script>

<img src="x" onerror="alert(1)">

![chart](https://example.org/chart.png) ![evil](javascript:alert(1))
`;

const ARTICLE = sampleArticle({
  slug: 'why-automate',
  title: 'Why automate now',
  excerpt: 'Reasons to automate this quarter.',
  content: CONTENT,
  readTime: '6 min read',
  published: true,
  status: 'published',
  // Its tags, author and related articles are article-extras.test.tsx's.
  tags: [],
});

const renderAt = (slug: string) =>
  renderWithProviders(
    <Routes>
      <Route path="/insights/:slug" element={<ArticlePage />} />
    </Routes>,
    { path: `/insights/${slug}` },
  );

afterEach(() => {
  document.querySelector('meta[name="description"]')?.remove();
});

describe('ArticlePage', () => {
  it('shows the title, category, local date and read time, and sets the page title and description', async () => {
    // Dates are read in a named zone, never the machine's (docs/decisions/0066).
    setSettingsTimeZone('Asia/Tokyo');
    const meta = document.createElement('meta');
    meta.name = 'description';
    meta.content = 'Site description';
    document.head.append(meta);
    const { requests, fetchMock } = stubFetch({ 'GET /api/articles/why-automate': { body: ARTICLE } });
    const { unmount } = renderAt('why-automate');

    expect(await screen.findByRole('heading', { level: 1, name: 'Why automate now' })).toBeInTheDocument();
    expect(requests[0]!.url).toBe('/api/articles/why-automate');
    const article = screen.getByRole('article');
    expect(within(article).getByText('Automation')).toBeInTheDocument();
    expect(within(article).getByText('May 1, 2025').tagName).toBe('TIME');
    expect(within(article).getByText('6 min read')).toBeInTheDocument();
    expect(document.title).toMatch(/^Why automate now · /);
    expect(meta.content).toBe('Reasons to automate this quarter.');
    expect(fetchMock).toHaveBeenCalledOnce();

    unmount();
    expect(meta.content).toBe('Site description');
  });

  it("takes the page's title and description from the article's meta title and description when it has them, the title as written", async () => {
    const meta = document.createElement('meta');
    meta.name = 'description';
    meta.content = 'Site description';
    document.head.append(meta);
    stubFetch({ 'GET /api/articles/why-automate': { body: { ...ARTICLE, metaTitle: 'Automation, now', metaDescription: 'Four reasons, in numbers.' } } });
    renderAt('why-automate');
    expect(await screen.findByRole('heading', { level: 1, name: 'Why automate now' })).toBeInTheDocument();
    expect(document.title).toBe('Automation, now');
    expect(meta.content).toBe('Four reasons, in numbers.');
  });

  it('renders Markdown: headings, emphasis, lists, a table, a code block, links', async () => {
    stubFetch({ 'GET /api/articles/why-automate': { body: ARTICLE } });
    renderAt('why-automate');
    const article = await screen.findByRole('article');
    expect(within(article).getByRole('heading', { level: 2, name: 'Why automate' })).toBeInTheDocument();
    expect(within(article).getByText('emphasis').tagName).toBe('EM');
    expect(within(article).getByText('strong').tagName).toBe('STRONG');
    expect(within(article).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['one', 'two']);
    const table = within(article).getByRole('table');
    expect(within(table).getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Tool', 'Use']);
    expect(within(table).getByRole('cell', { name: 'flows' })).toBeInTheDocument();
    const code = article.querySelector('pre > code');
    expect(code).toHaveTextContent('const answer = 42;');
  });

  it('opens other origins in a new tab without an opener; keeps same-origin and mailto links in place', async () => {
    stubFetch({ 'GET /api/articles/why-automate': { body: ARTICLE } });
    renderAt('why-automate');
    const article = await screen.findByRole('article');
    const external = within(article).getByRole('link', { name: 'external one' });
    expect(external).toHaveAttribute('href', 'https://example.org/page');
    expect(external).toHaveAttribute('target', '_blank');
    expect(external).toHaveAttribute('rel', 'noopener noreferrer');
    const relative = within(article).getByRole('link', { name: 'relative link' });
    expect(relative).toHaveAttribute('href', '/insights');
    expect(relative).not.toHaveAttribute('target');
    expect(within(article).getByRole('link', { name: 'mail' })).toHaveAttribute('href', 'mailto:hi@example.com');
  });

  it('neutralises javascript: and data: links, raw <script> and <img onerror>', async () => {
    stubFetch({ 'GET /api/articles/why-automate': { body: ARTICLE } });
    renderAt('why-automate');
    const article = await screen.findByRole('article');
    expect(article.querySelector('script')).toBeNull();
    expect(document.querySelector('[onerror]')).toBeNull();
    for (const link of document.querySelectorAll('a')) {
      expect(link.getAttribute('href') ?? '').not.toMatch(/^\s*(javascript|data|vbscript):/i);
    }
    for (const element of article.querySelectorAll('*')) {
      for (const attribute of element.attributes) expect(attribute.value).not.toMatch(/javascript:/i);
    }
    // The link text stays, without a link.
    expect(within(article).getByText('x').closest('a')).toBeNull();
    expect(within(article).queryByRole('link', { name: 'z' })).not.toBeInTheDocument();
    // Images: only the http(s) one, lazy and with its alt text.
    const images = within(article).getAllByRole('img');
    expect(images).toHaveLength(1);
    expect(images[0]).toHaveAttribute('src', 'https://example.org/chart.png');
    expect(images[0]).toHaveAttribute('alt', 'chart');
    expect(images[0]).toHaveAttribute('loading', 'lazy');
  });

  it('says an unknown or unpublished article is not found, with a link to the others and no hint for developers', async () => {
    stubFetch({ 'GET /api/articles/nope': { status: 404, body: { error: 'Not Found' } } });
    renderAt('nope');
    expect(await screen.findByRole('heading', { level: 1, name: 'Article not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See all insights' })).toHaveAttribute('href', '/insights');
    expect(screen.queryByText(/Did you forget to add the page to the router/)).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: '404 Page Not Found' })).not.toBeInTheDocument();
    expect(document.title).toMatch(/^Article not found · /);
  });

  it('shows other failures with a retry', async () => {
    stubFetch({ 'GET /api/articles/why-automate': { status: 500, body: { error: 'Internal Server Error' } } });
    renderAt('why-automate');
    expect(await screen.findByRole('alert')).toHaveTextContent('500: Internal Server Error');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});

describe('safeUrl', () => {
  it('keeps http(s), mailto and relative URLs and empties the rest', () => {
    for (const url of ['https://example.org/a?b#c', 'http://example.org', 'mailto:a@b.c', '/insights', 'page', '#top', '?q=1', '//example.org/x']) {
      expect(safeUrl(url)).toBe(url);
    }
    for (const url of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', ' javascript:alert(1)', 'java\tscript:alert(1)', 'java\nscript:alert(1)', 'data:text/html,x', 'vbscript:x', 'file:///etc/passwd', 'tel:123', 'blob:https://x/y']) {
      expect(safeUrl(url), JSON.stringify(url)).toBe('');
    }
  });
});
