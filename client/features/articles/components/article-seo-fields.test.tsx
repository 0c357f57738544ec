import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { sampleArticle } from '../../../test/sample-article.ts';
import CreateArticlePage from './create-article-page.tsx';
import EditArticlePage from './edit-article-page.tsx';

const ADMIN = signedInAs('admin', { id: '00000000-0000-4000-8000-0000000000ad' });
const ARTICLE = sampleArticle({ published: true, status: 'published', metaTitle: 'Invoices, automated' });

const toggle = () => screen.getByRole('button', { name: 'Search and social' });
const set = (name: string, value: string) => fireEvent.change(screen.getByRole('textbox', { name }), { target: { value } });
const describedText = (name: string) => screen.getByRole('textbox', { name }).getAttribute('aria-describedby')!.split(' ').map((id) => document.getElementById(id)?.textContent).join(' ');

describe('Search and social', () => {
  it('is closed on a new article, opens from the keyboard, and sends the fields it was given with the article', async () => {
    const { requests } = stubFetch({ 'POST /api/articles': () => jsonResponse(ARTICLE, 201) });
    renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
    expect(toggle()).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('textbox', { name: 'Meta title' })).not.toBeInTheDocument();

    toggle().focus();
    await userEvent.keyboard('{Enter}');
    expect(toggle()).toHaveAttribute('aria-expanded', 'true');
    expect(describedText('Meta title')).toContain('at most 70 characters');
    set('Title', 'Automating invoices');
    set('Category', 'Automation');
    set('Excerpt', 'How we automated invoice processing.');
    set('Content', 'A'.repeat(60));
    set('Meta title', '  Invoices, automated  ');
    set('Canonical URL', 'https://blog.example.com/invoices');
    await userEvent.click(screen.getByRole('button', { name: 'Create Article' }));
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]!.body).toMatchObject({ metaTitle: 'Invoices, automated', canonicalUrl: 'https://blog.example.com/invoices' });
    expect(requests[0]!.body).not.toHaveProperty('metaDescription');
  });

  it("opens on an error in its fields and shows the rule's message there; nothing is sent", async () => {
    const { fetchMock } = stubFetch({});
    renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
    await userEvent.click(toggle());
    set('Meta title', 'x'.repeat(71));
    set('Canonical URL', 'javascript:alert(1)');
    await userEvent.click(toggle());
    expect(toggle()).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(screen.getByRole('button', { name: 'Create Article' }));
    await vi.waitFor(() => expect(toggle()).toHaveAttribute('aria-expanded', 'true'));
    expect(describedText('Meta title')).toContain('Meta title must be at most 70 characters');
    expect(describedText('Canonical URL')).toContain('Canonical URL must be an absolute http:// or https:// address');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("starts open with the article's values when it has one, and an emptied field is sent as null", async () => {
    const { requests } = stubFetch({
      [`GET /api/admin/articles/${ARTICLE.id}`]: { body: ARTICLE },
      [`PATCH /api/articles/${ARTICLE.id}`]: () => jsonResponse({ ...ARTICLE, metaTitle: null }),
    });
    renderWithProviders(
      <Routes>
        <Route path="/admin/articles/:id/edit" element={<EditArticlePage />} />
        <Route path="*" element={null} />
      </Routes>,
      { auth: ADMIN, path: `/admin/articles/${ARTICLE.id}/edit` },
    );
    expect(await screen.findByRole('textbox', { name: 'Meta title' })).toHaveValue('Invoices, automated');
    expect(toggle()).toHaveAttribute('aria-expanded', 'true');
    set('Meta title', '');
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await vi.waitFor(() => expect(requests.some((request) => request.method === 'PATCH')).toBe(true));
    const patch = requests.find((request) => request.method === 'PATCH')!;
    expect(patch.body).toMatchObject({ metaTitle: null });
    expect(patch.body).not.toHaveProperty('metaDescription');
    expect(patch.body).not.toHaveProperty('canonicalUrl');
  });
});
