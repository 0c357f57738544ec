import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TArticle, TArticleRevision, TArticleRevisionSummary } from '../../../../contracts/articles.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import { notify } from '../../../lib/notify.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { sampleArticle } from '../../../test/sample-article.ts';
import { ArticleRevisions } from './article-revisions.tsx';

beforeEach(() => vi.clearAllMocks());

const ID = '00000000-0000-4000-8000-000000000001';
const saved: TArticle = sampleArticle({
  id: ID,
  slug: 'an-article',
  title: 'The saved title',
  excerpt: 'The saved excerpt of the article.',
  content: '# Heading\n\nA paragraph that stays.\nThe saved line.\nAnother paragraph that stays.',
  readTime: '5 min read',
  published: true,
  status: 'published',
  createdAt: '2026-03-01T08:00:00.000Z',
  publishedAt: '2026-03-01T08:00:00.000Z',
  updatedAt: '2026-03-04T09:05:00.000Z',
});
const summary = (number: number, author: TArticleRevisionSummary['author']): TArticleRevisionSummary => ({
  id: `00000000-0000-4000-8000-00000000010${number}`,
  number,
  createdAt: `2026-03-0${number}T09:05:00.000Z`,
  author,
});
const older: TArticleRevision = {
  ...summary(1, null),
  fields: { title: 'The first title', category: 'Automation', excerpt: saved.excerpt, readTime: saved.readTime, content: '# Heading\n\nA paragraph that stays.\nThe first line.\nAnother paragraph that stays.' },
};

function stubRevisionsApi() {
  return stubFetch({
    [`GET /api/admin/articles/${ID}/revisions`]: () => jsonResponse({ revisions: [summary(2, { id: 'u1', name: 'Ada Admin' }), summary(1, null)] }),
    [`GET /api/admin/articles/${ID}/revisions/${older.id}`]: () => jsonResponse(older),
    [`POST /api/articles/${ID}/revisions/${older.id}/restore`]: () => jsonResponse({ ...saved, title: older.fields.title, content: older.fields.content }),
  });
}

describe('ArticleRevisions', () => {
  it('lists the revisions with time and author; compares one with the saved text, field by field and line by line, and restores it', async () => {
    setSettingsTimeZone('UTC');
    const fetch = stubRevisionsApi();
    const success = vi.spyOn(notify, 'success');
    renderWithProviders(<ArticleRevisions article={saved} />, { auth: signedInAs('admin'), path: `/admin/articles/${ID}/edit` });

    const list = await screen.findByRole('list', { name: 'Revisions of this article' });
    const [newest, first] = within(list).getAllByRole('listitem');
    expect(newest).toHaveTextContent('Revision 2 (the saved text)');
    expect(newest).toHaveTextContent('Mar 2, 2026 09:05 UTC · Ada Admin');
    expect(within(newest!).queryByRole('button')).toBeNull();
    expect(first).toHaveTextContent('Mar 1, 2026 09:05 UTC · an account that is gone');

    await userEvent.click(within(first!).getByRole('button', { name: 'Compare revision 1 with the saved text' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revision 1 and the saved text' });
    // Only the fields that differ; in each, what a restore removes and adds.
    expect(within(dialog).getAllByRole('heading', { level: 3 }).map((h) => h.textContent)).toEqual(['Title', 'Content']);
    const content = within(dialog).getByRole('region', { name: 'Content' });
    expect(content.querySelector('del')).toHaveTextContent('Removed: − The saved line.');
    expect(content.querySelector('ins')).toHaveTextContent('Added: + The first line.');
    expect(within(content).getAllByText(/paragraph that stays/)).toHaveLength(2);

    await userEvent.click(within(dialog).getByRole('button', { name: 'Restore revision 1' }));
    await vi.waitFor(() => expect(success).toHaveBeenCalledWith('Success!', 'Revision 1 restored'));
    expect(fetch.requests.some((r) => r.method === 'POST' && r.url.endsWith(`/revisions/${older.id}/restore`))).toBe(true);
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('says so when a revision’s text is the saved text', async () => {
    stubFetch({
      [`GET /api/admin/articles/${ID}/revisions`]: () => jsonResponse({ revisions: [summary(2, null), summary(1, null)] }),
      [`GET /api/admin/articles/${ID}/revisions/${older.id}`]: () =>
        jsonResponse({ ...older, fields: { title: saved.title, category: saved.category, excerpt: saved.excerpt, readTime: saved.readTime, content: saved.content } }),
    });
    renderWithProviders(<ArticleRevisions article={saved} />, { auth: signedInAs('admin'), path: `/admin/articles/${ID}/edit` });
    await userEvent.click(await screen.findByRole('button', { name: 'Compare revision 1 with the saved text' }));
    expect(await screen.findByText('This revision’s text is the same as the saved text.')).toBeVisible();
  });
});
