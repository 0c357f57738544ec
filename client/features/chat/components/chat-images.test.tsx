import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TChatImage, TChatProvider } from '../../../../contracts/chat.ts';
import { jsonResponse, stubFetch, type StubRequest } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import ChatScreen from './chat-screen.tsx';

// Images in a question (docs/decisions/0055): picked, pasted or dropped, checked against the
// model, uploaded at once, shown as thumbnails with a remove button, sent with the question.

const PROVIDERS = { 'GET /api/chat/providers': { body: { providers: [] } } };
const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYGD4DwABBAEAghC0DgAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
const file = (name: string, type = 'image/png', bytes: Uint8Array<ArrayBuffer> = PNG) => new File([bytes], name, { type });
const streamed = (text: string) =>
  new Response(`event: delta\ndata: ${JSON.stringify({ text })}\n\nevent: done\ndata: ${JSON.stringify({ model: 'gpt-4o' })}\n\n`, { headers: { 'content-type': 'text/event-stream' } });

/** The upload route: each image gets the next id. */
function uploads() {
  let n = 0;
  return (request: StubRequest) => {
    const id = `00000000-0000-4000-8000-00000000000${++n}`;
    const { type } = request.body as { type: TChatImage['type'] };
    return jsonResponse({ id, type, bytes: PNG.length, width: 1, height: 1, url: `/api/chat/images/${id}` } satisfies TChatImage, 201);
  };
}

const renderChat = (provider: TChatProvider = 'openai') => renderWithProviders(<ChatScreen provider={provider} />, { auth: signedInAs('admin'), path: '/chat-console' });
const messageBox = () => screen.getByRole('textbox', { name: /^Message / });
const sendButton = () => screen.getByRole('button', { name: 'Send message' });
const fileInput = () => document.querySelector<HTMLInputElement>('input[type="file"]')!;
const attached = () => screen.queryByRole('list', { name: 'Images for this question' });
const log = () => screen.getByRole('log', { name: 'Messages' });

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.restoreAllMocks();
});

describe('ChatScreen: images in a question', () => {
  it('picks an image, uploads it at once, shows its thumbnail, and sends it with the question', async () => {
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/chat/images': uploads(), 'POST /api/openai/chat': () => streamed('A small picture') });
    renderChat();
    const user = userEvent.setup();
    expect(fileInput()).toHaveAttribute('accept', 'image/png,image/jpeg,image/webp,image/gif');
    await user.upload(fileInput(), file('cat.png'));
    expect(await within(attached()!).findByRole('img', { name: 'Image 1: cat.png' })).toHaveAttribute('src', expect.stringMatching(/^data:image\/png;base64,/));
    await waitFor(() => expect(requests.filter((r) => r.url === '/api/chat/images')).toHaveLength(1));
    expect(requests.find((r) => r.url === '/api/chat/images')!.body).toEqual({ type: 'image/png', data: btoa(String.fromCharCode(...PNG)) });

    await user.type(messageBox(), 'What is this?');
    await waitFor(() => expect(sendButton()).toBeEnabled());
    await user.click(sendButton());
    await within(log()).findByText('A small picture');
    const body = requests.find((r) => r.url === '/api/openai/chat')!.body as { messages: unknown[] };
    expect(body.messages).toEqual([{ role: 'user', content: 'What is this?', images: ['00000000-0000-4000-8000-000000000001'] }]);
    // The question shows its image, from our server; the composer is empty again.
    expect(within(log()).getByRole('img', { name: 'Image 1 of 1 with this question' })).toHaveAttribute('src', '/api/chat/images/00000000-0000-4000-8000-000000000001');
    expect(attached()).not.toBeInTheDocument();
  });

  it('takes pasted and dropped images, and deletes one removed before sending', async () => {
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/chat/images': uploads(), 'DELETE /api/chat/images/00000000-0000-4000-8000-000000000001': { status: 204 } });
    renderChat();
    fireEvent.paste(messageBox(), { clipboardData: { files: [file('pasted.png')], types: ['Files'] } });
    expect(await screen.findByRole('img', { name: 'Image 1: pasted.png' })).toBeInTheDocument();
    fireEvent.drop(messageBox().closest('form')!, { dataTransfer: { files: [file('dropped.jpg', 'image/jpeg')], types: ['Files'] } });
    expect(await screen.findByRole('img', { name: 'Image 2: dropped.jpg' })).toBeInTheDocument();
    await waitFor(() => expect(requests.filter((r) => r.url === '/api/chat/images')).toHaveLength(2));

    await userEvent.setup().click(await screen.findByRole('button', { name: 'Remove image 1: pasted.png' }));
    await waitFor(() => expect(requests.some((r) => r.method === 'DELETE')).toBe(true));
    expect(screen.queryByRole('img', { name: /pasted\.png/ })).not.toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Image 1: dropped.jpg' })).toBeInTheDocument();
  });

  it('refuses what the model cannot take, files that are not images, one over 5 MB and a fifth image, saying why', async () => {
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/chat/images': uploads() });
    renderChat('gemini');
    const user = userEvent.setup();
    const drop = (files: File[]) => fireEvent.drop(messageBox().closest('form')!, { dataTransfer: { files, types: ['Files'] } });
    drop([file('anim.gif', 'image/gif')]);
    expect(await screen.findByText('Gemini 2.5 Pro takes PNG, JPEG and WebP images; anim.gif is GIF.')).toBeInTheDocument();
    drop([file('drawing.svg', 'image/svg+xml')]);
    expect(await screen.findByText('drawing.svg is not a PNG, JPEG, WebP or GIF image.')).toBeInTheDocument();
    drop([file('huge.png', 'image/png', new Uint8Array(5 * 1024 * 1024 + 1))]);
    expect(await screen.findByText('huge.png is larger than 5 MB.')).toBeInTheDocument();
    expect(requests.filter((r) => r.url === '/api/chat/images')).toHaveLength(0);

    drop([1, 2, 3, 4, 5].map((n) => file(`photo-${n}.png`)));
    expect(await screen.findByText('A question carries at most 4 images.')).toBeInTheDocument();
    expect(await within(attached()!).findAllByRole('listitem')).toHaveLength(4);
    // The message box says why too.
    await user.click(messageBox());
    expect(messageBox()).toHaveAccessibleDescription('A question carries at most 4 images.');
  });

  it('on a model that reads text only, Attach images says why instead of opening a picker', async () => {
    const { requests } = stubFetch(PROVIDERS);
    renderChat('deepseek');
    const user = userEvent.setup();
    const attach = screen.getByRole('button', { name: 'Attach images' });
    expect(attach).toHaveAttribute('aria-disabled', 'true');
    await user.click(attach);
    expect(await screen.findByText('DeepSeek V3 reads text only. Choose a model that takes images to attach them.')).toBeInTheDocument();
    expect(attach).toHaveAccessibleDescription('DeepSeek V3 reads text only. Choose a model that takes images to attach them.');
    fireEvent.paste(messageBox(), { clipboardData: { files: [file('pasted.png')], types: ['Files'] } });
    expect(requests.filter((r) => r.url === '/api/chat/images')).toHaveLength(0);
  });

  it('blocks Send while an image is uploading, and while one that failed is attached', async () => {
    let fail = true;
    stubFetch({
      ...PROVIDERS,
      'POST /api/chat/images': (request) => (fail ? jsonResponse({ error: 'Invalid request', message: 'Invalid request', details: [{ path: 'data', message: 'must be a PNG, JPEG, WebP or GIF image (SVG and other files are refused)' }] }, 400) : uploads()(request)),
    });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Look');
    await user.upload(fileInput(), file('broken.png'));
    expect(await screen.findByRole('alert')).toHaveTextContent('Not uploaded: broken.pngMust be a PNG, JPEG, WebP or GIF image (SVG and other files are refused)');
    expect(screen.getByText('Remove the images that could not be uploaded, or attach them again.')).toBeInTheDocument();
    expect(sendButton()).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Remove image 1: broken.png' }));
    expect(sendButton()).toBeEnabled();
    fail = false;
  });

  it.each([
    ['a bomb (a header claiming 16384 x 16384 pixels)', 'bomb.png', 'The image is 16384 x 16384 pixels; the largest accepted is 8000 pixels on a side and 25 megapixels in all'],
    ['a PNG cut short', 'cut.png', 'The image data is incomplete or damaged'],
  ])("%s refused by the server shows the server's reason on the attachment, read out, with no thumbnail; Remove takes it off by keyboard", async (_name, name, reason) => {
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/chat/images': () => jsonResponse({ error: 'Invalid request', details: [{ path: 'data', message: reason }] }, 400) });
    renderChat();
    const user = userEvent.setup();
    await user.upload(fileInput(), file(name));
    const refused = await within(attached()!).findByRole('alert');
    expect(refused).toHaveTextContent(`Not uploaded: ${name}${reason}`);
    // Not a picture the browser may fail to draw: the attachment is the reason and the Remove button.
    expect(within(attached()!).queryByRole('img')).not.toBeInTheDocument();
    expect(sendButton()).toBeDisabled();

    const remove = within(attached()!).getByRole('button', { name: `Remove image 1: ${name}` });
    remove.focus();
    await user.keyboard('{Enter}');
    expect(attached()).not.toBeInTheDocument();
    // Never uploaded, so nothing to delete on the server.
    expect(requests.filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('a refusal without a field (storage full, the server busy) shows its message', async () => {
    stubFetch({
      ...PROVIDERS,
      'POST /api/chat/images': () => jsonResponse({ error: 'Conflict', message: 'Your chat images take 199 MB of the 200 MB you may keep. Delete chats with images to make room.' }, 409),
    });
    renderChat();
    await userEvent.setup().upload(fileInput(), file('photo.png'));
    expect(await screen.findByRole('alert')).toHaveTextContent('Your chat images take 199 MB of the 200 MB you may keep. Delete chats with images to make room.');
  });

  it('a model switched to one that reads text only cannot send the images attached, and says so', async () => {
    stubFetch({ ...PROVIDERS, 'POST /api/chat/images': uploads() });
    renderChat('grok');
    const user = userEvent.setup();
    await user.upload(fileInput(), file('chart.png'));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Remove image 1: chart.png' })).toBeEnabled());
    await user.selectOptions(screen.getByRole('combobox', { name: 'Model' }), 'grok-3');
    await user.type(messageBox(), 'What does it show?');
    expect(await screen.findByText('Grok 3 reads text only: remove the images or choose a model that takes them.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send message' })).toBeDisabled();
  });
});
