import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { DATE_TIME, formatTime } from '../../contracts/time-format.ts';
import { draftUserPrompt } from '../../server/modules/conditions-draft/draft-prompt.ts';
import type { FakeStructuredReply } from '../fakes/ai-providers.ts';
import { expect, test, toasts } from './fixtures.ts';
import { eventStreamOpened, openWizardFromTemplates, unreadCount } from './support/agents.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 30's journey: an admin describes a condition in words, an assistant drafts it (the fake
// Claude answers with its forced tool, as the real one does), the admin reviews it in the builder,
// tests it on history, saves the agent, runs it now, reads the notification in plain words,
// snoozes the condition from the bell, and finds the next firing recorded as snoozed in Run
// History with no new notification.
//
// The condition is met on any candle of any market: every close is above 1, and an RSI lies
// between 0 and 100 once it is defined. Nothing waits on time or on what the simulated prices do.

const FAKE_AI = `http://127.0.0.1:${process.env.E2E_FAKE_AI_PORT}`;
const HOUR_MS = 3_600_000;

const WORDS = 'tell me every time a candle closes above 1 dollar while the daily RSI is anywhere from 0 to 100';
const CONDITION_WORDS = 'close is above 1 and RSI (14) on 1 day is between 0 and 100';
/** What a run records and tells, where the agent's own timeframe goes with the words (an email or a channel has no builder beside it). */
const RUN_WORDS = 'close on 1 hour is above 1 and RSI (14) on 1 day is between 0 and 100';
/** What a model answers in the draft's envelope (docs/decisions/0075): every field present, null where absent. */
const DRAFTED = {
  understood: true,
  notUnderstood: null,
  condition: {
    when: {
      kind: 'group',
      join: 'all',
      clauses: [
        { kind: 'clause', left: { indicator: 'close', timeframe: null }, operator: 'above', right: { indicator: 'number', value: 1 } },
        {
          kind: 'clause',
          left: { indicator: 'rsi', period: 14, timeframe: '1d' },
          operator: 'between',
          lower: { indicator: 'number', value: 0 },
          upper: { indicator: 'number', value: 100 },
        },
      ],
    },
    trigger: { mode: 'once-per-close', cooldownMinutes: null },
  },
};

const MOON_WORDS = 'alert me when the moon phase is full and the close is above its SMA';

/** What the fake Claude answers to these words alone (the draft's user message: the words fenced), so no other journey's answers change. */
async function fakeClaudeAnswers(page: Page, words: string, reply: FakeStructuredReply): Promise<void> {
  const res = await page.request.post(`${FAKE_AI}/__control/structured`, { data: { provider: 'anthropic', reply, prompt: draftUserPrompt(words) } });
  expect(res.status(), await res.text()).toBe(200);
}

/** The wizard's Describe it box. */
const describeBox = (wizard: Locator) => wizard.getByRole('group', { name: 'Describe it' });

/** A CSS selector for the box, for axe (its heading's id, made by React, names it). */
async function boxSelector(box: Locator): Promise<string> {
  const labelledBy = await box.getAttribute('aria-labelledby');
  expect(labelledBy).toBeTruthy();
  return `[aria-labelledby="${labelledBy}"]`;
}

async function draftWithClaude(wizard: Locator, words: string): Promise<Locator> {
  const box = describeBox(wizard);
  await box.getByRole('textbox', { name: 'Describe the condition in words' }).fill(words);
  await box.getByRole('combobox', { name: 'Assistant' }).selectOption({ label: 'Claude' });
  await box.getByRole('button', { name: 'Draft' }).click();
  return box;
}

/** The newest run of the open details' Run History, once it has finished. */
async function newestRun(details: Locator, runs: number): Promise<Locator> {
  const all = details.locator('ol > li').filter({ hasText: 'Run now' });
  await expect(all).toHaveCount(runs, { timeout: 30_000 });
  const run = all.first();
  await expect(run.getByText('Success', { exact: true })).toBeVisible({ timeout: 30_000 });
  return run;
}

test.describe('a condition in words, from the draft to the snooze', () => {
  test('an admin describes a condition, reviews and tests it, saves, runs now, is notified, snoozes it, and the next firing is recorded as snoozed', async ({ page, login, owner }, testInfo) => {
    // Two runs on two markets and a test on history, on a shared machine.
    test.setTimeout(120_000);
    const name = `Words ${randomUUID().slice(0, 6)}`;
    await fakeClaudeAnswers(page, WORDS, { kind: 'json', value: DRAFTED });
    await login(page, owner);
    await page.goto('/agents-console');
    const streamOpened = eventStreamOpened(page);

    // A Custom Monitor (AAPL and BTC/USDT on Binance, hourly candles, nothing but its conditions to notify).
    const wizard = await openWizardFromTemplates(page, 'Custom Monitor', name);
    await wizard.getByRole('tab', { name: 'Parameters' }).click();
    await expect(wizard.getByRole('combobox', { name: /^Timeframe/ }).locator('option:checked')).toHaveText('1 hour');
    await expect(wizard.getByText('No conditions', { exact: true })).toBeVisible();

    // Describe it: the words, an assistant, and the draft for review.
    const box = await draftWithClaude(wizard, WORDS);
    await expect(box.getByRole('status')).toHaveText(`Drafted: ${CONDITION_WORDS}. Review it before saving.`);
    const condition = wizard.getByRole('group', { name: 'Condition 1', exact: true });
    await expect(condition.getByText(CONDITION_WORDS, { exact: true })).toBeVisible();
    await expect(condition.getByRole('combobox', { name: 'Clause 1: left side', exact: true })).toHaveValue('close');
    await expect(condition.getByRole('combobox', { name: 'Clause 2: operator', exact: true })).toHaveValue('between');
    await expect(condition.getByRole('combobox', { name: 'Clause 2: left timeframe', exact: true })).toHaveValue('1d');
    await expect(wizard.getByRole('group', { name: 'Condition 2', exact: true })).toHaveCount(0);
    await expectNoSeriousViolations(page, testInfo, 'describe it with a draft', await boxSelector(box));
    // Tested on history at once, under the builder, with nothing pressed.
    const drafted = wizard.getByRole('region', { name: 'The drafted condition on history' });
    const draftedRow = drafted
      .getByRole('region', { name: 'Signals, alerts and conditions over all markets' })
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: `${CONDITION_WORDS} (condition)` }) });
    await expect(draftedRow).toHaveCount(1, { timeout: 30_000 });

    // Review lists it; Test on history gives it a row of its own, fired on the history.
    await wizard.getByRole('tab', { name: 'Review' }).click();
    await expect(wizard.getByRole('list', { name: 'Conditions' })).toContainText(CONDITION_WORDS);
    await wizard.getByRole('button', { name: 'Test on history' }).click();
    const result = wizard.getByRole('region', { name: 'Test result' });
    const rows = result.getByRole('region', { name: 'Signals, alerts and conditions over all markets' });
    const row = rows.getByRole('row').filter({ has: page.getByRole('rowheader', { name: `${CONDITION_WORDS} (condition)` }) });
    await expect(row).toHaveCount(1, { timeout: 30_000 });
    // Met on every candle once the daily RSI is defined: fired on many, notified far fewer times.
    await expect.poll(async () => Number((await row.getByRole('cell').first().textContent())?.replaceAll(',', ''))).toBeGreaterThan(0);

    // Saved: nothing was saved before.
    await wizard.getByRole('button', { name: 'Create Agent' }).click();
    await expect(toasts(page).getByText('Agent created successfully').last()).toBeVisible();
    await streamOpened;
    expect(await unreadCount(page)).toBe(0);

    // Run now: the condition is met on both markets, and notified.
    const card = page.getByRole('tabpanel').getByRole('listitem', { name });
    await card.getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name });
    await expect(details.getByRole('region', { name: 'Conditions' }).getByText(CONDITION_WORDS)).toBeVisible();
    await details.getByRole('button', { name: 'Run now' }).click();
    await expect(toasts(page).getByText('Run queued').last()).toBeVisible();
    await details.getByRole('tab', { name: 'Run History' }).click();
    const first = await newestRun(details, 1);
    const onBtc = first.getByRole('region', { name: /^Conditions on BTC\/USDT/ });
    const outcome = onBtc.getByRole('listitem').filter({ hasText: RUN_WORDS }).first();
    await expect(outcome.getByText('Met', { exact: true }).first()).toBeVisible();
    await expect(outcome.getByText('Notified', { exact: true })).toBeVisible();
    // Each clause with the value of each side at the deciding candle.
    const closeValues = outcome.getByRole('table', { name: 'Values of close is above 1' });
    await expect(closeValues.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'close' }) }).getByRole('cell').first()).toHaveText(/^[\d,]+(\.\d+)?$/);
    const rsiValues = outcome.getByRole('table', { name: 'Values of RSI (14) on 1 day is between 0 and 100' });
    await expect(rsiValues.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^RSI \(14\)/ }) }).getByRole('cell').first()).toHaveText(/^\d{1,2}(\.\d+)?$|^100$/);
    await expect(first.getByRole('region', { name: /^Conditions on AAPL/ }).getByText('Notified', { exact: true })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(details).toBeHidden();

    // The bell: one notification telling, per market, the condition in plain words with its values.
    await expect.poll(() => unreadCount(page), { timeout: 20_000 }).toBe(1);
    const bell = page.getByRole('button', { name: /^Notifications/ });
    await bell.click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const told = panel.getByRole('list', { name: 'Alerts' });
    await expect(told.getByRole('listitem').filter({ hasText: /^BTC\/USDT/ })).toHaveText(
      /^BTC\/USDT[^:]*: close on 1 hour is above 1 \([\d,.]+\) and RSI \(14\) on 1 day is between 0 and 100 \([\d.]+\)$/,
    );
    await expect(told.getByRole('listitem').filter({ hasText: /^AAPL/ })).toHaveText(/^AAPL[^:]*: close on 1 hour is above 1 \(/);

    // Snooze from the notification, once for the condition on all its markets: 1 hour.
    await panel.getByRole('button', { name: `Snooze: ${RUN_WORDS}` }).click();
    const menu = page.getByRole('menu');
    await expect(menu.getByRole('menuitem')).toHaveText(['1 hour', '4 hours', 'Until tomorrow 09:00', 'Choose a time…']);
    await expectNoSeriousViolations(page, testInfo, 'snooze menu', '[role="menu"]');
    const snoozed = page.waitForResponse((res) => res.request().method() === 'POST' && /\/conditions\/[^/]+\/snooze$/.test(new URL(res.url()).pathname));
    const askedAt = Date.now();
    await menu.getByRole('menuitem', { name: '1 hour' }).click();
    const answer = await snoozed;
    expect(answer.status()).toBe(200);
    const { snoozedUntil } = (await answer.json()) as { snoozedUntil: string };
    const until = Date.parse(snoozedUntil);
    expect(until).toBeGreaterThanOrEqual(askedAt + HOUR_MS - 1_000);
    expect(until).toBeLessThanOrEqual(Date.now() + HOUR_MS + 1_000);
    // The toast names until when, in the zone every time is shown in (this browser's: UTC).
    await expect(toasts(page).getByText(`Snoozed until ${formatTime(snoozedUntil, DATE_TIME, 'UTC')}`, { exact: true })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();

    // The details say it is snoozed; a further Run now records the firing as snoozed, not notified.
    await card.getByRole('button', { name: 'View Details' }).click();
    await expect(details.getByRole('region', { name: 'Conditions' }).getByText(/^Snoozed until /)).toBeVisible();
    await details.getByRole('button', { name: 'Run now' }).click();
    await expect(toasts(page).getByText('Run queued').last()).toBeVisible();
    await details.getByRole('tab', { name: 'Run History' }).click();
    const second = await newestRun(details, 2);
    for (const market of [/^Conditions on BTC\/USDT/, /^Conditions on AAPL/]) {
      const met = second.getByRole('region', { name: market }).getByRole('listitem').filter({ hasText: RUN_WORDS }).first();
      await expect(met.getByText('Met', { exact: true }).first()).toBeVisible();
      await expect(met.getByText('Snoozed, not notified', { exact: true })).toBeVisible();
    }
    await page.keyboard.press('Escape');
    await expect(details).toBeHidden();

    // The run is recorded, so whatever it notified is stored: nothing new in the bell.
    const notifications = await page.request.get('/api/notifications');
    expect(notifications.status()).toBe(200);
    const stored = (await notifications.json()) as { notifications: Array<{ agentName: string | null }> };
    expect(stored.notifications.filter((n) => n.agentName === name)).toHaveLength(1);
    await bell.click();
    await expect(panel.getByRole('list', { name: 'Alerts' })).toHaveCount(1);
    expect(await unreadCount(page)).toBe(1);
  });

  test('words the assistant cannot map are named, and the builder stays as it was', async ({ page, login, owner }, testInfo) => {
    await fakeClaudeAnswers(page, MOON_WORDS, { kind: 'json', value: { understood: false, notUnderstood: 'the moon phase', condition: null } });
    await login(page, owner);
    await page.goto('/agents-console');
    const wizard = await openWizardFromTemplates(page, 'Custom Monitor', `Moon ${randomUUID().slice(0, 6)}`);
    await wizard.getByRole('tab', { name: 'Parameters' }).click();

    // A condition built by hand first: the refused draft must leave it as it is.
    await wizard.getByRole('button', { name: 'Add condition' }).click();
    const condition = wizard.getByRole('group', { name: 'Condition 1', exact: true });
    const words = 'RSI (14) crosses below 30';
    await expect(condition.getByText(words, { exact: true })).toBeVisible();

    const box = await draftWithClaude(wizard, MOON_WORDS);
    await expect(box.getByRole('alert')).toHaveText(/^I could not map 'the moon phase' to a price or an indicator/);
    await expect(box.getByRole('textbox', { name: 'Describe the condition in words' })).toHaveAttribute('aria-invalid', 'true');
    await expect(box.getByRole('textbox', { name: 'Describe the condition in words' })).toHaveValue(MOON_WORDS);
    await expect(box.getByRole('status')).toHaveText('');
    await expect(wizard.getByRole('group', { name: 'Condition 2', exact: true })).toHaveCount(0);
    await expect(condition.getByText(words, { exact: true })).toBeVisible();
    await expectNoSeriousViolations(page, testInfo, 'describe it, not understood', await boxSelector(box));
  });
});
