import { randomUUID } from 'node:crypto';
import { defaultAgentConfig, findTemplate, type TAgent } from '../../contracts/agents.ts';
import type { TCreatedChannel } from '../../contracts/channels.ts';
import { Webhook } from 'standardwebhooks';
import { startChannelReceivers } from '../fakes/channel-receivers.ts';
import { expect, expectFitsViewport, PHONE_VIEWPORT, test } from './fixtures.ts';
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
      // The Standard Webhooks form (docs/decisions/0090).
      await expect(secret).toHaveText(/^whsec_[A-Za-z0-9+/]{43}=$/);
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

  // Issue 33 item 3: a Teams channel and a webhook with its own template (an ntfy server's JSON
  // publishing), each sent a test: the Teams fake accepts the card, ntfy gets the body as rendered,
  // signed the Standard Webhooks way (docs/decisions/0090).
  test('an owner adds a Microsoft Teams channel and a templated webhook, and each test message arrives as its receiver takes it', async ({ page, login, owner }, testInfo) => {
    const fake = await startChannelReceivers({ tls: false });
    try {
      await login(page, owner);
      await page.goto('/settings');
      const form = page.getByRole('form', { name: 'Add a channel' });
      const list = page.getByRole('list', { name: 'Your channels' });
      const suffix = randomUUID().slice(0, 6);

      await form.getByRole('combobox', { name: 'Kind' }).selectOption('Microsoft Teams');
      await expect(form.getByRole('textbox', { name: 'Message template' })).toHaveCount(0);
      await form.getByRole('textbox', { name: 'Name' }).fill(`Teams ${suffix}`);
      await form.getByRole('textbox', { name: 'Web address' }).fill(`${fake.origin}/teams/${suffix}`);
      await form.getByRole('button', { name: 'Add channel' }).click();
      await expect(list).toContainText(`Teams ${suffix} · Microsoft Teams`);
      await expect(page.getByLabel('Signing secret')).toHaveCount(0);
      await list.getByRole('button', { name: `Send test to Teams ${suffix}` }).click();
      await expect(list.getByRole('listitem').filter({ hasText: `Teams ${suffix}` }).getByRole('status')).toHaveText('Test message delivered.');
      expect(fake.receipts.find((r) => r.kind === 'teams' && r.name === suffix)).toMatchObject({
        verdict: 'ok',
        body: { type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard', version: '1.4' } }] },
      });

      await form.getByRole('combobox', { name: 'Kind' }).selectOption('webhook');
      await form.getByRole('textbox', { name: 'Name' }).fill(`Phone ${suffix}`);
      await form.getByRole('textbox', { name: 'Web address' }).fill(`${fake.origin}/ntfy`);
      const template = form.getByRole('textbox', { name: 'Message template' });
      // A placeholder outside a JSON string is refused on the field, with the reason.
      await template.fill('{"topic": "t", "title": {{title}}}');
      await form.getByRole('button', { name: 'Add channel' }).click();
      await expect(form.getByText(/put each placeholder inside a JSON string/)).toBeVisible();
      await expect(template).toHaveAttribute('aria-invalid', 'true');
      const desktop = page.viewportSize()!;
      await page.setViewportSize(PHONE_VIEWPORT);
      await expectFitsViewport(page, 'a webhook with a refused message template, on a phone');
      await page.setViewportSize(desktop);
      await template.fill(`{"topic": "alerts-${suffix}", "title": "{{agent.name}}: {{title}}", "message": "{{message}}", "click": "{{link}}"}`);
      await form.getByRole('button', { name: 'Add channel' }).click();
      const secret = page.getByLabel('Signing secret');
      await expect(secret).toHaveText(/^whsec_/);
      const signingSecret = (await secret.textContent())!;
      await expectNoSeriousViolations(page, testInfo, 'settings with a templated webhook', 'main');
      await page.getByRole('button', { name: 'Done' }).click();

      await list.getByRole('button', { name: `Send test to Phone ${suffix}` }).click();
      await expect(list.getByRole('listitem').filter({ hasText: `Phone ${suffix}` }).getByRole('status')).toHaveText('Test message delivered.');
      const published = fake.receipts.find((r) => r.kind === 'ntfy' && r.name === `alerts-${suffix}`)!;
      expect(published).toMatchObject({
        verdict: 'ok',
        body: { topic: `alerts-${suffix}`, title: `Test: Test message for Phone ${suffix}`, message: 'This channel works: notifications from the agents you choose it for will arrive here.' },
      });
      const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(published.headers[h])]));
      expect(() => new Webhook(signingSecret).verify(published.raw, headers)).not.toThrow();
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

  // Issue 29 item 2: each channel's message linked to /agents, a 404. Its link opens the agent's
  // details at the run, as the bell's does. (Telegram's, the same link, is checked by the API
  // tests: this server's Telegram is the real one's address.)
  test("each channel's alert links to the agent's details at its run, which open for its owner", async ({ page, login, owner, baseURL }) => {
    test.setTimeout(60_000);
    const fake = await startChannelReceivers({ tls: false });
    try {
      await login(page, owner);
      const origin = { origin: new URL(baseURL!).origin };
      const endpoint = `links-${randomUUID().slice(0, 8)}`;
      const add = async (data: object) => {
        const res = await page.request.post('/api/channels', { headers: origin, data });
        expect(res.status()).toBe(201);
        return (await res.json()) as TCreatedChannel;
      };
      const hook = await add({ kind: 'webhook', name: 'Link hook', url: `${fake.origin}/webhook/${endpoint}` });
      fake.setWebhookSecret(endpoint, hook.signingSecret!);
      const slack = await add({ kind: 'slack', name: 'Link Slack', url: `${fake.origin}/slack/${endpoint}` });
      const discord = await add({ kind: 'discord', name: 'Link Discord', url: `${fake.origin}/discord/${endpoint}` });

      // An alert on any price move, to the three channels only.
      const name = `Linked coins ${randomUUID().slice(0, 6)}`;
      const base = defaultAgentConfig(findTemplate('crypto-market-monitor')!);
      const config = {
        ...base,
        notifications: { email: false, inApp: false, channels: [hook.id, slack.id, discord.id], thresholds: [{ type: 'priceChange', value: 0, message: 'Any price move' }] },
        parameters: { ...base.parameters, exchanges: ['Binance'], includeOnChainMetrics: false },
      };
      const created = await page.request.post('/api/agents', { headers: origin, data: { templateId: 'crypto-market-monitor', name, config } });
      expect(created.status()).toBe(201);
      const { id } = (await created.json()) as TAgent;
      const queued = await page.request.post(`/api/agents/${id}/run`, { headers: origin });
      expect(queued.status()).toBe(202);
      const { runId } = (await queued.json()) as { runId: number };

      const mine = () => fake.receipts.filter((r) => r.name === endpoint && r.verdict !== 'duplicate');
      await expect.poll(() => mine().map((r) => `${r.kind} ${r.verdict}`).sort(), { timeout: 30_000 }).toEqual(['discord ok', 'slack ok', 'webhook signed']);
      const links = mine().map((r) => {
        const body = r.body as { notification?: { link: string }; text?: string; embeds?: Array<{ url: string }> };
        if (r.kind === 'webhook') return body.notification!.link;
        if (r.kind === 'slack') return /<([^|>]+)\|Open the console>/.exec(body.text!)![1]!;
        return body.embeds![0]!.url;
      });
      expect(new Set(links)).toEqual(new Set([`${new URL(baseURL!).origin}/agents-console?agent=${id}&run=${runId}`]));

      for (const link of new Set(links)) {
        const response = await page.goto(link);
        expect(response?.status()).toBe(200);
        const shown = page.getByRole('dialog', { name }).locator('ol > li[aria-current="true"]');
        await expect(shown).toContainText(`Run #${runId}`);
        await expect(shown).toContainText('From your notification');
        await expect(page).toHaveURL(/\/agents-console$/);
      }
    } finally {
      await fake.close();
    }
  });
});
