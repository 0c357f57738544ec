import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

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
  test('an admin chats with GPT: a streamed answer, copied, kept in history after reload, then deleted', async ({ page, context, login, admin }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await login(page, admin);
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

  test('a provider without a key shows the API Configuration Error panel', async ({ page, login, admin }) => {
    await login(page, admin);
    await page.goto('/gemini-chat');
    await send(page, 'Gemini', 'Are you there?');
    await expect(page.getByRole('heading', { name: 'API Configuration Error' })).toBeVisible();
    await expect(page.getByText('Google AI API key is not configured. Please contact the administrator.')).toBeVisible();
  });

  test('Grok answers through its single-line form', async ({ page, login, admin }) => {
    await login(page, admin);
    await page.goto('/grok-chat');
    await expect(page.getByText('Start a conversation with Grok')).toBeVisible();
    await send(page, 'Grok', 'Status report');
    await expect(page.getByRole('log', { name: 'Messages' }).getByText('Reply to: Status report')).toBeVisible();
  });
});
