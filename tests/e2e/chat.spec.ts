import type { Page } from '@playwright/test';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS } from '../../contracts/chat.ts';
import { fakeAiEnv } from '../fakes/ai-providers.ts';
import { expect, test } from './fixtures.ts';
import { startAppServer } from './support/app-server.ts';
import { ADMIN_EMAIL, ADMIN_NAME } from './support/constants.ts';

// Issue 4: chatting through the server with the local fake providers (tests/fakes/ai-providers.ts
// answers "Reply to: <last user message>" in several streamed chunks).

async function send(page: Page, assistant: string, text: string) {
  const input = page.getByLabel(`Message ${assistant}`);
  await input.fill(text);
  await input.press('Enter');
}

/** The history sidebar, opened with its toggle when it is not already shown. */
async function openHistory(page: Page) {
  await expect(page.getByLabel(/^Message /)).toBeVisible(); // the screen has rendered
  const heading = page.getByRole('heading', { name: 'Chat History' });
  if (!(await heading.isVisible())) await page.getByRole('button', { name: 'Show chat history' }).click();
  await expect(heading).toBeVisible();
  return page.getByRole('complementary', { name: 'Chat history' }).or(page.getByRole('dialog', { name: 'Chat history' }));
}

test.describe('chat', () => {
  test('an admin chats with GPT: a streamed answer, copied, kept in history after reload, then deleted', async ({ page, context, login, owner }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    // An admin of their own: chat history is kept on the server per user (issue 18), and the
    // shared admin's holds the other journeys' chats.
    await login(page, owner);
    await page.goto('/chat-console');
    await expect(page.getByText('Start a conversation', { exact: true })).toBeVisible();

    await send(page, 'GPT', 'Hello there, what can you automate?');
    const log = page.getByRole('log', { name: 'Messages' });
    await expect(log.getByText('Reply to: Hello there, what can you automate?')).toBeVisible();
    await expect(page.getByLabel('Message GPT')).toBeEnabled();

    await log.getByRole('button', { name: 'Copy message' }).click();
    await expect(log.getByRole('button', { name: 'Copied' })).toBeVisible();
    type ClipboardWindow = { navigator: { clipboard: { readText(): Promise<string> } } };
    expect(await page.evaluate(() => (globalThis as unknown as ClipboardWindow).navigator.clipboard.readText())).toBe('Reply to: Hello there, what can you automate?');
    await expect(log.getByRole('button', { name: 'Copy message' })).toBeVisible({ timeout: 4_000 });

    // Saved a second after the messages change; survives a reload.
    await page.waitForTimeout(1_300);
    await page.reload();
    const history = await openHistory(page);
    const entry = history.getByRole('button', { name: /^Hello there, what can you automate\?/ });
    await entry.click();
    await expect(page.getByRole('log', { name: 'Messages' }).getByText('Reply to: Hello there, what can you automate?')).toBeVisible();

    const sidebar = await openHistory(page);
    await sidebar.getByRole('button', { name: 'Delete chat: Hello there, what can you automate?' }).click();
    await expect(sidebar.getByText('No chat history yet')).toBeVisible();
    await expect(page.getByText('Start a conversation', { exact: true })).toBeVisible();
  });

  test('a guest gets Access Denied on Claude and can chat with Llama', async ({ page, login, guest }) => {
    await login(page, guest);
    await page.goto('/claude-chat');
    await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible();

    await page.goto('/llama-chat');
    await expect(page.getByText('Start a conversation with Llama')).toBeVisible();
    await send(page, 'Llama', 'Summarise our invoices');
    await expect(page.getByRole('log', { name: 'Messages' }).getByText('Reply to: Summarise our invoices')).toBeVisible();
  });

  test('a provider without a key shows the API Configuration Error panel where the answer would be', async ({ page, login, admin }) => {
    await login(page, admin);
    await page.goto('/gemini-chat');
    await send(page, 'Gemini', 'Are you there?');
    await expect(page.getByRole('heading', { name: 'API Configuration Error' })).toBeVisible();
    await expect(page.getByText('Google AI API key is not configured. Please contact the administrator.')).toBeVisible();

    // Below the message that caused it, on screen and in the reading order.
    const question = page.getByRole('log', { name: 'Messages' }).getByText('Are you there?');
    const panel = page.getByRole('alert').filter({ has: page.getByRole('heading', { name: 'API Configuration Error' }) });
    const [questionBox, panelBox] = await Promise.all([question.boundingBox(), panel.boundingBox()]);
    expect(panelBox!.y).toBeGreaterThanOrEqual(questionBox!.y + questionBox!.height);
    const follows = await question.evaluate((el, other) => Boolean(el.compareDocumentPosition(other!) & 4 /* FOLLOWING */), await panel.elementHandle());
    expect(follows).toBe(true);
  });

  test('every chat screen opens with the message input focused', async ({ page, login, admin }) => {
    await login(page, admin);
    // Arriving from the dashboard (navigation inside the app)...
    await page.goto('/dashboard');
    await page.getByRole('link', { name: 'Start Chat' }).first().click();
    await expect(page.getByLabel('Message GPT')).toBeFocused();
    // ...and opening each screen directly.
    for (const provider of CHAT_PROVIDERS) {
      const { path, label } = CHAT_PROVIDER_INFO[provider];
      await page.goto(path);
      await expect(page.getByLabel(`Message ${label}`), path).toBeFocused();
    }
  });

  test('the daily budgets: refusals are shown in the chat, and the usage page counts images with their cost', async ({ page }) => {
    test.slow();
    // A server of its own, with budgets small enough to reach: 2,000 tokens and 1 image a day.
    const server = await startAppServer({
      env: { ...fakeAiEnv(`http://127.0.0.1:${process.env.E2E_FAKE_AI_PORT}`), CHAT_DAILY_TOKEN_BUDGET: '2000', CHAT_DAILY_IMAGE_BUDGET: '1', MARKET_DATA: 'simulated' },
    });
    try {
      const res = await page.request.post(`${server.url}/api/auth/local/login`, { data: { email: ADMIN_EMAIL, name: ADMIN_NAME }, headers: { origin: server.url } });
      expect(res.status()).toBe(200);

      await page.goto(`${server.url}/grok-chat`);
      await page.getByRole('combobox', { name: 'Model' }).selectOption('grok-2-image-1212');
      await send(page, 'Grok', 'A lighthouse at dusk');
      const log = page.getByRole('log', { name: 'Messages' });
      await expect(log.getByRole('img', { name: 'Generated image' })).toBeVisible();
      await send(page, 'Grok', 'Another lighthouse');
      await expect(page.getByText(/^Error: Your daily image budget of 1 image is used up\. It resets at 00:00 UTC \(in \d+ h \d+ min\)\.$/)).toBeVisible();

      await page.goto(`${server.url}/deepseek-chat`);
      // A plain chat, as this refusal's count is: "Use my agents" (on by default for an admin,
      // issue 31) would add the tools' schemas to the input.
      await page.getByRole('switch', { name: 'Use my agents' }).click();
      await expect(page.getByRole('switch', { name: 'Use my agents' })).not.toBeChecked();
      await send(page, 'DeepSeek', 'x'.repeat(9_000)); // ~2,254 tokens: more than the whole budget
      await expect(
        log.getByText(
          /^Sorry, I encountered an error: This conversation needs about 2,254 tokens, but only 2,000 of your daily AI budget of 2,000 tokens are left\. Start a new chat or send less text\. It resets at 00:00 UTC \(in \d+ h \d+ min\)\. Please try again later\.$/,
        ),
      ).toBeVisible();

      await page.goto(`${server.url}/admin/usage`);
      const images = page.getByRole('row').filter({ hasText: 'grok-2-image-1212' });
      // Provider, model, requests (2, 1 refused), input, output, images, cost.
      await expect(images.getByRole('cell')).toHaveText(['Grok', 'grok-2-image-1212', /^21 failed$/, '0', '0', '1', '$0.07']);
      const columns = page.getByRole('columnheader');
      await expect(columns).toHaveText(['User', 'Provider', 'Model', 'Requests', 'Input tokens', 'Output tokens', 'Images', 'Cost']);
    } finally {
      await server.stop();
    }
  });

  test('Grok answers through its single-line form', async ({ page, login, admin }) => {
    await login(page, admin);
    await page.goto('/grok-chat');
    await expect(page.getByText('Start a conversation with Grok')).toBeVisible();
    await send(page, 'Grok', 'Status report');
    await expect(page.getByRole('log', { name: 'Messages' }).getByText('Reply to: Status report')).toBeVisible();
  });
});
