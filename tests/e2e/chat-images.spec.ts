import type { Page } from '@playwright/test';
import { SAMPLE_IMAGES, pngBomb, sampleImage, truncatedPng } from '../fakes/sample-images.ts';
import { expect, test } from './fixtures.ts';
import { ownServerWithFakeProviders } from './support/own-server.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 18 items 4 and 5: images in a question, and answers that survive a reload. A server of its
// own and fake providers in this process, so the journeys read what each provider was sent and
// hold an answer after its first words (to reload in the middle of it).

const messages = (page: Page) => page.getByRole('log', { name: 'Messages' });

async function send(page: Page, assistant: string, text: string) {
  const input = page.getByLabel(`Message ${assistant}`);
  await input.fill(text);
  await input.press('Enter');
}

test.describe('chat: images and answers that survive a reload', () => {
  const own = ownServerWithFakeProviders();

  /** Another user's session cookie (signed in through the API, as a second browser would be). */
  const otherUser = async () => {
    const res = await fetch(`${own.server.url}/api/auth/local/login`, {
      method: 'POST',
      headers: { origin: own.server.url, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `someone-else-${Date.now()}@example.com`, name: 'Someone Else' }),
    });
    expect(res.status).toBe(200);
    return res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  };

  const signIn = (page: Page) => own.signIn(page);

  test('attach images (pick, drop, paste): uploaded, shown, and sent to the provider with the question', async ({ page }, testInfo) => {
    test.slow();
    await signIn(page);
    await page.goto(`${own.server.url}/chat-console`);
    await page.locator('input[type="file"][accept^="image/"]').setInputFiles({ name: 'chart.png', mimeType: 'image/png', buffer: sampleImage('png') });
    const attached = page.getByRole('list', { name: 'Images for this question' });
    await expect(attached.getByRole('img', { name: 'Image 1: chart.png' })).toBeVisible();
    await expect(attached.getByRole('button', { name: 'Remove image 1: chart.png' })).toBeEnabled();
    // A second one dropped on the composer.
    const dropped = await page.evaluateHandle((base64) => {
      // In the page; the server tsconfig has no DOM lib (support/browser-types.ts).
      const browser = globalThis as unknown as { DataTransfer: new () => { items: { add(file: File): void } } };
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const transfer = new browser.DataTransfer();
      transfer.items.add(new File([bytes], 'photo.jpg', { type: 'image/jpeg' }));
      return transfer;
    }, SAMPLE_IMAGES.jpeg);
    await page.locator('form').filter({ has: page.getByLabel('Message GPT') }).dispatchEvent('drop', { dataTransfer: dropped });
    await expect(attached.getByRole('img', { name: 'Image 2: photo.jpg' })).toBeVisible();
    // A third one pasted into the message field.
    await page.getByLabel('Message GPT').evaluate((field, base64) => {
      // In the page; the server tsconfig has no DOM lib (support/browser-types.ts).
      const browser = globalThis as unknown as {
        DataTransfer: new () => { items: { add(file: File): void } };
        ClipboardEvent: new (type: string, init: { clipboardData: unknown; bubbles: boolean; cancelable: boolean }) => unknown;
      };
      const transfer = new browser.DataTransfer();
      transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], 'pasted.gif', { type: 'image/gif' }));
      (field as { dispatchEvent(event: unknown): boolean }).dispatchEvent(new browser.ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
    }, SAMPLE_IMAGES.gif);
    await expect(attached.getByRole('img', { name: 'Image 3: pasted.gif' })).toBeVisible();
    await expect(attached.getByText('Uploading')).toHaveCount(0);
    await expectNoSeriousViolations(page, testInfo, 'chat composer with an attached image', 'form');

    const question = `What does this chart show ${Date.now()}?`;
    await page.getByLabel('Message GPT').fill(question);
    await expect(page.getByRole('button', { name: 'Send message' })).toBeEnabled();
    await page.getByLabel('Message GPT').press('Enter');
    await expect(messages(page).getByText(`Reply to: ${question}`)).toBeVisible({ timeout: 15_000 });
    await expect(attached).toHaveCount(0);

    // OpenAI's Responses API got it as an input_image, the PNG's bytes.
    const sent = own.fake.requests().find((r) => r.prompt === question)!;
    expect(sent.images).toEqual([
      { part: 'input_image', mediaType: 'image/png', bytes: sampleImage('png').length },
      { part: 'input_image', mediaType: 'image/jpeg', bytes: sampleImage('jpeg').length },
      { part: 'input_image', mediaType: 'image/gif', bytes: sampleImage('gif').length },
    ]);
    // The question shows them, served by our server to their owner.
    for (const n of [2, 3]) await expect(messages(page).getByRole('img', { name: `Image ${n} of 3 with this question` })).toBeVisible();
    const shown = messages(page).getByRole('img', { name: 'Image 1 of 3 with this question' });
    await expect(shown).toBeVisible();
    await expect.poll(() => shown.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1);
    expect(await shown.getAttribute('src')).toMatch(/^\/api\/chat\/images\/[0-9a-f-]{36}$/);
    await expectNoSeriousViolations(page, testInfo, 'a question with its image', '[role="log"]');

    // Nobody else can see it: signed out 401, another user 404 (as for an image that does not exist).
    const src = `${own.server.url}${await shown.getAttribute('src')}`;
    expect((await fetch(src)).status).toBe(401);
    expect((await fetch(src, { headers: { cookie: await otherUser() } })).status).toBe(404);
  });

  // Issue 29 item 4 (docs/decisions/0064): the server decodes what it keeps, and a refusal says why.
  test('a bomb PNG and a PNG cut short are refused, and the person sees the reason on each attachment', async ({ page }, testInfo) => {
    await signIn(page);
    await page.goto(`${own.server.url}/chat-console`);
    const requestsBefore = own.fake.requests().length;
    await page.locator('input[type="file"][accept^="image/"]').setInputFiles([
      { name: 'bomb.png', mimeType: 'image/png', buffer: pngBomb() },
      { name: 'cut.png', mimeType: 'image/png', buffer: truncatedPng() },
    ]);
    const attached = page.getByRole('list', { name: 'Images for this question' });
    const refusals = attached.getByRole('alert');
    await expect(refusals).toHaveCount(2);
    await expect(refusals.nth(0)).toHaveText('Not uploaded: bomb.pngThe image is 16384 x 16384 pixels; the largest accepted is 8000 pixels on a side and 25 megapixels in all');
    await expect(refusals.nth(1)).toHaveText('Not uploaded: cut.pngThe image data is incomplete or damaged');
    // No thumbnail the browser cannot draw: only the reasons, each with Remove.
    await expect(attached.getByRole('img')).toHaveCount(0);
    await expect(page.getByText('Remove the images that could not be uploaded, or attach them again.')).toBeVisible();
    await page.getByLabel('Message GPT').fill('What is in these?');
    await expect(page.getByRole('button', { name: 'Send message' })).toBeDisabled();
    await expectNoSeriousViolations(page, testInfo, 'refused image attachments', 'form');

    // Removed by keyboard, one after the other; nothing reached the provider.
    await attached.getByRole('button', { name: 'Remove image 1: bomb.png' }).focus();
    await page.keyboard.press('Enter');
    await attached.getByRole('button', { name: 'Remove image 1: cut.png' }).focus();
    await page.keyboard.press('Enter');
    await expect(attached).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Send message' })).toBeEnabled();
    expect(own.fake.requests()).toHaveLength(requestsBefore);
  });

  test('on a model that reads text only, Attach images says why', async ({ page }, testInfo) => {
    await signIn(page);
    await page.goto(`${own.server.url}/deepseek-chat`);
    const attach = page.getByRole('button', { name: 'Attach images' });
    await expect(attach).toHaveAttribute('aria-disabled', 'true');
    // Focusable and announced (aria-disabled, not disabled): pressing it says why.
    await attach.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByText('DeepSeek V3 reads text only. Choose a model that takes images to attach them.')).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'Attach images on a text-only model', 'form');
  });

  test('a reload mid-answer shows what came so far, then the rest; a second tab sees it too; Stop still works; nobody else can join', async ({ page, context }) => {
    test.slow();
    await signIn(page);
    await page.goto(`${own.server.url}/chat-console`);
    const question = `Tell me a long story ${Date.now()}`;
    const whole = `Reply to: ${question}`;
    // The provider stops after its first words until released: the reload lands mid-answer.
    const hold = own.fake.holdAfterFirstChunk();
    const asked = page.waitForRequest((req) => new URL(req.url()).pathname === '/api/openai/chat' && req.method() === 'POST');
    await send(page, 'GPT', question);
    const { answer } = (await asked).postDataJSON() as { answer: { chatId: string; id: string } };
    await expect(messages(page).getByText(/^Reply to/)).toBeVisible();
    const soFar = (await messages(page).getByText(/^Reply to/).textContent())!;
    expect(whole.startsWith(soFar) && soFar.length < whole.length).toBe(true);

    // Someone else asking for this answer's stream (or for its Stop) hears it does not exist.
    const stream = `${own.server.url}/api/chat/conversations/${answer.chatId}/stream?answer=${answer.id}`;
    const cookie = await otherUser();
    const theirs = await fetch(stream, { headers: { cookie, accept: 'text/event-stream' } });
    expect([theirs.status, await theirs.json()]).toEqual([404, { error: 'Not Found', message: 'Answer not found' }]);
    const theirStop = await fetch(`${own.server.url}/api/chat/conversations/${answer.chatId}/stop`, {
      method: 'POST',
      headers: { cookie, origin: own.server.url, 'content-type': 'application/json' },
      body: JSON.stringify({ answer: answer.id }),
    });
    expect(theirStop.status).toBe(404);

    // The reload: the screen opens the chat again and joins the answer, showing what came so far.
    await page.reload();
    await expect(messages(page).getByText(`You: ${question}`, { exact: true })).toBeVisible();
    await expect(messages(page).getByText(soFar, { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
    // A second tab finds it too.
    const second = await context.newPage();
    await second.goto(`${own.server.url}/chat-console`);
    await expect(messages(second).getByText(`You: ${question}`, { exact: true })).toBeVisible();
    await expect(messages(second).getByText(soFar, { exact: true })).toBeVisible();
    // Then the rest, in both.
    hold.release();
    for (const tab of [page, second]) await expect(messages(tab).getByText(whole, { exact: true })).toBeVisible({ timeout: 15_000 });
    await expect(messages(page).getByText('(stopped)')).toHaveCount(0);
    expect(own.fake.abortedCount()).toBe(0); // the provider call went on through the reload
    await second.close();

    // Reloaded after the end: the answer is kept on the server.
    await page.reload();
    const sidebar = page.getByRole('complementary', { name: 'Chat history' });
    await sidebar.getByRole('button', { name: new RegExp(`^${question}`) }).click();
    await expect(messages(page).getByText(whole, { exact: true })).toBeVisible();

    // Stop, after a reload, still stops the provider: the answer ends where it got.
    const stopHold = own.fake.holdAfterFirstChunk();
    const next = `And another story ${Date.now()}`;
    await send(page, 'GPT', next);
    await expect(messages(page).getByText(/^Reply to: /)).toHaveCount(2); // its first words under the first answer
    await page.reload();
    await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(messages(page).getByText('(stopped)')).toBeVisible();
    await own.fake.waitForAborted(1);
    stopHold.release();
    // What is shown is what the chat kept.
    await page.reload();
    await sidebar.getByRole('button', { name: new RegExp(`^${question}`) }).click();
    await expect(messages(page).getByText(`You: ${next}`, { exact: true })).toBeVisible();
    await expect(messages(page).getByText('(stopped)')).toBeVisible();
  });
});
