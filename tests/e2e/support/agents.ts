import type { Locator, Page } from '@playwright/test';

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
