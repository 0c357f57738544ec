import type { Page } from '@playwright/test';
import { startFakeAiProviders } from '../fakes/ai-providers.ts';
import { expect, test } from './fixtures.ts';
import { startAppServer } from './support/app-server.ts';
import { expectNoSeriousViolations } from './support/axe.ts';
import { ADMIN_EMAIL, ADMIN_NAME } from './support/constants.ts';

// Share links (issue 32): share a chat, open the link signed out, revoke it. Sharing is off by
// default, so the journey runs a server of its own with CHAT_SHARE_ROLES=admin. The fake
// providers answer "Reply to: <last question>".

const messages = (page: Page) => page.getByRole('log', { name: 'Messages' });
const savedOnServer = (page: Page) => page.waitForResponse((res) => new URL(res.url()).pathname === '/api/chat/conversations' && res.request().method() === 'POST' && res.ok());

test('share a chat, open the link signed out, revoke it', async ({ page, openPage }, testInfo) => {
  test.slow();
  const fake = await startFakeAiProviders();
  const server = await startAppServer({ env: { ...fake.env, MARKET_DATA: 'simulated', CHAT_SHARE_ROLES: 'admin' } });
  try {
    const res = await page.request.post(`${server.url}/api/auth/local/login`, { data: { email: ADMIN_EMAIL, name: ADMIN_NAME }, headers: { origin: server.url } });
    expect(res.status()).toBe(200);
    await page.goto(`${server.url}/chat-console`);
    const saved = savedOnServer(page);
    const input = page.getByLabel('Message GPT');
    await input.fill('Summarise <b>the quarter</b>');
    await input.press('Enter');
    await expect(messages(page).getByText('Reply to: Summarise <b>the quarter</b>')).toBeVisible();
    await saved;

    await page.getByRole('button', { name: 'Chat options' }).click();
    await page.getByRole('menuitem', { name: 'Share…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share chat' });
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const linkBox = dialog.getByRole('textbox', { name: 'Link to this chat' });
    await expect(linkBox).toHaveValue(new RegExp(`^${server.url}/s/[A-Za-z0-9_-]{43}$`));
    const url = await linkBox.inputValue();
    await expect(dialog.getByRole('region', { name: 'Shared links' }).getByRole('button', { name: /^Revoke link to / })).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'share dialog', '[role="dialog"]');

    // Signed out, in a browser of its own: the snapshot, as text, with no script of any kind.
    {
      const shared = await openPage();
      const scripts: string[] = [];
      shared.on('request', (request) => {
        if (request.resourceType() === 'script') scripts.push(request.url());
      });
      const opened = await shared.goto(url);
      expect(opened?.status()).toBe(200);
      await expect(shared.getByRole('heading', { level: 1 })).toBeVisible();
      await expect(shared.getByText('Reply to: Summarise the quarter')).toBeVisible();
      expect(await shared.locator('script').count()).toBe(0);
      expect(scripts).toEqual([]);
      expect(await shared.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex, nofollow');

      await dialog.getByRole('region', { name: 'Shared links' }).getByRole('button', { name: /^Revoke link to / }).click();
      await expect(dialog.getByText('You have not shared any chat.')).toBeVisible();
      const again = await shared.goto(url);
      expect(again?.status()).toBe(404);
      await expect(shared.getByRole('heading', { name: 'This link does not work' })).toBeVisible();
    }

    // A guest (not in CHAT_SHARE_ROLES here) is not offered Share, where the server would refuse it.
    {
      const guest = await openPage();
      const signedIn = await guest.request.post(`${server.url}/api/auth/local/login`, { data: { email: 'guest@example.com', name: 'Guest' }, headers: { origin: server.url } });
      expect(signedIn.status()).toBe(200);
      await guest.goto(`${server.url}/deepseek-chat`);
      await guest.getByRole('button', { name: 'Chat options' }).click();
      await expect(guest.getByRole('menuitem', { name: 'Export as Markdown' })).toBeVisible();
      await expect(guest.getByRole('menuitem', { name: 'Share…' })).toHaveCount(0);
    }
  } finally {
    await server.stop();
    await fake.close();
  }
});
