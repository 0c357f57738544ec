import { startChannelReceivers } from '../fakes/channel-receivers.ts';
import { expect, test } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';
import { OUTBOUND_FAILURES } from '../../contracts/outbound.ts';

// Issue 17 item 1: an owner adds a webhook channel at Settings, keeps its signing secret (shown
// once), sends a test and the receiver gets it, signed.

test.describe('channels', () => {
  test('an owner adds a webhook channel, copies its signing secret once, and a test message arrives signed', async ({ page, login, owner }, testInfo) => {
    const fake = await startChannelReceivers({ tls: false });
    try {
      await login(page, owner);
      await page.goto('/settings');
      const form = page.getByRole('form', { name: 'Add a channel' });
      const address = form.getByRole('textbox', { name: 'Web address' });
      await form.getByRole('combobox', { name: 'Kind' }).selectOption('webhook');
      await form.getByRole('textbox', { name: 'Name' }).fill('Desk endpoint');

      // An internal address is refused on its field, with the reason.
      await address.fill('https://10.1.2.3/hook');
      await form.getByRole('button', { name: 'Add channel' }).click();
      await expect(form.getByText(OUTBOUND_FAILURES['forbidden-address'])).toBeVisible();
      await expect(address).toHaveAttribute('aria-invalid', 'true');

      const endpoint = `journey-${Date.now()}`;
      await address.fill(`${fake.origin}/webhook/${endpoint}`);
      await form.getByRole('button', { name: 'Add channel' }).click();
      const secret = page.getByLabel('Signing secret');
      await expect(secret).toHaveText(/^whsec_[A-Za-z0-9_-]{43}$/);
      fake.setWebhookSecret(endpoint, (await secret.textContent())!);
      // The page itself; the toast confirming the add is still fading in.
      await expectNoSeriousViolations(page, testInfo, 'settings with a new channel', 'main');
      await page.getByRole('button', { name: 'Done' }).click();
      await expect(secret).toHaveCount(0);

      const list = page.getByRole('list', { name: 'Your channels' });
      await expect(list).toContainText('Desk endpoint');
      await expect(list).toContainText(`127.0.0.1:${fake.target.port}/…/${endpoint.slice(-4)}`);
      await list.getByRole('button', { name: 'Send test to Desk endpoint' }).click();
      await expect(list.getByRole('status')).toHaveText('Test message delivered.');
      expect(fake.receipts.at(-1)).toMatchObject({ kind: 'webhook', name: endpoint, verdict: 'signed', body: { version: 1, event: 'test' } });

      // After a reload the address and the secret are nowhere on the page.
      await page.reload();
      await expect(list).toContainText('Desk endpoint');
      await expect(page.getByText(fake.origin)).toHaveCount(0);
      await expect(page.getByLabel('Signing secret')).toHaveCount(0);
    } finally {
      await fake.close();
    }
  });

  // Issue 29: Remove offers Undo for a few seconds (docs/decisions/0070).
  test('Remove offers Undo: Undo brings the channel back; left to go, it is removed for good', async ({ page, login, owner }) => {
    const fake = await startChannelReceivers({ tls: false });
    try {
      await login(page, owner);
      await page.goto('/settings');
      const form = page.getByRole('form', { name: 'Add a channel' });
      const name = `Undo me ${Date.now()}`;
      await form.getByRole('combobox', { name: 'Kind' }).selectOption('slack');
      await form.getByRole('textbox', { name: 'Name' }).fill(name);
      await form.getByRole('textbox', { name: 'Web address' }).fill(`${fake.origin}/slack/undo`);
      await form.getByRole('button', { name: 'Add channel' }).click();
      const list = page.getByRole('list', { name: 'Your channels' });
      await expect(list).toContainText(name);

      const toast = page.locator('[data-sonner-toast]').filter({ hasText: 'Channel removed' });
      await list.getByRole('button', { name: `Remove ${name}` }).click();
      await expect(list.getByRole('button', { name: `Remove ${name}` })).toHaveCount(0);
      await expect(toast).toContainText(name);
      await toast.getByRole('button', { name: 'Undo' }).click();
      await expect(list.getByRole('button', { name: `Remove ${name}` })).toBeVisible();
      await page.reload();
      await expect(list.getByRole('button', { name: `Remove ${name}` })).toBeVisible();

      // Removed again and left alone: the toast goes, then a reload shows it is gone.
      await list.getByRole('button', { name: `Remove ${name}` }).click();
      await expect(toast).toBeVisible();
      await expect(toast).toHaveCount(0, { timeout: 15_000 });
      const listed = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/channels' && res.request().method() === 'GET' && res.ok());
      await page.reload();
      await listed;
      await expect(page.getByRole('form', { name: 'Add a channel' })).toBeVisible();
      await expect(page.getByRole('button', { name: `Remove ${name}` })).toHaveCount(0);
    } finally {
      await fake.close();
    }
  });
});
