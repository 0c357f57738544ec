import { createEvent, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { TArticleImage } from '../../../../contracts/article-images.ts';
import { ArticleMarkdown } from '../../../components/markdown.tsx';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { sampleArticle } from '../../../test/sample-article.ts';
import CreateArticlePage from './create-article-page.tsx';
import EditArticlePage from './edit-article-page.tsx';
import { Route, Routes } from 'react-router';
import { ArticleCard } from '../../../components/article-card.tsx';
import { ArticleView } from './article-view.tsx';

const ADMIN = signedInAs('admin', { id: '00000000-0000-4000-8000-0000000000ad' });
const IMAGE_ID = '00000000-0000-4000-8000-0000000000e1';
const IMAGE: TArticleImage = {
  id: IMAGE_ID,
  width: 1200,
  height: 600,
  urls: [480, 720, 960, 1200].map((width) => ({ width, url: `/media/articles/${IMAGE_ID}/${width}.webp` })),
  markdownUrl: `/media/articles/${IMAGE_ID}/960.webp#1200x600`,
};
/** A cover as the server answers it (docs/decisions/0099). */
const COVER = { alt: 'A chart of invoices', sizes: '(min-width: 1024px) 400px, (min-width: 640px) 50vw, 100vw', loading: 'lazy' as const, src: IMAGE.urls[2]!.url, srcSet: IMAGE.urls.map((u) => `${u.url} ${u.width}w`).join(', '), width: 1200, height: 600 };
const UPLOAD = 'POST /api/articles/images?type=image%2Fpng';
const png = (name = 'chart.png') => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], name, { type: 'image/png' });
const set = (name: string, value: string) => fireEvent.change(screen.getByRole('textbox', { name }), { target: { value } });
const describedText = (name: string) => screen.getByRole('textbox', { name }).getAttribute('aria-describedby')!.split(' ').map((id) => document.getElementById(id)?.textContent).join(' ');
const fillSpecFields = () => {
  set('Title', 'Automating invoices');
  set('Category', 'Automation');
  set('Excerpt', 'How we automated invoice processing.');
  set('Content', 'A'.repeat(60));
};
/** A paste or drop event carrying files (jsdom has no DataTransfer). */
function withFiles(event: Event, key: 'clipboardData' | 'dataTransfer', files: File[]): Event {
  Object.defineProperty(event, key, { value: { files, types: ['Files'] } });
  return event;
}

describe('Cover image', () => {
  it('uploads a chosen file, shows it, requires its alt text, and sends the cover with the article', async () => {
    const { requests, fetchMock } = stubFetch({ [UPLOAD]: () => jsonResponse(IMAGE, 201), 'POST /api/articles': () => jsonResponse(sampleArticle(), 201) });
    renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
    await userEvent.upload(screen.getByLabelText('Cover image file'), png());
    const preview = await screen.findByRole('img', { name: 'Cover preview' });
    expect(preview).toHaveAttribute('srcset', expect.stringContaining(`/media/articles/${IMAGE_ID}/480.webp 480w`));
    // The raw file went as it is, its type in the query.
    const upload = fetchMock.mock.calls.find(([url]) => String(url).startsWith('/api/articles/images'))!;
    expect(upload[1]!.body).toBeInstanceOf(File);

    fillSpecFields();
    await userEvent.click(screen.getByRole('button', { name: 'Create Article' }));
    await vi.waitFor(() => expect(describedText('Cover alt text')).toContain('Cover alt text is required when a cover image is set'));
    expect(requests.filter((r) => r.url === '/api/articles')).toHaveLength(0);

    set('Cover alt text', 'A chart of invoices');
    await userEvent.click(screen.getByRole('button', { name: 'Create Article' }));
    await vi.waitFor(() => expect(requests.filter((r) => r.url === '/api/articles')).toHaveLength(1));
    expect(requests.find((r) => r.url === '/api/articles')!.body).toMatchObject({ coverImageId: IMAGE_ID, coverAlt: 'A chart of invoices' });
  });

  it('takes a dropped or pasted image, says why one is refused, and removes the cover', async () => {
    let refuse = true;
    stubFetch({
      [UPLOAD]: () => (refuse ? jsonResponse({ error: 'Invalid request', details: [{ path: 'data', message: 'The image is 30000 x 30000 pixels; the largest accepted is 16383 pixels on a side' }] }, 400) : jsonResponse(IMAGE, 201)),
    });
    renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
    const zone = screen.getByTestId('cover-drop-zone');
    fireEvent(zone, withFiles(createEvent.drop(zone), 'dataTransfer', [png()]));
    expect(await screen.findByRole('alert')).toHaveTextContent('The image was refused: The image is 30000 x 30000 pixels');
    refuse = false;
    fireEvent(zone, withFiles(createEvent.paste(zone), 'clipboardData', [png()]));
    expect(await screen.findByRole('img', { name: 'Cover preview' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Remove cover image' }));
    expect(screen.queryByRole('img', { name: 'Cover preview' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Choose a cover image' })).toBeInTheDocument();
  });

  it("starts with the article's cover and alt text when editing", async () => {
    const article = sampleArticle({ coverImageId: IMAGE_ID, coverAlt: 'A chart', cover: { ...COVER, alt: 'A chart' } });
    stubFetch({ [`GET /api/admin/articles/${article.id}`]: { body: article } });
    renderWithProviders(
      <Routes>
        <Route path="/admin/articles/:id/edit" element={<EditArticlePage />} />
      </Routes>,
      { auth: ADMIN, path: `/admin/articles/${article.id}/edit` },
    );
    expect(await screen.findByRole('img', { name: 'Cover preview' })).toHaveAttribute('src', `/media/articles/${IMAGE_ID}/1200.webp`);
    expect(screen.getByRole('textbox', { name: 'Cover alt text' })).toHaveValue('A chart');
  });
});

describe('Images in the content', () => {
  const content = () => screen.getByRole('textbox', { name: 'Content' }) as HTMLTextAreaElement;

  it('the image button, a paste and a drop upload the file and insert its Markdown at the cursor, the alt text selected', async () => {
    let answer: (r: Response) => void = () => {};
    stubFetch({ [UPLOAD]: () => new Promise<Response>((resolve) => (answer = resolve)) });
    renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
    set('Content', 'Before. After.');
    content().setSelectionRange(8, 8);
    await userEvent.upload(screen.getByLabelText('Image file to insert'), png());
    // A placeholder at once, replaced when the upload answers.
    expect(content().value).toMatch(/^Before. !\[Uploading chart\.png \(\d+\)…\]\(\)After\.$/);
    answer(jsonResponse(IMAGE, 201));
    await vi.waitFor(() => expect(content().value).toBe(`Before. ![Describe this image](${IMAGE.markdownUrl})After.`));
    expect(content().value.slice(content().selectionStart, content().selectionEnd)).toBe('Describe this image');

    stubFetch({ [UPLOAD]: () => jsonResponse(IMAGE, 201) });
    set('Content', '');
    fireEvent(content(), withFiles(createEvent.paste(content()), 'clipboardData', [png('pasted.png')]));
    await vi.waitFor(() => expect(content().value).toBe(`![Describe this image](${IMAGE.markdownUrl})`));
    set('Content', '');
    fireEvent(content(), withFiles(createEvent.drop(content()), 'dataTransfer', [png('dropped.png')]));
    await vi.waitFor(() => expect(content().value).toBe(`![Describe this image](${IMAGE.markdownUrl})`));
    // (The preview of an inserted image is seen in the browser: tests/e2e/article-images.spec.ts.
    // jsdom's setRangeText goes through React's value tracker, so the form does not see it here.)
  });

  it('a refused file takes its placeholder out and says why', async () => {
    stubFetch({ [UPLOAD]: () => jsonResponse({ error: 'Invalid request', details: [{ path: 'contentType', message: 'the file is a JPEG image, not PNG: send it with its own content type' }] }, 400) });
    renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
    set('Content', 'Text.');
    fireEvent(content(), withFiles(createEvent.paste(content()), 'clipboardData', [png()]));
    expect(await screen.findByRole('alert')).toHaveTextContent('The image was refused: the file is a JPEG image, not PNG');
    expect(content().value).toBe('Text.');
  });
});

describe('the Markdown renderer', () => {
  it('gives our images every width, their size and lazy loading; other images stay as they were', () => {
    render(<ArticleMarkdown>{`![A chart](${IMAGE.markdownUrl})\n\n![Remote](https://example.org/a.png)\n\n![Bad](javascript:alert(1))`}</ArticleMarkdown>);
    const ours = screen.getByRole('img', { name: 'A chart' });
    expect(ours).toHaveAttribute('srcset', [480, 720, 960, 1200].map((w) => `/media/articles/${IMAGE_ID}/${w}.webp ${w}w`).join(', '));
    expect(ours).toHaveAttribute('sizes', '(min-width: 768px) 720px, calc(100vw - 2rem)');
    expect(ours).toHaveAttribute('width', '1200');
    expect(ours).toHaveAttribute('height', '600');
    expect(ours).toHaveAttribute('loading', 'lazy');
    expect(ours.getAttribute('src')).toBe(`/media/articles/${IMAGE_ID}/1200.webp`);
    const remote = screen.getByRole('img', { name: 'Remote' });
    expect(remote).toHaveAttribute('src', 'https://example.org/a.png');
    expect(remote).not.toHaveAttribute('srcset');
    expect(screen.queryByRole('img', { name: 'Bad' })).not.toBeInTheDocument();
  });
});

describe('covers on the pages', () => {
  const cover = COVER;
  it("the article page's cover is its main image: every width, its size, fetched first", () => {
    const article = { ...sampleArticle({ cover: { ...cover, loading: undefined, fetchPriority: 'high', sizes: '(min-width: 768px) 720px, calc(100vw - 2rem)' } }), content: 'Text.' };
    renderWithProviders(<ArticleView shown={{ status: 'success', article }} Body={() => null} />);
    const img = screen.getByRole('img', { name: 'A chart of invoices' });
    expect(img).toHaveAttribute('fetchpriority', 'high');
    expect(img).not.toHaveAttribute('loading');
    expect(img).toHaveAttribute('srcset', expect.stringContaining('1200.webp 1200w'));
    expect(img).toHaveAttribute('width', '1200');
    expect(img).toHaveAttribute('height', '600');
  });

  it("a card's cover loads lazily, sized; a card without one has no image", () => {
    const summary = { id: 'a1', slug: 'a', title: 'Covered', category: 'Automation', excerpt: 'An excerpt.', createdAt: '2025-05-01T10:00:00.000Z', publishedAt: '2025-05-01T10:00:00.000Z', readTime: '5 min read' };
    renderWithProviders(
      <ul>
        <ArticleCard article={{ ...summary, cover }} />
        <ArticleCard article={{ ...summary, id: 'a2', slug: 'b', title: 'Plain', cover: null }} />
      </ul>,
    );
    const images = screen.getAllByRole('img');
    expect(images).toHaveLength(1);
    expect(images[0]).toHaveAttribute('loading', 'lazy');
    expect(images[0]).toHaveAttribute('sizes', '(min-width: 1024px) 400px, (min-width: 640px) 50vw, 100vw');
    expect(images[0]).toHaveAttribute('width', '1200');
  });
});
