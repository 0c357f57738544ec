import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { defaultAgentConfig, type TAgentTemplate } from '../../contracts/agents.ts';
import { expect, test, toasts } from './fixtures.ts';
import { openWizardFromTemplates } from './support/agents.ts';

// Issue 5: an admin creates, configures, inspects, pauses, resumes and edits agents; nobody sees
// another user's agents.

const tab = (page: Page, name: string) => page.getByRole('tab', { name });
const card = (page: Page, name: string) => page.getByRole('tabpanel').locator('article, li, div').filter({ has: page.getByText(name, { exact: true }) }).filter({ has: page.getByRole('button', { name: 'View Details' }) }).last();

async function createFromTemplate(page: Page, template: string, name: string) {
  await tab(page, 'Agent Templates').click();
  const templateCard = page.getByRole('tabpanel').locator('*').filter({ has: page.getByText(template, { exact: true }) }).filter({ has: page.getByRole('button', { name: /use template/i }) }).last();
  await templateCard.getByRole('button', { name: /use template/i }).first().click();
  const nameDialog = page.getByRole('dialog', { name: 'Name Your New Agent' });
  await expect(nameDialog).toBeVisible();
  await nameDialog.getByRole('textbox').fill(name);
  await nameDialog.getByRole('button', { name: 'Continue' }).click();
  const wizard = page.getByRole('dialog', { name: 'Configure Your Agent' });
  await expect(wizard).toBeVisible();
  for (let step = 0; step < 3; step++) await wizard.getByRole('button', { name: 'Next' }).click();
  await wizard.getByRole('button', { name: 'Create Agent' }).click();
  await expect(toasts(page).getByText('Agent created successfully').last()).toBeVisible();
}

test.describe('agents console', () => {
  test('an admin creates a stock agent, resumes it, edits a crypto agent, walks the details tabs and pauses it', async ({ page, login, admin }) => {
    const id = randomUUID().slice(0, 6);
    const stock = `Tech watch ${id}`;
    const crypto = `Coins ${id}`;
    await login(page, admin);
    await page.goto('/agents-console');
    await expect(page.getByRole('heading', { name: 'AI Agents Console' })).toBeVisible();
    await expect(page.getByText('Create, manage, and monitor your AI agents')).toBeVisible();

    // Created paused, and the view switches to the Paused tab.
    await createFromTemplate(page, 'Stock Market Scanner', stock);
    await expect(tab(page, 'Paused Agents')).toHaveAttribute('aria-selected', 'true');
    await expect(card(page, stock).getByText('Never')).toBeVisible();

    await card(page, stock).getByRole('button', { name: 'Resume' }).click();
    await expect(toasts(page).getByText('Agent resumed').last()).toBeVisible();
    await tab(page, 'Running Agents').click();
    await expect(card(page, stock)).toBeVisible();

    // A crypto agent: edit the frequency and the token in the details dialog.
    await createFromTemplate(page, 'Crypto Market Monitor', crypto);
    await card(page, crypto).getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog');
    await expect(details.getByRole('tab', { name: 'Overview' })).toHaveAttribute('aria-selected', 'true');

    await details.getByRole('button', { name: 'Edit schedule' }).click();
    await details.getByLabel('Frequency').selectOption({ label: 'Hourly' });
    await details.getByRole('button', { name: 'Save' }).click();
    await expect(toasts(page).getByText('Agent updated successfully').last()).toBeVisible();

    await expect(details.getByText('Hourly').first()).toBeVisible();
    await details.getByRole('button', { name: 'Edit parameters' }).click();
    const token = details.getByPlaceholder('Enter token symbol (e.g. BTC, ETH)');
    await token.fill('eth');
    await expect(token).toHaveValue('ETH');
    await details.getByRole('button', { name: 'Save' }).click();
    // The first save's toast may still be showing: the save is done when the section leaves editing.
    await expect(details.getByRole('button', { name: 'Edit parameters' })).toBeVisible();
    await expect(toasts(page).getByText('Agent updated successfully').last()).toBeVisible();

    await details.getByRole('tab', { name: 'Run History' }).click();
    await expect(details.getByText('No execution history available')).toBeVisible();
    await details.getByRole('tab', { name: 'Settings' }).click();
    await expect(details.getByText(/Price change|priceChange/).first()).toBeVisible();
    await page.keyboard.press('Escape');

    // The stock agent is running; pause it.
    await tab(page, 'Running Agents').click();
    await card(page, stock).getByRole('button', { name: 'Pause' }).click();
    await expect(toasts(page).getByText('Agent paused').last()).toBeVisible();
    await tab(page, 'Paused Agents').click();
    await expect(card(page, stock).getByText('Last active')).toBeVisible();
  });

  // Issue 29 item 11: neither the wizard's Review nor the details' Settings listed the channels.
  test("the channels an agent notifies are listed in the wizard's Review and in the details' Settings", async ({ page, login, admin, baseURL }) => {
    const id = randomUUID().slice(0, 6);
    const channel = `Desk hook ${id}`;
    const name = `Channel coins ${id}`;
    await login(page, admin);
    // A channel is only saved here, never sent to: its address need not answer.
    const created = await page.request.post('/api/channels', {
      headers: { origin: new URL(baseURL!).origin },
      data: { kind: 'webhook', name: channel, url: `http://127.0.0.1:9/webhook/${id}` },
    });
    expect(created.status()).toBe(201);

    await page.goto('/agents-console');
    const wizard = await openWizardFromTemplates(page, 'Crypto Market Monitor', name);
    const channelsRow = (scope: Locator) => scope.getByText('Channels', { exact: true }).locator('xpath=following-sibling::dd');
    await wizard.getByRole('tab', { name: 'Review' }).click();
    await expect(channelsRow(wizard.getByRole('tabpanel'))).toHaveText('None');
    await wizard.getByRole('tab', { name: 'Notifications' }).click();
    await wizard.getByRole('checkbox', { name: new RegExp(channel) }).check();
    await wizard.getByRole('tab', { name: 'Review' }).click();
    await expect(channelsRow(wizard.getByRole('tabpanel'))).toHaveText(`${channel} (Webhook)`);
    await wizard.getByRole('button', { name: 'Create Agent' }).click();
    await expect(toasts(page).getByText('Agent created successfully').last()).toBeVisible();

    await card(page, name).getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name });
    await details.getByRole('tab', { name: 'Settings' }).click();
    await expect(channelsRow(details.getByRole('region', { name: 'Notifications' }))).toHaveText(`${channel} (Webhook)`);
  });

  test("a second admin does not see the first admin's agents; a guest gets Access Denied", async ({ page, openPage, login, admin, guest, baseURL }) => {
    const name = `Private agent ${randomUUID().slice(0, 6)}`;
    await login(page, admin);
    const created = await page.request.post('/api/agents', {
      headers: { origin: new URL(baseURL!).origin },
      data: await (async () => {
        const templates = (await (await page.request.get('/api/agent-templates')).json()) as TAgentTemplate[];
        const t = templates[0]!;
        return { templateId: t.id, name, config: defaultAgentConfig(t) };
      })(),
    });
    expect(created.status()).toBe(201);

    // The e2e server has one admin; make a second one through the admin Users page API.
    const other = await openPage();
    const otherUser = await login(other, guest);
    const promoted = await page.request.patch(`/api/users/${otherUser.id}`, { headers: { origin: new URL(baseURL!).origin }, data: { role: 'admin' } });
    expect(promoted.status()).toBe(200);
    await other.goto('/agents-console');
    await expect(other.getByRole('heading', { name: 'AI Agents Console' })).toBeVisible();
    await other.getByRole('tab', { name: 'Paused Agents' }).click();
    // Their list has loaded (empty: they made none) before the agent's absence means anything.
    await expect(other.getByText('No Paused Agents')).toBeVisible();
    await expect(other.getByText(name)).toHaveCount(0);
    await other.close();

    const guestPage = await openPage();
    await login(guestPage, { email: `g-${randomUUID().slice(0, 6)}@example.com`, name: 'Guest' });
    await guestPage.goto('/agents-console');
    await expect(guestPage.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
    await guestPage.close();
  });
});
