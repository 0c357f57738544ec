import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { defaultAgentConfig, findTemplate, type TAgent } from '../../contracts/agents.ts';
import { expect, test } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 15 item 7: an agent's next run is shown in the viewer's own time zone, named, on its card
// and in its details, whatever zone its schedule was set in; slots count from the start of the
// active hours (an hourly 09:30-16:00 scanner runs at half past).

/** An instant as the product shows it: 'MMM d, yyyy HH:mm' in `timeZone`, then the zone's short name. */
function shownIn(iso: string, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, month: 'short', day: 'numeric', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.month} ${parts.day}, ${parts.year} ${parts.hour}:${parts.minute} ${parts.timeZoneName}`;
}

const cardOf = (page: Page, name: string): Locator => page.getByRole('tabpanel').getByRole('listitem', { name });
/** The value beside a term of a description list inside `scope`. */
const termValue = (scope: Locator, term: string): Locator => scope.getByText(term, { exact: true }).locator('xpath=following-sibling::dd');

test.describe('agent schedule', () => {
  test.use({ timezoneId: 'America/New_York' });

  test("the next run shows in the viewer's time zone on the card and in the details, at half past for an hourly 09:30 scanner", async ({ page, login, owner, openPage, baseURL }, testInfo) => {
    await login(page, owner);
    const name = `Half past ${randomUUID().slice(0, 6)}`;
    const base = defaultAgentConfig(findTemplate('stock-market-scanner')!, 'America/New_York');
    // Every day, so the next slot is within a day whenever the test runs.
    const config = { ...base, schedule: { ...base.schedule, daysActive: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] } };
    const origin = { origin: new URL(baseURL!).origin };
    const created = await page.request.post('/api/agents', { headers: origin, data: { templateId: 'stock-market-scanner', name, config } });
    expect(created.status()).toBe(201);
    const resumed = await page.request.patch(`/api/agents/${((await created.json()) as TAgent).id}`, { headers: origin, data: { status: 'running' } });
    const { nextRunAt } = (await resumed.json()) as TAgent;
    expect(nextRunAt).not.toBeNull();

    await page.goto('/agents-console');
    const card = cardOf(page, name);
    const inNewYork = shownIn(nextRunAt!, 'America/New_York');
    expect(inNewYork).toMatch(/ (0\d|1[0-5]):30 E[SD]T$/); // 09:30 ... 15:30, New York time, named
    await expect(termValue(card, 'Next run')).toHaveText(inNewYork);
    await expectNoSeriousViolations(page, testInfo, 'agent card with its next run');

    await card.getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name });
    await expect(termValue(details.getByRole('region', { name: 'Schedule' }), 'Next run')).toHaveText(inNewYork);
    await expect(details.getByRole('region', { name: 'Schedule' })).toContainText('Hourly');
    await expectNoSeriousViolations(page, testInfo, 'agent details with the next run', '[role="dialog"]');

    // The same agent seen from a browser in Tokyo: the same instant, in Tokyo time.
    const tokyo = await openPage({ timezoneId: 'Asia/Tokyo' });
    await login(tokyo, owner);
    await tokyo.goto('/agents-console');
    const inTokyo = shownIn(nextRunAt!, 'Asia/Tokyo');
    expect(inTokyo).toMatch(/:30 GMT\+9$/);
    await expect(termValue(cardOf(tokyo, name), 'Next run')).toHaveText(inTokyo);
    await tokyo.close();
  });

  test('the frequency list has one entry per period, shortest first, with SPEC’s names', async ({ page, login, owner }) => {
    await login(page, owner);
    await page.goto('/agents-console');
    await page.getByRole('tab', { name: 'Agent Templates' }).click();
    const template = page.getByRole('tabpanel').locator('*').filter({ has: page.getByText('Stock Market Scanner', { exact: true }) }).filter({ has: page.getByRole('button', { name: /use template/i }) }).last();
    await template.getByRole('button', { name: /use template/i }).first().click();
    await page.getByRole('dialog', { name: 'Name Your New Agent' }).getByRole('button', { name: 'Continue' }).click();
    const wizard = page.getByRole('dialog', { name: 'Configure Your Agent' });
    const frequency = wizard.getByRole('combobox', { name: 'Frequency' });
    await expect(frequency.locator('option')).toHaveText(['Real-time', 'Every 5 minutes', 'Every 15 minutes', 'Every 30 minutes', 'Hourly', 'Daily', 'Weekly']);
    await expect(frequency).toHaveValue('hourly');
  });
});
