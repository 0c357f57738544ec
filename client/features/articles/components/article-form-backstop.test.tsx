import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { currentLocation, renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { unsavedWorkKey } from '../lib/unsaved-backstop.ts';
import CreateArticlePage from './create-article-page.tsx';
import EditArticlePage from './edit-article-page.tsx';
import { sampleArticle } from '../../../test/sample-article.ts';

// The article form keeps unsaved work in this browser and offers it back on the next visit.

const ADMIN = signedInAs('admin', { id: '00000000-0000-4000-8000-0000000000ad' });
const NEW_KEY = unsavedWorkKey(ADMIN.user!.id, undefined);

const ARTICLE = sampleArticle();
const EDIT_KEY = unsavedWorkKey(ADMIN.user!.id, ARTICLE.id);

beforeEach(() => {
  localStorage.clear();
  setSettingsTimeZone('UTC');
});

const field = (name: string) => screen.getByRole('textbox', { name });
const set = (name: string, value: string) => fireEvent.change(field(name), { target: { value } });
const stored = (key: string) => JSON.parse(localStorage.getItem(key) ?? 'null') as { savedAt: string; values: Record<string, unknown> } | null;
const keep = (key: string, values: Record<string, unknown>, savedAt = '2026-03-04T09:05:00.000Z') => localStorage.setItem(key, JSON.stringify({ savedAt, values }));
const PROMPT = 'Restore unsaved changes from Mar 4, 2026 09:05 UTC?';

const renderCreate = () => renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
const renderEdit = () =>
  renderWithProviders(
    <Routes>
      <Route path="/admin/articles/:id/edit" element={<EditArticlePage />} />
      <Route path="*" element={null} />
    </Routes>,
    { auth: ADMIN, path: `/admin/articles/${ARTICLE.id}/edit` },
  );

describe('unsaved changes', () => {
  it('are written as the person types, and offered back (with their time) when the form opens again', async () => {
    stubFetch({});
    const first = renderCreate();
    expect(screen.queryByText(/Restore unsaved changes/)).not.toBeInTheDocument();
    set('Title', 'A draft in progress');
    set('Content', '# Half written\n\nThe tab closes here.');
    await vi.waitFor(() => expect(stored(NEW_KEY)?.values).toMatchObject({ title: 'A draft in progress', content: '# Half written\n\nThe tab closes here.' }));
    const { savedAt } = stored(NEW_KEY)!;
    expect(Date.now() - Date.parse(savedAt)).toBeGreaterThanOrEqual(0);
    first.unmount();

    keep(NEW_KEY, stored(NEW_KEY)!.values);
    renderCreate();
    expect(screen.getByText(PROMPT)).toBeVisible();
    // Nothing changes until the person answers.
    expect(field('Title')).toHaveValue('');
    await userEvent.click(screen.getByRole('button', { name: 'Restore' }));
    expect(screen.queryByText(PROMPT)).not.toBeInTheDocument();
    expect(field('Title')).toHaveValue('A draft in progress');
    expect(field('Content')).toHaveValue('# Half written\n\nThe tab closes here.');
    expect(field('Read Time')).toHaveValue('5 min read');
    expect(await screen.findByRole('heading', { name: 'Half written' })).toBeInTheDocument();
  });

  it('the last keystrokes are written when the page is hidden (a closed tab), before the pause ends', () => {
    stubFetch({});
    renderCreate();
    set('Excerpt', 'Written just before closing.');
    window.dispatchEvent(new Event('pagehide'));
    expect(stored(NEW_KEY)?.values).toMatchObject({ excerpt: 'Written just before closing.' });
  });

  it('Discard forgets them and leaves the saved article as it was', async () => {
    stubFetch({ [`GET /api/admin/articles/${ARTICLE.id}`]: { body: ARTICLE } });
    keep(EDIT_KEY, { ...ARTICLE, title: 'A title never saved' });
    renderEdit();
    expect(await screen.findByText(PROMPT)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Discard' }));
    expect(screen.queryByText(PROMPT)).not.toBeInTheDocument();
    expect(field('Title')).toHaveValue(ARTICLE.title);
    expect(localStorage.getItem(EDIT_KEY)).toBeNull();
  });

  it('are not offered when they equal what is saved (and are removed)', async () => {
    stubFetch({ [`GET /api/admin/articles/${ARTICLE.id}`]: { body: ARTICLE } });
    keep(EDIT_KEY, { title: ARTICLE.title, content: ARTICLE.content, published: false });
    renderEdit();
    expect(await screen.findByRole('textbox', { name: 'Title' })).toHaveValue(ARTICLE.title);
    expect(screen.queryByText(/Restore unsaved changes/)).not.toBeInTheDocument();
    expect(localStorage.getItem(EDIT_KEY)).toBeNull();
  });

  it('are kept per article and per person: another article or another admin is not offered them', async () => {
    stubFetch({ [`GET /api/admin/articles/${ARTICLE.id}`]: { body: ARTICLE } });
    keep(NEW_KEY, { title: 'For a new article' });
    keep(unsavedWorkKey('someone-else', ARTICLE.id), { title: 'Another admin’s' });
    renderEdit();
    expect(await screen.findByRole('textbox', { name: 'Title' })).toHaveValue(ARTICLE.title);
    expect(screen.queryByText(/Restore unsaved changes/)).not.toBeInTheDocument();
  });

  it('ignores a corrupt entry and values of the wrong type', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    stubFetch({});
    localStorage.setItem(NEW_KEY, '{not json');
    const first = renderCreate();
    expect(screen.queryByText(/Restore unsaved changes/)).not.toBeInTheDocument();
    first.unmount();

    keep(NEW_KEY, { title: 42, published: 'yes', excerpt: 'A kept excerpt here.', unknownField: 'x' });
    renderCreate();
    await userEvent.click(screen.getByRole('button', { name: 'Restore' }));
    expect(field('Title')).toHaveValue('');
    expect(field('Excerpt')).toHaveValue('A kept excerpt here.');
    expect(screen.getByRole('switch', { name: 'Publish Article' })).toHaveAttribute('aria-checked', 'false');
  });

  it('are cleared by a successful save, and kept when the save fails', async () => {
    let fail = true;
    stubFetch({ 'POST /api/articles': () => (fail ? jsonResponse({ error: 'Service Unavailable' }, 503) : jsonResponse({ ...ARTICLE }, 201)) });
    keep(NEW_KEY, { title: 'Automating invoices', category: 'Automation', excerpt: 'How we automated invoice processing.', content: 'C'.repeat(60) });
    renderCreate();
    await userEvent.click(screen.getByRole('button', { name: 'Restore' }));
    await userEvent.click(screen.getByRole('button', { name: 'Create Article' }));
    await vi.waitFor(() => expect(screen.getByRole('button', { name: 'Create Article' })).toBeEnabled());
    expect(currentLocation()).toBe('/create-article');
    expect(stored(NEW_KEY)?.values).toMatchObject({ content: 'C'.repeat(60) });

    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Create Article' }));
    await vi.waitFor(() => expect(currentLocation()).toBe('/dashboard'));
    expect(localStorage.getItem(NEW_KEY)).toBeNull();
  });
});
