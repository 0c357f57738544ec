import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TArticle } from '../../../../contracts/articles.ts';
import { jsonResponse, stubFetch, type StubRequest } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import AdminArticlesPage from './admin-articles-page.tsx';
import { notify } from '../../../lib/notify.ts';


beforeEach(() => vi.clearAllMocks());

/** Published unless told; `published: false` alone makes a draft, as the API would say. */
const article = (n: number, overrides: Partial<TArticle> = {}): TArticle => ({
  id: `00000000-0000-4000-8000-00000000000${n}`,
  slug: `article-${n}`,
  title: `Article ${n}`,
  category: `Category ${n}`,
  excerpt: `Excerpt of article ${n}.`,
  content: 'x'.repeat(60),
  readTime: '5 min read',
  published: true,
  status: overrides.published === false ? 'draft' : 'published',
  publishAt: null,
  authorId: null,
  createdAt: `2025-0${n}-15T12:00:00.000Z`,
  publishedAt: `2025-0${n}-15T12:00:00.000Z`,
  updatedAt: `2025-0${n}-15T12:00:00.000Z`,
  metaTitle: null,
  metaDescription: null,
  canonicalUrl: null,
  tags: [],
  coverImageId: null,
  coverAlt: null,
  cover: null,
  ...overrides,
});

/** A small fake of the admin articles API. */
function stubArticlesApi(initial: TArticle[]) {
  let articles = initial;
  const routes: Record<string, (request: StubRequest) => Response> = { 'GET /api/admin/articles': () => jsonResponse(articles) };
  for (const a of initial) {
    routes[`PATCH /api/articles/${a.id}`] = (request) => {
      // As the API does: `published` sets the status too.
      const body = request.body as Partial<TArticle>;
      const status = body.published === undefined ? undefined : body.published ? 'published' : 'draft';
      articles = articles.map((x) => (x.id === a.id ? { ...x, ...body, ...(status ? { status } : {}) } : x));
      return jsonResponse(articles.find((x) => x.id === a.id));
    };
    routes[`DELETE /api/articles/${a.id}`] = () => {
      articles = articles.filter((x) => x.id !== a.id);
      return new Response(null, { status: 204 });
    };
  }
  return stubFetch(routes);
}

const renderPage = () => renderWithProviders(<AdminArticlesPage />, { auth: signedInAs('admin'), path: '/admin/articles' });
/** The table (wider screens); a phone gets the list instead (CSS picks one, both are in the DOM). */
const table = async () => within(await screen.findByRole('table', { name: 'All articles' }));

describe('AdminArticlesPage', () => {
  it('lists every article with its status, a link to its page and its actions', async () => {
    // Dates are read in a named zone, never the machine's (docs/decisions/0066).
    setSettingsTimeZone('Asia/Tokyo');
    stubArticlesApi([article(2, { published: false }), article(1)]);
    renderPage();
    const table = await screen.findByRole('table', { name: 'All articles' });
    const [draft, live] = within(table).getAllByRole('row').slice(1);
    expect(within(draft!).getByRole('link', { name: 'Article 2' })).toHaveAttribute('href', '/insights/article-2');
    expect(draft).toHaveTextContent('Category 2');
    expect(draft).toHaveTextContent('Draft');
    expect(draft).toHaveTextContent('Feb 15, 2025'); // as every article date (docs/decisions/0066)
    expect(within(draft!).getByRole('button', { name: 'Publish Article 2' })).toBeInTheDocument();
    expect(within(draft!).getByRole('link', { name: 'Edit Article 2' })).toHaveAttribute('href', `/admin/articles/${article(2).id}/edit`);
    expect(live).toHaveTextContent('Published');
    expect(within(live!).getByRole('button', { name: 'Unpublish Article 1' })).toBeInTheDocument();
  });

  it('gives a phone one block per article with the same facts and actions', async () => {
    // Dates are read in a named zone, never the machine's (docs/decisions/0066).
    setSettingsTimeZone('Asia/Tokyo');
    stubArticlesApi([article(2, { published: false })]);
    renderPage();
    const list = within(await screen.findByRole('list', { name: 'All articles' }));
    const [item] = list.getAllByRole('listitem');
    expect(within(item!).getByRole('link', { name: 'Article 2' })).toHaveAttribute('href', '/insights/article-2');
    expect(item).toHaveTextContent('Category 2·Draft·Feb 15, 2025');
    expect(within(item!).getByRole('link', { name: 'Edit Article 2' })).toHaveAttribute('href', `/admin/articles/${article(2).id}/edit`);
    expect(within(item!).getByRole('button', { name: 'Publish Article 2' })).toBeInTheDocument();
    expect(within(item!).getByRole('button', { name: 'Delete Article 2' })).toBeInTheDocument();
  });

  it('says when a scheduled article goes public, in the zone times are shown in (docs/decisions/0098)', async () => {
    setSettingsTimeZone('Asia/Tokyo');
    stubArticlesApi([article(3, { published: false, status: 'scheduled', publishAt: '2026-12-01T00:30:00.000Z' })]);
    renderPage();
    expect(await (await table()).findByRole('row', { name: /Article 3/ })).toHaveTextContent('Scheduled for Dec 1, 2026 09:30 GMT+9');
  });

  it('publishes a draft with PATCH {published: true} and shows the refreshed list', async () => {
    const { requests } = stubArticlesApi([article(2, { published: false })]);
    renderPage();
    await userEvent.click((await table()).getByRole('button', { name: 'Publish Article 2' }));
    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Success!', 'Article published'));
    expect(requests).toContainEqual({ method: 'PATCH', url: `/api/articles/${article(2).id}`, body: { published: true } });
    expect(await (await table()).findByRole('button', { name: 'Unpublish Article 2' })).toBeInTheDocument();
    expect(screen.getByRole('row', { name: /Article 2/ })).toHaveTextContent('Published');
  });

  it('unpublishes with PATCH {published: false}', async () => {
    const { requests } = stubArticlesApi([article(1)]);
    renderPage();
    await userEvent.click((await table()).getByRole('button', { name: 'Unpublish Article 1' }));
    await vi.waitFor(() => expect(requests).toContainEqual({ method: 'PATCH', url: `/api/articles/${article(1).id}`, body: { published: false } }));
  });

  it('asks before deleting; Cancel sends nothing, Delete sends DELETE and removes the row', async () => {
    const { requests } = stubArticlesApi([article(1), article(2)]);
    renderPage();
    await userEvent.click((await table()).getByRole('button', { name: 'Delete Article 1' }));
    let dialog = screen.getByRole('dialog', { name: 'Delete this article?' });
    expect(dialog).toHaveTextContent('Article 1');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false);

    await userEvent.click((await table()).getByRole('button', { name: 'Delete Article 1' }));
    dialog = screen.getByRole('dialog', { name: 'Delete this article?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requests).toContainEqual({ method: 'DELETE', url: `/api/articles/${article(1).id}`, body: undefined });
    expect(notify.success).toHaveBeenCalledWith('Success!', 'Article deleted');
    await vi.waitFor(() => expect(screen.queryAllByRole('link', { name: 'Article 1' })).toHaveLength(0));
    expect((await table()).getByRole('link', { name: 'Article 2' })).toBeInTheDocument();
  });

  it('toasts a failed action', async () => {
    stubFetch({
      'GET /api/admin/articles': { body: [article(1)] },
      [`PATCH /api/articles/${article(1).id}`]: { status: 403, body: { error: 'Forbidden' } },
    });
    renderPage();
    await userEvent.click((await table()).getByRole('button', { name: 'Unpublish Article 1' }));
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Error', '403: Forbidden'));
  });

  it('has an empty state', async () => {
    stubArticlesApi([]);
    renderPage();
    expect(await screen.findByText('No articles yet.')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'All articles' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Create Article' })).toHaveAttribute('href', '/create-article');
  });
});
