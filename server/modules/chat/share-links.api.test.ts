import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARE_TOKEN } from '../../../contracts/share-links.ts';
import { users } from '../../db/schema.ts';
import { conversationBody, uploadImage } from '../../test/chat-helpers.ts';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../../test/test-app.ts';
import { SHARING_OFF } from './share-links.service.ts';

const OWNER = 'owner@example.com';

/** Saves a chat as the user (two messages, or those given); its id. */
async function saveChat(t: TestApp, cookie: string, change: (body: ReturnType<typeof conversationBody>) => void = () => {}): Promise<string> {
  const body = conversationBody();
  change(body);
  const res = await t.request({ method: 'POST', url: '/api/chat/conversations', cookie, payload: body });
  if (res.statusCode >= 300) throw new Error(`save: ${res.statusCode} ${res.body}`);
  return body.id;
}

const tokenOf = (url: string) => url.slice(`${TEST_ORIGIN}/s/`.length);

describe('share links', () => {
  let t: TestApp;
  let owner: string;
  let other: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: OWNER, CHAT_SHARE_ROLES: 'admin' } });
    owner = await t.signIn(OWNER, 'Owner');
    other = await t.signIn('other@example.com', 'Other');
  });
  afterAll(async () => t?.close());

  it('shares the branch in view as a snapshot at an unguessable URL, lists it with its URL, and revokes it at once', async () => {
    const chatId = await saveChat(t, owner, (body) => {
      // Two versions of the answer; the branch in view ends at the second.
      body.messages.push({ id: 'a2', parentId: 'q1', role: 'assistant', content: 'The **second** answer', timestamp: '2025-05-01T10:01:30.000Z', model: 'gpt-4o' });
      body.leafId = 'a2';
    });
    const made = await t.request({ method: 'POST', url: `/api/chat/conversations/${chatId}/shares`, cookie: owner, payload: {} });
    expect(made.statusCode).toBe(201);
    const link = made.json();
    expect(link).toMatchObject({ conversationId: chatId, title: 'Hello there', includeImages: false, messages: 2, views: 0 });
    const token = tokenOf(link.url);
    expect(token).toMatch(SHARE_TOKEN);

    // Later changes to the chat do not change the snapshot.
    await t.request({ method: 'PATCH', url: `/api/chat/conversations/${chatId}`, cookie: owner, payload: { title: 'Renamed' } });
    const page = await t.request({ url: `/s/${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).not.toContain('script-src');
    expect(page.body).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(page.body).toContain('<h1>Hello there</h1>');
    expect(page.body).toContain('The <strong>second</strong> answer');
    expect(page.body).not.toContain('Reply to: Hello there');
    expect(page.body).not.toMatch(/<script/i);

    const listed = (await t.request({ url: '/api/chat/shares', cookie: owner })).json().links;
    expect(listed).toEqual([{ ...link, views: 1 }]);
    expect((await t.request({ url: '/api/chat/shares', cookie: other })).json().links).toEqual([]);

    // Another user cannot revoke it (404, not 403), the owner can; then the page is gone.
    expect((await t.request({ method: 'DELETE', url: `/api/chat/shares/${link.id}`, cookie: other })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/api/chat/shares/${link.id}`, cookie: owner })).statusCode).toBe(204);
    const gone = await t.request({ url: `/s/${token}` });
    expect(gone.statusCode).toBe(404);
    expect(gone.body).toContain('This link does not work');
    expect((await t.request({ url: '/api/chat/shares', cookie: owner })).json().links).toEqual([]);
    expect((await t.request({ method: 'DELETE', url: `/api/chat/shares/${link.id}`, cookie: owner })).statusCode).toBe(404);
  });

  it('is off for roles not in CHAT_SHARE_ROLES: 403 saying so, nothing made', async () => {
    const chatId = await saveChat(t, other);
    const res = await t.request({ method: 'POST', url: `/api/chat/conversations/${chatId}/shares`, cookie: other, payload: {} });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe(SHARING_OFF);
    expect((await t.request({ url: '/api/chat/shares', cookie: other })).json().links).toEqual([]);
  });

  it("serves a link only while its owner's role may share: a demoted owner's links answer 404, and again 200 once promoted", async () => {
    const chatId = await saveChat(t, owner);
    const link = (await t.request({ method: 'POST', url: `/api/chat/conversations/${chatId}/shares`, cookie: owner, payload: {} })).json();
    const token = tokenOf(link.url);
    expect((await t.request({ url: `/s/${token}` })).statusCode).toBe(200);
    const setRole = (role: 'admin' | 'guest') => t.database.db.update(users).set({ role }).where(eq(users.email, OWNER));
    await setRole('guest');
    try {
      const gone = await t.request({ url: `/s/${token}` });
      expect(gone.statusCode).toBe(404);
      expect(gone.body).toContain('This link does not work');
    } finally {
      await setRole('admin');
    }
    expect((await t.request({ url: `/s/${token}` })).statusCode).toBe(200);
    await t.request({ method: 'DELETE', url: `/api/chat/shares/${link.id}`, cookie: owner });
  });

  it("cannot share another user's chat (404), and refuses a body it does not know (400 naming the field)", async () => {
    const othersChat = await saveChat(t, other);
    expect((await t.request({ method: 'POST', url: `/api/chat/conversations/${othersChat}/shares`, cookie: owner, payload: {} })).statusCode).toBe(404);
    const mine = await saveChat(t, owner);
    const bad = await t.request({ method: 'POST', url: `/api/chat/conversations/${mine}/shares`, cookie: owner, payload: { includeImages: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([{ path: 'includeImages', message: 'Include images must be true or false' }]);
  });

  it('shows images only when the owner included them, and serves only the images its snapshot names', async () => {
    const imageId = await uploadImage(t, owner);
    const strayImage = await uploadImage(t, owner);
    const chatId = await saveChat(t, owner, (body) => {
      (body.messages[0] as Record<string, unknown>).images = [imageId];
    });
    const without = (await t.request({ method: 'POST', url: `/api/chat/conversations/${chatId}/shares`, cookie: owner, payload: {} })).json();
    const withImages = (await t.request({ method: 'POST', url: `/api/chat/conversations/${chatId}/shares`, cookie: owner, payload: { includeImages: true } })).json();
    const plain = await t.request({ url: `/s/${tokenOf(without.url)}` });
    expect(plain.body).not.toContain('<img');
    expect((await t.request({ url: `/s/${tokenOf(without.url)}/images/${imageId}` })).statusCode).toBe(404);

    const shown = await t.request({ url: `/s/${tokenOf(withImages.url)}` });
    expect(shown.body).toContain(`<img class="shared" src="/s/${tokenOf(withImages.url)}/images/${imageId}"`);
    const image = await t.request({ url: `/s/${tokenOf(withImages.url)}/images/${imageId}` });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.headers['cache-control']).toBe('no-store');
    expect((await t.request({ url: `/s/${tokenOf(withImages.url)}/images/${strayImage}` })).statusCode).toBe(404);
    expect((await t.request({ url: `/s/${tokenOf(withImages.url)}/images/not-an-id` })).statusCode).toBe(404);
  });

  it('answers 404 for a malformed or unknown token, and deleting the chat deletes its links', async () => {
    expect((await t.request({ url: '/s/short' })).statusCode).toBe(404);
    expect((await t.request({ url: `/s/${'A'.repeat(43)}` })).statusCode).toBe(404);
    const chatId = await saveChat(t, owner);
    const link = (await t.request({ method: 'POST', url: `/api/chat/conversations/${chatId}/shares`, cookie: owner, payload: {} })).json();
    expect((await t.request({ method: 'DELETE', url: `/api/chat/conversations/${chatId}`, cookie: owner })).statusCode).toBe(204);
    expect((await t.request({ url: `/s/${tokenOf(link.url)}` })).statusCode).toBe(404);
    expect((await t.request({ url: '/api/chat/shares', cookie: owner })).json().links.map((l: { id: string }) => l.id)).not.toContain(link.id);
  });

  it('renders hostile text as text: no markup, script, handler or javascript: link of the conversation reaches the page', async () => {
    const corpus = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(2)>',
      '[click](javascript:alert(3))',
      '<a href="javascript:alert(4)">x</a>',
      '<svg onload=alert(5)>',
      '"><iframe src=//evil.example>',
      '![tracker](https://evil.example/pixel.png)',
    ];
    const chatId = await saveChat(t, owner, (body) => {
      body.title = '</title><script>alert(6)</script>';
      body.messages[0]!.content = corpus.join('\n\n');
      body.messages[1]!.content = corpus.join('\n\n');
    });
    const link = (await t.request({ method: 'POST', url: `/api/chat/conversations/${chatId}/shares`, cookie: owner, payload: {} })).json();
    const page = (await t.request({ url: `/s/${tokenOf(link.url)}` })).body;
    expect(page).not.toMatch(/<script|<iframe|<svg|<img|onerror=|onload=|href="javascript:/i);
    expect(page).toContain('&#60;/title&#62;&#60;script&#62;alert(6)&#60;/script&#62;');
  });
});

describe.skipIf(process.env.TEST_DATABASE !== 'postgres')('share links in two processes', () => {
  const env = { ADMIN_EMAILS: OWNER, CHAT_SHARE_ROLES: 'admin', SESSION_SECRET: 'a-session-secret-both-processes-share-0123456789' };
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp({ env });
    b = await createTestApp({ env, sameDatabaseAs: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a link revoked in one process answers 404 at once in the other', async () => {
    const ownerA = await a.signIn(OWNER, 'Owner');
    const ownerB = await b.signIn(OWNER, 'Owner');
    const chatId = await saveChat(a, ownerA);
    const link = (await a.request({ method: 'POST', url: `/api/chat/conversations/${chatId}/shares`, cookie: ownerA, payload: {} })).json();
    const token = tokenOf(link.url);
    expect((await b.request({ url: `/s/${token}` })).statusCode).toBe(200);
    // The other process lists the same URL (the token is derived from the shared secret).
    expect((await b.request({ url: '/api/chat/shares', cookie: ownerB })).json().links.map((l: { url: string }) => l.url)).toEqual([link.url]);
    expect((await a.request({ method: 'DELETE', url: `/api/chat/shares/${link.id}`, cookie: ownerA })).statusCode).toBe(204);
    expect((await b.request({ url: `/s/${token}` })).statusCode).toBe(404);
    expect((await a.request({ url: `/s/${token}` })).statusCode).toBe(404);
  });

  it('a process whose operator turned sharing off (CHAT_SHARE_ROLES empty) serves no link', async () => {
    const off = await createTestApp({ env: { ...env, CHAT_SHARE_ROLES: '' }, sameDatabaseAs: a });
    try {
      const ownerA = await a.signIn(OWNER, 'Owner');
      const chatId = await saveChat(a, ownerA);
      const link = (await a.request({ method: 'POST', url: `/api/chat/conversations/${chatId}/shares`, cookie: ownerA, payload: {} })).json();
      const token = tokenOf(link.url);
      expect((await a.request({ url: `/s/${token}` })).statusCode).toBe(200);
      expect((await off.request({ url: `/s/${token}` })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });
});
