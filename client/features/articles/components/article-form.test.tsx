import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, never, stubFetch } from '../../../test/fetch-stub.ts';
import { currentLocation, renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { Route, Routes } from 'react-router';
import CreateArticlePage from './create-article-page.tsx';
import EditArticlePage from './edit-article-page.tsx';
import { notify } from '../../../lib/notify.ts';
import { sampleArticle } from '../../../test/sample-article.ts';


// The form keeps unsaved work in local storage (lib/unsaved-backstop.ts): none carries over between tests.
beforeEach(() => {
  vi.clearAllMocks();
  localStorage.clear();
});

const ADMIN = signedInAs('admin', { id: '00000000-0000-4000-8000-0000000000ad' });
const VALID = {
  title: 'Automating invoices',
  category: 'Automation',
  excerpt: 'How we automated invoice processing.',
  content: 'A'.repeat(60),
};

const ARTICLE = sampleArticle();

const field = (name: string) => screen.getByRole('textbox', { name });
const set = (name: string, value: string) => fireEvent.change(field(name), { target: { value } });
function fill(values: Partial<typeof VALID> = {}) {
  const all = { ...VALID, ...values };
  set('Title', all.title);
  set('Category', all.category);
  set('Excerpt', all.excerpt);
  set('Content', all.content);
}
const submit = () => userEvent.click(screen.getByRole('button', { name: 'Create Article' }));

/** The message under a field, found through its aria-describedby. */
function errorOf(name: string): string | null {
  const input = field(name);
  if (input.getAttribute('aria-invalid') !== 'true') return null;
  const ids = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id.endsWith('-error'));
  return ids.map((id) => document.getElementById(id)?.textContent).join('') || null;
}

function renderCreate(auth = ADMIN) {
  return renderWithProviders(<CreateArticlePage />, { auth, path: '/create-article' });
}

describe('Create Article form', () => {
  it('has the SPEC fields, the default read time and an unchecked, labelled Publish switch', () => {
    stubFetch({});
    renderCreate();
    expect(screen.getByRole('heading', { level: 1, name: 'Create Article' })).toBeInTheDocument();
    for (const name of ['Title', 'Category', 'Read Time', 'Excerpt', 'Content']) expect(field(name)).toBeInTheDocument();
    expect(field('Read Time')).toHaveValue('5 min read');
    const toggle = screen.getByRole('switch', { name: 'Publish Article' });
    expect(toggle).toHaveAttribute('aria-checked', 'false');
    expect(toggle).toHaveAccessibleDescription('Make this article visible on the website');
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
  });

  it('validates nothing before submit, then shows the SPEC messages under each field', async () => {
    const { fetchMock } = stubFetch({});
    renderCreate();
    set('Title', 'abcd');
    expect(errorOf('Title')).toBeNull();
    await submit();
    expect(errorOf('Title')).toBe('Title must be at least 5 characters');
    expect(errorOf('Category')).toBe('Category is required');
    expect(errorOf('Excerpt')).toBe('Excerpt must be at least 10 characters');
    expect(errorOf('Content')).toBe('Content must be at least 50 characters');
    expect(errorOf('Read Time')).toBeNull();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it.each([
    ['Title', 'a'.repeat(4), 'Title must be at least 5 characters', 'a'.repeat(5)],
    ['Title', 'a'.repeat(201), 'Title must be at most 200 characters', 'a'.repeat(200)],
    ['Category', 'a', 'Category must be at least 2 characters', 'ab'],
    ['Category', 'a'.repeat(51), 'Category must be at most 50 characters', 'a'.repeat(50)],
    ['Excerpt', 'a'.repeat(9), 'Excerpt must be at least 10 characters', 'a'.repeat(10)],
    ['Excerpt', 'a'.repeat(501), 'Excerpt must be at most 500 characters', 'a'.repeat(500)],
    ['Content', 'a'.repeat(49), 'Content must be at least 50 characters', 'a'.repeat(50)],
    // SPEC's messages, each 'too long' stating its limit (issue 29 item 11, decision 0065).
  ])('%s: %#: rejects %s chars with its message and accepts the boundary on change', async (name, bad, message, good) => {
    const { fetchMock } = stubFetch({});
    renderCreate();
    fill({ [name.toLowerCase()]: bad });
    await submit();
    expect(errorOf(name)).toBe(message);
    expect(screen.getByText(message)).toBeVisible();
    expect(fetchMock).not.toHaveBeenCalled();

    // Revalidated on change after a submit.
    set(name, good);
    await vi.waitFor(() => expect(errorOf(name)).toBeNull());
    expect(screen.queryByText(message)).not.toBeInTheDocument();
    set(name, bad);
    await vi.waitFor(() => expect(errorOf(name)).toBe(message));
  });

  it('POSTs the article with authorId, shows Creating... while saving, then toasts and goes to /dashboard', async () => {
    let reply!: (response: Response) => void;
    const { requests } = stubFetch({ 'POST /api/articles': () => new Promise<Response>((resolve) => (reply = resolve)) });
    const rendered = renderCreate();
    const invalidate = vi.spyOn(rendered.queryClient, 'invalidateQueries');
    fill();
    set('Read Time', '');
    await userEvent.click(screen.getByRole('switch', { name: 'Publish Article' }));
    await submit();

    const busy = await screen.findByRole('button', { name: 'Creating...' });
    expect(busy).toBeDisabled();
    expect(requests).toEqual([
      {
        method: 'POST',
        url: '/api/articles',
        body: { ...VALID, readTime: '5 min read', published: true, publishAt: null, authorId: ADMIN.user!.id },
      },
    ]);

    reply(jsonResponse({ ...ARTICLE, published: true }, 201));
    await vi.waitFor(() => expect(currentLocation()).toBe('/dashboard'));
    expect(notify.success).toHaveBeenCalledWith('Success!', 'Article created successfully');
    expect(notify.error).not.toHaveBeenCalled();
    const predicate = invalidate.mock.calls[0]![0]!.predicate!;
    const matches = (url: string) => predicate({ queryKey: [url] } as never);
    expect(['/api/articles?limit=3', '/api/articles?limit=12&offset=0', '/api/articles/x', '/api/admin/articles'].every(matches)).toBe(true);
    expect(matches('/api/users')).toBe(false);
  });

  it("shows the server's message in an error toast and stays on the form", async () => {
    stubFetch({ 'POST /api/articles': { status: 400, body: { error: 'Invalid request', details: [{ path: 'title', message: 'Title must be at most 200 characters' }] } } });
    renderCreate();
    fill();
    await submit();
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Error', '400: Invalid request (title: Title must be at most 200 characters)'));
    expect(notify.success).not.toHaveBeenCalled();
    expect(currentLocation()).toBe('/create-article');
    expect(screen.getByRole('button', { name: 'Create Article' })).toBeEnabled();
  });

  it("falls back to 'Failed to create article' when the error has no message", async () => {
    stubFetch({ 'POST /api/articles': () => Promise.reject(new Error('')) });
    renderCreate();
    fill();
    await submit();
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Error', 'Failed to create article'));
  });

  it('Cancel goes back to /dashboard', async () => {
    stubFetch({});
    renderCreate();
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(currentLocation()).toBe('/dashboard');
  });

  it('denies a non-admin with the SPEC sentence and no form', () => {
    const { fetchMock } = stubFetch({});
    renderCreate(signedInAs('guest'));
    expect(screen.getByText('Access denied. Only administrators can create articles.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Access Denied' })).toBeInTheDocument();
    expect(document.body).toHaveTextContent('Your current role: guest');
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create Article' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Dashboard' })).toHaveAttribute('href', '/dashboard');
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe('Edit Article form', () => {
  const renderEdit = () =>
    renderWithProviders(
      <Routes>
        <Route path="/admin/articles/:id/edit" element={<EditArticlePage />} />
        <Route path="*" element={null} />
      </Routes>,
      { auth: ADMIN, path: `/admin/articles/${ARTICLE.id}/edit` },
    );

  it('is the same form prefilled; Save Changes PATCHes, shows Saving..., toasts and returns to the list', async () => {
    let reply!: (response: Response) => void;
    const { requests } = stubFetch({
      [`GET /api/admin/articles/${ARTICLE.id}`]: { body: ARTICLE },
      [`PATCH /api/articles/${ARTICLE.id}`]: () => new Promise<Response>((resolve) => (reply = resolve)),
    });
    renderEdit();
    expect(await screen.findByRole('textbox', { name: 'Title' })).toHaveValue(ARTICLE.title);
    expect(field('Read Time')).toHaveValue('7 min read');
    expect(field('Content')).toHaveValue(ARTICLE.content);
    expect(screen.queryByRole('button', { name: 'Create Article' })).not.toBeInTheDocument();

    set('Title', 'Automating invoices, revisited');
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByRole('button', { name: 'Saving...' })).toBeDisabled();
    expect(requests.at(-1)).toEqual({
      method: 'PATCH',
      url: `/api/articles/${ARTICLE.id}`,
      body: { title: 'Automating invoices, revisited', category: ARTICLE.category, readTime: '7 min read', excerpt: ARTICLE.excerpt, content: ARTICLE.content, published: false, publishAt: null },
    });
    reply(jsonResponse({ ...ARTICLE, title: 'Automating invoices, revisited' }));
    await vi.waitFor(() => expect(currentLocation()).toBe('/admin/articles'));
    expect(notify.success).toHaveBeenCalledWith('Success!', 'Article updated successfully');
  });

  it('shows the 404 screen for an unknown article', async () => {
    stubFetch({ [`GET /api/admin/articles/${ARTICLE.id}`]: { status: 404, body: { error: 'Not Found' } } });
    renderEdit();
    expect(await screen.findByRole('heading', { name: '404 Page Not Found' })).toBeInTheDocument();
  });

  it('shows a spinner while loading', () => {
    stubFetch({ [`GET /api/admin/articles/${ARTICLE.id}`]: () => never() });
    renderEdit();
    expect(within(document.body).getByRole('status')).toHaveTextContent('Loading article');
  });
});
