import type { Locator, Page } from '@playwright/test';
import { expect, toasts } from '../fixtures.ts';

/** From the console's Agent Templates tab: uses `template`, names the agent `name`, and returns
 * the 'Configure Your Agent' wizard. */
export async function openWizardFromTemplates(page: Page, template: string, name: string): Promise<Locator> {
  await page.getByRole('tab', { name: 'Agent Templates' }).click();
  const card = page.getByRole('tabpanel').locator('*').filter({ has: page.getByText(template, { exact: true }) }).filter({ has: page.getByRole('button', { name: /use template/i }) }).last();
  await card.getByRole('button', { name: /use template/i }).first().click();
  const nameDialog = page.getByRole('dialog', { name: 'Name Your New Agent' });
  await nameDialog.getByRole('textbox').fill(name);
  await nameDialog.getByRole('button', { name: 'Continue' }).click();
  return page.getByRole('dialog', { name: 'Configure Your Agent' });
}

/** The console's event stream (GET /api/events) answering: live updates can be counted on after it. */
export function eventStreamOpened(page: Page): Promise<unknown> {
  return page.waitForResponse((res) => new URL(res.url()).pathname === '/api/events' && res.status() === 200);
}

/** In the wizard: the first price-change threshold fires on any move (limit 0 %), saying 'Price moved'. */
export async function alertOnAnyMove(wizard: Locator): Promise<void> {
  await wizard.getByRole('tab', { name: 'Notifications' }).click();
  await wizard.getByLabel('Threshold 1 value (%)').fill('0');
  await wizard.getByLabel('Threshold 1 message').fill('Price moved');
}

/** How many unread notifications the header's bell says it holds. */
export async function unreadCount(page: Page): Promise<number> {
  const name = (await page.getByRole('button', { name: /Notifications/ }).getAttribute('aria-label')) ?? '';
  return Number(/(\d+) unread/.exec(name)?.[1] ?? 0);
}

/** Whether the page has navigated (a reload) since this was called. */
export function watchForReload(page: Page): () => boolean {
  let reloaded = false;
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) reloaded = true;
  });
  return () => reloaded;
}

/** From an agent's open details: Run now, then close them at once, so no Run History is open to poll. */
export async function runNowAndClose(page: Page, details: Locator): Promise<void> {
  await details.getByRole('button', { name: 'Run now' }).click();
  await expect(toasts(page).getByText('Run queued').last()).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(details).toBeHidden();
}
