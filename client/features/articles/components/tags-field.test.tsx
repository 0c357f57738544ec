import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { sampleArticle } from '../../../test/sample-article.ts';
import CreateArticlePage from './create-article-page.tsx';
import EditArticlePage from './edit-article-page.tsx';

const ADMIN = signedInAs('admin', { id: '00000000-0000-4000-8000-0000000000ad' });
const set = (name: string, value: string) => fireEvent.change(screen.getByRole('textbox', { name }), { target: { value } });
const tagsInput = () => screen.getByRole('textbox', { name: 'Tags' });
const chips = () => within(screen.getByRole('list', { name: 'Tags added' })).getAllByRole('listitem').map((item) => item.textContent);

function fillSpecFields() {
  set('Title', 'Automating invoices');
  set('Category', 'Automation');
  set('Excerpt', 'How we automated invoice processing.');
  set('Content', 'A'.repeat(60));
}

describe('Tags', () => {
  it('adds a chip on Enter and on a comma, merges a name already there, removes with Backspace and ×, and sends the tags with the article', async () => {
    const { requests } = stubFetch({ 'POST /api/articles': () => jsonResponse(sampleArticle(), 201) });
    renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
    fillSpecFields();
    await userEvent.click(tagsInput());
    await userEvent.keyboard('Finance{Enter}');
    // Enter adds the tag and does not submit the form.
    expect(requests).toHaveLength(0);
    await userEvent.keyboard('AI,');
    await userEvent.keyboard('finance{Enter}');
    await userEvent.keyboard('Ops,');
    expect(chips()).toEqual(['Finance', 'AI', 'Ops']);
    expect(tagsInput()).toHaveValue('');

    // Backspace in the empty field takes the last one off; a chip's button removes it.
    await userEvent.keyboard('{Backspace}');
    expect(chips()).toEqual(['Finance', 'AI']);
    await userEvent.click(screen.getByRole('button', { name: 'Remove tag Finance' }));
    expect(chips()).toEqual(['AI']);

    // What is typed when the form is sent is a tag too (leaving the field adds it).
    await userEvent.type(tagsInput(), 'Data');
    await userEvent.click(screen.getByRole('button', { name: 'Create Article' }));
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]!.body).toMatchObject({ category: 'Automation', tags: ['AI', 'Data'] });
  });

  it('says the rule for a tag the schema refuses, and sends nothing', async () => {
    const { fetchMock } = stubFetch({});
    renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
    fillSpecFields();
    await userEvent.type(tagsInput(), 'x{Enter}');
    await userEvent.click(screen.getByRole('button', { name: 'Create Article' }));
    expect(await screen.findByText('Each tag must be at least 2 characters')).toBeInTheDocument();
    expect(tagsInput()).toHaveAttribute('aria-invalid', 'true');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("starts with the article's further tags (the category is the first) and saves a change", async () => {
    const article = sampleArticle({ tags: [{ name: 'Automation', slug: 'automation' }, { name: 'Finance', slug: 'finance' }, { name: 'AI', slug: 'ai' }] });
    const { requests } = stubFetch({
      [`GET /api/admin/articles/${article.id}`]: { body: article },
      [`PATCH /api/articles/${article.id}`]: () => jsonResponse(article),
      [`GET /api/admin/articles/${article.id}/revisions`]: { body: { revisions: [] } },
      [`GET /api/admin/articles/${article.id}/preview-links`]: { body: { links: [] } },
    });
    renderWithProviders(
      <Routes>
        <Route path="/admin/articles/:id/edit" element={<EditArticlePage />} />
        <Route path="*" element={null} />
      </Routes>,
      { auth: ADMIN, path: `/admin/articles/${article.id}/edit` },
    );
    await screen.findByRole('textbox', { name: 'Tags' });
    expect(chips()).toEqual(['Finance', 'AI']);
    await userEvent.click(screen.getByRole('button', { name: 'Remove tag AI' }));
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await vi.waitFor(() => expect(requests.some((request) => request.method === 'PATCH')).toBe(true));
    expect(requests.find((request) => request.method === 'PATCH')!.body).toMatchObject({ tags: ['Finance'] });
  });
});
