import { readFile } from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAT_IMAGE_LIMITS, type TChatImage, type TChatProvider } from '../../../contracts/chat.ts';
import type { FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import {
  LYING_FILES,
  SAMPLE_IMAGES,
  animatedGif,
  compressedPngBomb,
  makePng,
  photo,
  pngBomb,
  pngHeader,
  pngOfSize,
  sampleImage,
  truncatedPng,
} from '../../../tests/fakes/sample-images.ts';
import { chatImages, users } from '../../db/schema.ts';
import { startChatApp, type ChatApp } from '../../test/chat-app.ts';
import { chat, chatBody, conversationBody, imageBody, newTestChatId, parseEvents, uploadImage } from '../../test/chat-helpers.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { createImageDecoder } from './image-decoder.ts';
import { createImagesService } from './images.service.ts';

const upload = (t: TestApp, cookie: string, payload: object) => t.request({ method: 'POST', url: '/api/chat/images', cookie, payload });

describe('chat images: upload, type by content, owner only (docs/decisions/0055)', () => {
  let t: TestApp;
  let owner: string;
  let other: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { CHAT_IMAGE_STORAGE_MB: '12' } });
    owner = await t.signIn('owner@example.com', 'Owner');
    other = await t.signIn('other@example.com', 'Other');
  });
  afterAll(async () => t?.close());
  beforeEach(async () => {
    await t.database.db.delete(chatImages);
  });

  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['gif', 'image/gif'],
    ['webp', 'image/webp'],
    ['webpLossless', 'image/webp'],
  ] as const)('stores a %s and serves it to its owner with the type read from its bytes', async (kind, type) => {
    const res = await upload(t, owner, imageBody(kind));
    expect(res.statusCode, res.body).toBe(201);
    const image = res.json<TChatImage>();
    expect(image).toEqual({ id: expect.any(String), type, bytes: sampleImage(kind).length, width: 1, height: 1, url: `/api/chat/images/${image.id}` });

    const served = await t.request({ url: image.url, cookie: owner });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(sampleImage(kind))).toBe(true);
    expect(served.headers).toMatchObject({
      'content-type': type,
      'x-content-type-options': 'nosniff',
      'content-disposition': expect.stringMatching(/^inline; filename="image-[0-9a-f-]+\.(png|jpg|gif|webp)"$/),
      'cache-control': 'private, max-age=86400',
      'content-security-policy': "default-src 'none'; sandbox",
    });
  });

  it.each(Object.entries(LYING_FILES))('refuses %s sent as a PNG, on the field, storing nothing', async (_name, bytes) => {
    const res = await upload(t, owner, { type: 'image/png', data: bytes.toString('base64') });
    expect(res.statusCode).toBe(400);
    // An empty file is refused by the contract; the rest by their bytes.
    expect(res.json().details).toEqual([{ path: 'data', message: bytes.length === 0 ? 'The image must not be empty' : 'must be a PNG, JPEG, WebP or GIF image (SVG and other files are refused)' }]);
    expect(await t.database.db.select().from(chatImages)).toEqual([]);
  });

  it("takes exactly the upload body the API reference documents, and refuses a field it does not (issue 29: the README documented a 'name' it refused)", async () => {
    const reference = await readFile(new URL('../../../docs/reference/api.md', import.meta.url), 'utf8');
    const documented = /`POST \/api\/chat\/images` \(`\{ ([^}]*) \}`/.exec(reference)?.[1];
    expect(documented, 'docs/reference/api.md documents the upload body').toBeDefined();
    const fields = documented!.split(',').map((field) => field.trim());
    const body: Record<string, string> = { type: 'image/png', data: SAMPLE_IMAGES.png };
    // Every field the reference names, optional ones (name?) included, is sent and taken.
    const sent = Object.fromEntries(fields.map((field) => [field.replace(/\?$/, ''), body[field.replace(/\?$/, '')] ?? 'cat.png']));
    const res = await upload(t, owner, sent);
    expect(res.statusCode, res.body).toBe(201);
    // A field it does not name is refused, saying which.
    const extra = await upload(t, owner, { ...body, caption: 'a cat' });
    expect(extra.statusCode).toBe(400);
    expect(JSON.stringify(extra.json().details)).toContain('caption');
  });

  it('refuses an image whose bytes are another type than the one declared, and types it cannot take', async () => {
    const lying = await upload(t, owner, { type: 'image/jpeg', data: SAMPLE_IMAGES.png });
    expect(lying.statusCode).toBe(400);
    expect(lying.json().details).toEqual([{ path: 'type', message: 'the file is a PNG image, not JPEG' }]);
    const gifAsWebp = await upload(t, owner, { type: 'image/webp', data: SAMPLE_IMAGES.gif });
    expect(gifAsWebp.json().details).toEqual([{ path: 'type', message: 'the file is a GIF image, not WebP' }]);
    const svg = await upload(t, owner, { type: 'image/svg+xml', data: LYING_FILES['an SVG with a script']!.toString('base64') });
    expect(svg.statusCode).toBe(400);
    expect(svg.json().details).toEqual([{ path: 'type', message: 'The image type must be one of: image/png, image/jpeg, image/webp, image/gif' }]);
    const notBase64 = await upload(t, owner, { type: 'image/png', data: '<svg onload=alert(1)>' });
    expect(notBase64.json().details).toEqual([{ path: 'data', message: 'The image must be sent in base64' }]);
    expect(await t.database.db.select().from(chatImages)).toEqual([]);
  });

  it('takes an image of 5 MB and refuses one byte more', async () => {
    // Whole PNGs of 4000 x 3000 pixels, padded to the size with a chunk decoders skip.
    const padded = (bytes: number) => pngOfSize(bytes, 4000, 3000);
    const atLimit = await upload(t, owner, { type: 'image/png', data: padded(CHAT_IMAGE_LIMITS.maxBytes).toString('base64') });
    expect(atLimit.statusCode, atLimit.body).toBe(201);
    expect(atLimit.json()).toMatchObject({ bytes: CHAT_IMAGE_LIMITS.maxBytes, width: 4000, height: 3000 });
    const over = await upload(t, owner, { type: 'image/png', data: padded(CHAT_IMAGE_LIMITS.maxBytes + 1).toString('base64') });
    expect(over.statusCode).toBe(400);
    expect(over.json().details).toEqual([{ path: 'data', message: 'an image may be at most 5 MB' }]);
  });

  describe('each user within CHAT_IMAGE_STORAGE_MB', () => {
    // A server of its own with 1 MB each: the rule is the same at any size, and uploads of 4 MB
    // (against this file's 12 MB) took 20 s of a busy machine, mostly storing the bytes.
    let small: TestApp;
    let smallOwner: string;
    let smallOther: string;
    beforeAll(async () => {
      small = await createTestApp({ env: { CHAT_IMAGE_STORAGE_MB: '1' } });
      smallOwner = await small.signIn('owner@example.com', 'Owner');
      smallOther = await small.signIn('other@example.com', 'Other');
    });
    afterAll(async () => small?.close());

    it('keeps each user within it (1 MB here), counting only their own images', async () => {
      // A little over 400 KB each: two fit in 1 MB, a third does not.
      const image = { type: 'image/png', data: pngOfSize(400 * 1024 + 1).toString('base64') };
      for (let i = 0; i < 2; i++) expect((await upload(small, smallOwner, image)).statusCode).toBe(201);
      const full = await upload(small, smallOwner, image);
      expect(full.statusCode).toBe(409);
      expect(full.json().message).toBe('Your chat images take 0.8 MB of the 1 MB you may keep. Delete chats with images to make room.');
      expect(await small.database.db.select({ id: chatImages.id }).from(chatImages)).toHaveLength(2);
      // Another user's room is their own.
      expect((await upload(small, smallOther, image)).statusCode).toBe(201);
    });
  });

  describe('decoded before it is kept: pixels within the bound, all the data there, one frame (docs/decisions/0064)', () => {
    const refusedWith = async (bytes: Buffer, type: string, message: string) => {
      const res = await upload(t, owner, { type, data: bytes.toString('base64') });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().details).toEqual([{ path: 'data', message }]);
      expect(await t.database.db.select().from(chatImages)).toEqual([]);
    };
    const tooLarge = (size: string) => `The image is ${size} pixels; the largest accepted is 8000 pixels on a side and 25 megapixels in all`;

    it("refuses the issue's bombs at once, from the size the header claims: a 70-byte header of 16384 x 16384, and a whole one of 33 KB", async () => {
      expect(pngBomb().length).toBe(70);
      await refusedWith(pngBomb(), 'image/png', tooLarge('16384 x 16384'));
      expect(compressedPngBomb().length).toBeLessThan(40_000);
      await refusedWith(compressedPngBomb(), 'image/png', tooLarge('16384 x 16384'));
      await refusedWith(pngHeader(100_000, 1), 'image/png', tooLarge('100000 x 1'));
    });

    it('takes 8000 pixels on a side and 25 megapixels, and not one pixel more of either', async () => {
      await refusedWith(makePng(8001, 1, { colors: 'bw' }), 'image/png', tooLarge('8001 x 1'));
      await refusedWith(makePng(1, 8001, { colors: 'bw' }), 'image/png', tooLarge('1 x 8001'));
      await refusedWith(makePng(5000, 5001, { colors: 'bw' }), 'image/png', tooLarge('5000 x 5001'));
      const atBound = await upload(t, owner, { type: 'image/png', data: makePng(8000, 3125, { colors: 'bw' }).toString('base64') });
      expect(atBound.statusCode, atBound.body).toBe(201);
      expect(atBound.json()).toMatchObject({ width: 8000, height: 3125 });
    });

    it.each([
      ['a PNG', 'image/png', truncatedPng()],
      ['a JPEG', 'image/jpeg', photo('jpegBaseline').subarray(0, 600)],
      ['a progressive JPEG', 'image/jpeg', photo('jpegProgressive').subarray(0, 400)],
      ['a WebP', 'image/webp', photo('webp').subarray(0, 200)],
    ] as const)('refuses %s cut short: its data is incomplete', async (_name, type, bytes) => {
      await refusedWith(bytes, type, 'The image data is incomplete or damaged');
    });

    it('refuses an animated GIF, saying how many frames it has', async () => {
      await refusedWith(animatedGif(3), 'image/gif', 'The image is animated (3 frames); only still images are accepted');
    });

    it('keeps only the generated images that pass the same checks, giving the reason for each one dropped', async () => {
      const decoder = createImageDecoder({ logger: { warn: () => {}, error: () => {} } });
      try {
        const images = createImagesService({ db: t.database.db, storageBytes: 12 * 1024 * 1024, decoder });
        const [{ id: userId }] = (await t.database.db.select({ id: users.id }).from(users).where(eq(users.email, 'owner@example.com'))) as [{ id: string }];
        const result = await images.storeGenerated(userId, null, [{ data: photo('jpegBaseline') }, { data: truncatedPng() }, { data: pngBomb() }, { data: Buffer.from('<svg/>') }]);
        expect(result.stored).toEqual([expect.objectContaining({ type: 'image/jpeg', width: 48, height: 32 })]);
        expect(result.dropped).toBe(3);
        expect(result.reasons).toEqual(['The image data is incomplete or damaged', tooLarge('16384 x 16384'), 'not a PNG, JPEG, WebP or GIF image']);
      } finally {
        await decoder.close();
      }
    });
  });

  it('serves and deletes an image for its owner only: anyone else gets 404, as for an unknown id', async () => {
    const id = await uploadImage(t, owner);
    const stranger = await t.signIn('stranger@example.com');
    for (const cookie of [other, stranger]) {
      expect((await t.request({ url: `/api/chat/images/${id}`, cookie })).statusCode).toBe(404);
      expect((await t.request({ method: 'DELETE', url: `/api/chat/images/${id}`, cookie })).statusCode).toBe(404);
    }
    expect((await t.request({ url: `/api/chat/images/${id}` })).statusCode).toBe(401);
    expect((await t.request({ url: '/api/chat/images/00000000-0000-4000-8000-000000000000', cookie: owner })).json()).toEqual({ error: 'Not Found', message: 'Image not found' });
    expect((await t.request({ method: 'DELETE', url: `/api/chat/images/${id}`, cookie: owner })).statusCode).toBe(204);
    expect((await t.request({ url: `/api/chat/images/${id}`, cookie: owner })).statusCode).toBe(404);
  });

  it('keeps an image with the saved chat that shows it: attached on save, deleted with the chat, not on its own', async () => {
    const id = await uploadImage(t, owner);
    const body = conversationBody();
    body.messages[0]!.images = [id] as never;
    expect((await t.request({ method: 'POST', url: '/api/chat/conversations', cookie: owner, payload: body })).statusCode).toBe(201);
    const saved = (await t.request({ url: `/api/chat/conversations/${body.id}`, cookie: owner })).json();
    expect(saved.messages[0]).toMatchObject({ id: 'q1', images: [id] });
    expect((await t.request({ method: 'DELETE', url: `/api/chat/images/${id}`, cookie: owner })).json()).toMatchObject({ error: 'Conflict' });

    expect((await t.request({ method: 'DELETE', url: `/api/chat/conversations/${body.id}`, cookie: owner })).statusCode).toBe(204);
    expect((await t.request({ url: `/api/chat/images/${id}`, cookie: owner })).statusCode).toBe(404);
    expect(await t.database.db.select().from(chatImages).where(eq(chatImages.id, id))).toEqual([]);
  });

  it("refuses a saved message that names another user's image, or one of another chat, on its field", async () => {
    const theirs = await uploadImage(t, other);
    const body = conversationBody();
    body.messages[0]!.images = [theirs] as never;
    const refused = await t.request({ method: 'POST', url: '/api/chat/conversations', cookie: owner, payload: body });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details).toEqual([{ path: 'messages.0.images.0', message: 'must be an image you uploaded, not one of another chat' }]);
    expect((await t.request({ url: `/api/chat/conversations/${body.id}`, cookie: owner })).statusCode).toBe(404);

    const mine = await uploadImage(t, owner);
    const first = conversationBody();
    first.messages[0]!.images = [mine] as never;
    expect((await t.request({ method: 'POST', url: '/api/chat/conversations', cookie: owner, payload: first })).statusCode).toBe(201);
    const second = conversationBody();
    second.messages[0]!.images = [mine] as never;
    expect((await t.request({ method: 'POST', url: '/api/chat/conversations', cookie: owner, payload: second })).json().details).toEqual([
      { path: 'messages.0.images.0', message: 'must be an image you uploaded, not one of another chat' },
    ]);
    const five = conversationBody();
    five.messages[0]!.images = [mine, mine, mine, mine, mine] as never;
    expect((await t.request({ method: 'POST', url: '/api/chat/conversations', cookie: owner, payload: five })).json().details).toEqual([
      { path: 'messages.0.images', message: 'A message carries at most 4 images' },
    ]);
  });

  it('deletes an upload never sent in a saved chat after a day', async () => {
    const unsent = await uploadImage(t, owner);
    const sent = await uploadImage(t, owner);
    const body = conversationBody();
    body.messages[0]!.images = [sent] as never;
    await t.request({ method: 'POST', url: '/api/chat/conversations', cookie: owner, payload: body });
    t.advanceTime(CHAT_IMAGE_LIMITS.unsentHours * 3_600_000 + 60_000);
    await uploadImage(t, owner); // the owner's next upload makes room first
    expect((await t.request({ url: `/api/chat/images/${unsent}`, cookie: owner })).statusCode).toBe(404);
    expect((await t.request({ url: `/api/chat/images/${sent}`, cookie: owner })).statusCode).toBe(200);
  });
});

describe('chat images sent to the providers (docs/decisions/0055)', () => {
  let fake: FakeAiProviders;
  let t: TestApp;
  let admin: string;
  let guest: string;

  let app: ChatApp;

  beforeAll(async () => {
    ({ fake, t, admin, guest } = app = await startChatApp({ OLLAMA_MODELS: 'llama3.1,llama3.2-vision:11b', CHAT_RATE_LIMIT: '1000' }));
  });
  afterAll(() => app?.close());
  beforeEach(() => fake.reset());

  const withImages = (provider: TChatProvider, model: string, ids: string[], text = 'What is in this picture?') => ({
    model,
    messages: [{ role: 'user', content: text, images: ids }],
  });

  it.each([
    ['openai', 'gpt-4o', 'input_image'],
    ['anthropic', 'claude-sonnet-4-5', 'image'],
    ['gemini', 'gemini-2.5-flash', 'inlineData'],
    ['grok', 'grok-4', 'input_image'],
    ['llama', 'llama3.2-vision:11b', 'image_url'],
  ] as const)("%s: the question's images reach the provider in its API's own shape, streamed and as JSON", async (provider, model, part) => {
    const png = await uploadImage(t, admin);
    const jpeg = await uploadImage(t, admin, imageBody('jpeg'));
    for (const stream of [true, false]) {
      const res = await chat(t, admin, provider, { stream, body: withImages(provider, model, [png, jpeg]) });
      expect(res.statusCode, res.body).toBe(200);
      if (stream) expect(parseEvents(res.body).at(-1)).toMatchObject({ event: 'done' });
      else expect(res.json()).toMatchObject({ error: false, choices: [{ message: { content: 'Reply to: What is in this picture?' } }] });
    }
    expect(fake.requests().map((r) => [r.stream, r.prompt, r.images])).toEqual(
      [true, false].map((stream) => [
        stream,
        'What is in this picture?',
        [
          { part, mediaType: 'image/png', bytes: sampleImage('png').length },
          { part, mediaType: 'image/jpeg', bytes: sampleImage('jpeg').length },
        ],
      ]),
    );
  });

  it('refuses images for a model that reads text only, or of a type it does not take, before calling anyone', async () => {
    const png = await uploadImage(t, guest);
    const deepseek = await chat(t, guest, 'deepseek', { body: withImages('deepseek', 'deepseek-chat', [png]) });
    expect(deepseek.statusCode).toBe(400);
    expect(deepseek.json().details).toEqual([{ path: 'messages.0.images', message: 'DeepSeek V3 reads text only: choose a model that takes images, or send the question without them' }]);
    const grok3 = await chat(t, admin, 'grok', { body: withImages('grok', 'grok-3', [await uploadImage(t, admin)]) });
    expect(grok3.json().details).toEqual([{ path: 'messages.0.images', message: 'Grok 3 reads text only: choose a model that takes images, or send the question without them' }]);
    const gif = await uploadImage(t, admin, imageBody('gif'));
    const gemini = await chat(t, admin, 'gemini', { body: withImages('gemini', 'gemini-2.5-pro', [await uploadImage(t, admin), gif]) });
    expect(gemini.json().details).toEqual([{ path: 'messages.0.images.1', message: 'Gemini 2.5 Pro takes PNG and JPEG and WebP images; this one is GIF' }]);
    expect(fake.requests()).toEqual([]);
  });

  it("refuses another user's image (as an unknown one), images on an answer, and more than the limits, before calling anyone", async () => {
    const theirs = await uploadImage(t, guest);
    const res = await chat(t, admin, 'openai', { body: withImages('openai', 'gpt-4o', [theirs]) });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path: 'messages.0.images.0', message: 'must be an image you uploaded' }]);
    const unknown = await chat(t, admin, 'openai', { body: withImages('openai', 'gpt-4o', ['00000000-0000-4000-8000-000000000000']) });
    expect(unknown.json().details).toEqual(res.json().details);

    const mine = await uploadImage(t, admin);
    const onAnswer = await chat(t, admin, 'openai', { body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b', images: [mine] }, { role: 'user', content: 'c' }] } });
    expect(onAnswer.json().details).toEqual([{ path: 'messages.1.images', message: 'Only a question (role user) carries images' }]);
    const five = await chat(t, admin, 'openai', { body: withImages('openai', 'gpt-4o', [mine, mine, mine, mine, mine]) });
    expect(five.json().details).toEqual([{ path: 'messages.0.images', message: 'A message carries at most 4 images' }]);
    const seventeen = { model: 'gpt-4o', messages: Array.from({ length: 5 }, (_, i) => ({ role: 'user', content: `q${i}`, images: [mine, mine, mine, mine].slice(0, i === 4 ? 1 : 4) })) };
    expect((await chat(t, admin, 'openai', { body: seventeen })).json().details).toEqual([{ path: 'messages', message: 'Send at most 16 images in one request' }]);
    expect(fake.requests()).toEqual([]);
  });

  it('counts each image in the budget reserved before the call (an image of GPT-4o costs 255 tokens and more)', async () => {
    const budgeted = await createTestApp({ env: { ...fake.env, ADMIN_EMAILS: 'admin@example.com', CHAT_DAILY_TOKEN_BUDGET: '270' } });
    try {
      const cookie = await budgeted.signIn('admin@example.com');
      const image = await uploadImage(budgeted, cookie);
      // Text alone fits; with the image the input alone leaves less than an answer needs.
      expect((await chat(budgeted, cookie, 'openai', { body: chatBody('openai', 'hi') })).json().error).toBe(false);
      const refused = await chat(budgeted, cookie, 'openai', { body: withImages('openai', 'gpt-4o', [image], 'hi') });
      expect(refused.statusCode).toBe(429);
      // 'hi' is 1 token and 4 for the message; the 1 x 1 image 255 (85 + one 512-pixel tile of 170).
      expect(refused.json().message).toMatch(/^This conversation needs about 260 tokens/);
      expect(fake.requests()).toHaveLength(1);
    } finally {
      await budgeted.close();
    }
  });

  it('a kept answer stores its question with the images, which then belong to the chat', async () => {
    const image = await uploadImage(t, admin);
    const chatId = newTestChatId();
    const res = await chat(t, admin, 'openai', {
      stream: true,
      body: { ...withImages('openai', 'gpt-4o', [image]), answer: { chatId, id: 'a1', questionId: 'q1', questionParentId: null, title: 'What is in this picture?' } },
    });
    expect(parseEvents(res.body).at(-1)).toMatchObject({ event: 'done' });
    const saved = (await t.request({ url: `/api/chat/conversations/${chatId}`, cookie: admin })).json();
    expect(saved.messages).toMatchObject([
      { id: 'q1', role: 'user', content: 'What is in this picture?', images: [image] },
      { id: 'a1', role: 'assistant', content: 'Reply to: What is in this picture?' },
    ]);
    expect((await t.request({ method: 'DELETE', url: `/api/chat/images/${image}`, cookie: admin })).statusCode).toBe(409);
  });
});
