import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { findTemplate, type TAgentConfig } from '../../../../contracts/agents.ts';
import { CLAUSES_MAX, CONDITIONS_MAX, OPERATOR_FIELDS, OPERATOR_LABELS, OPERATORS, ZCondition, type TCondition } from '../../../../contracts/conditions.ts';
import type { TCandleTimeframe } from '../../../../contracts/market.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { newClause, newCondition, newConditionId } from '../lib/condition-drafts.ts';
import { AgentWizard } from './agent-wizard.tsx';
import { ConditionsEditor } from './conditions-editor.tsx';
import { TemplateCard } from './template-card.tsx';

beforeAll(() => {
  if (document.getElementById('app-config')) return;
  const config = document.createElement('script');
  config.type = 'application/json';
  config.id = 'app-config';
  config.textContent = JSON.stringify({ siteName: 'Test', contactEmail: 'a@example.com', authProvider: 'local', sources: { onChain: false } });
  document.head.append(config);
});
afterEach(() => vi.unstubAllGlobals());

function Harness({ initial = [newCondition()], agentTimeframe = '1h', onValue }: { initial?: TCondition[]; agentTimeframe?: TCandleTimeframe; onValue?(next: TCondition[]): void }) {
  const [value, setValue] = useState(initial);
  return (
    <ConditionsEditor
      value={value}
      onChange={(next) => {
        setValue(next);
        onValue?.(next);
      }}
      errors={{}}
      agentTimeframe={agentTimeframe}
      timeZone="Europe/Paris"
    />
  );
}

/** Renders the builder and keeps the latest value it sent. */
function renderBuilder(props: Parameters<typeof Harness>[0] = {}) {
  const latest: { value: TCondition[] } = { value: props.initial ?? [] };
  renderWithProviders(<Harness {...props} onValue={(next) => (latest.value = next)} />);
  return latest;
}

const condition = (n = 1) => within(screen.getByRole('group', { name: `Condition ${n}` }));
const control = (name: string, n = 1) => condition(n).getByRole(name.endsWith('side') || name.endsWith('operator') || name.endsWith('timeframe') || name.endsWith('join') ? 'combobox' : 'spinbutton', { name });

describe('ConditionsEditor', () => {
  it('reads a clause as a sentence and says it in plain words as it changes', async () => {
    const latest = renderBuilder();
    expect(control('Clause 1: left side')).toHaveDisplayValue('RSI');
    expect(control('Clause 1: left period')).toHaveValue(14);
    expect(control('Clause 1: left timeframe')).toHaveDisplayValue("1 hour (the agent's)");
    expect(control('Clause 1: operator')).toHaveDisplayValue('crosses below');
    expect(control('Clause 1: right side')).toHaveDisplayValue('number');
    expect(control('Clause 1: right number')).toHaveValue(30);
    // In plain words the agent's own timeframe goes unsaid, as everywhere (decision 0071).
    expect(condition().getByText('RSI (14) crosses below 30')).toBeInTheDocument();

    // Only the agent's timeframe or a longer one is offered.
    const timeframes = within(control('Clause 1: left timeframe')).getAllByRole('option').map((o) => o.textContent);
    expect(timeframes).toEqual(["1 hour (the agent's)", '4 hours', '1 day', '1 week']);
    await userEvent.selectOptions(control('Clause 1: left timeframe'), '4 hours');
    await userEvent.selectOptions(control('Clause 1: right side'), 'EMA');
    await userEvent.clear(control('Clause 1: right period'));
    await userEvent.type(control('Clause 1: right period'), '200');
    await userEvent.selectOptions(control('Clause 1: right timeframe'), '1 day');
    expect(condition().getByText('RSI (14) on 4 hours crosses below EMA (200) on 1 day')).toBeInTheDocument();
    expect(latest.value[0]!.when.clauses[0]).toEqual({
      kind: 'clause',
      left: { indicator: 'rsi', period: 14, timeframe: '4h' },
      operator: 'crosses-below',
      right: { indicator: 'ema', period: 200, timeframe: '1d' },
    });
    expect(ZCondition.safeParse(latest.value[0]).success).toBe(true);
  });

  it.each(OPERATORS)("shows the fields '%s' reads, and only those", async (operator) => {
    renderBuilder();
    await userEvent.selectOptions(control('Clause 1: operator'), OPERATOR_LABELS[operator]);
    const fields = OPERATOR_FIELDS[operator];
    const present = (name: string) => condition().queryByRole(name.endsWith('side') ? 'combobox' : 'spinbutton', { name }) !== null;
    expect(present('Clause 1: right side')).toBe(fields.includes('right'));
    expect(present('Clause 1: lower side')).toBe(fields.includes('lower'));
    expect(present('Clause 1: upper side')).toBe(fields.includes('upper'));
    expect(present('Clause 1: percent')).toBe(fields.includes('percent'));
    expect(present('Clause 1: candles')).toBe(fields.includes('candles'));
    // The sentence the builder makes is one the contract takes.
    expect(screen.getByRole('group', { name: 'Condition 1' }).querySelectorAll('[aria-invalid="true"]')).toHaveLength(0);
  });

  it("marks a timeframe shorter than the agent's (its timeframe changed since) where it is", () => {
    const stored = newCondition();
    stored.when.clauses = [{ ...newClause(), left: { indicator: 'rsi', period: 14, timeframe: '4h' } }];
    renderBuilder({ initial: [stored], agentTimeframe: '1d' });
    const timeframe = control('Clause 1: left timeframe');
    expect(timeframe).toHaveDisplayValue("4 hours (shorter than the agent's)");
    expect(timeframe).toHaveAttribute('aria-invalid', 'true');
    expect(timeframe).toHaveAccessibleDescription("A timeframe must be the agent's (1 day) or longer");
  });

  it('keeps what still applies when the operator changes', async () => {
    const latest = renderBuilder();
    await userEvent.clear(control('Clause 1: left period'));
    await userEvent.type(control('Clause 1: left period'), '21');
    await userEvent.clear(control('Clause 1: right number'));
    await userEvent.type(control('Clause 1: right number'), '25');
    await userEvent.selectOptions(control('Clause 1: operator'), 'is above');
    expect(control('Clause 1: left period')).toHaveValue(21);
    expect(control('Clause 1: right number')).toHaveValue(25);
    // Between starts its lower side from the right side; back again, the right side is as it was.
    await userEvent.selectOptions(control('Clause 1: operator'), 'is between');
    expect(control('Clause 1: lower number')).toHaveValue(25);
    expect(control('Clause 1: upper number')).toHaveValue(70);
    await userEvent.selectOptions(control('Clause 1: operator'), 'rises by at least');
    await userEvent.clear(control('Clause 1: candles'));
    await userEvent.type(control('Clause 1: candles'), '7');
    await userEvent.selectOptions(control('Clause 1: operator'), 'is rising for');
    expect(control('Clause 1: candles')).toHaveValue(7);
    expect(latest.value[0]!.when.clauses[0]).toEqual({ kind: 'clause', left: { indicator: 'rsi', period: 21 }, operator: 'rising', candles: 7 });
    // The same indicator keeps its parameters across its lines; the timeframe stays with any.
    await userEvent.selectOptions(control('Clause 1: left side'), 'MACD line');
    await userEvent.clear(control('Clause 1: left fast period'));
    await userEvent.type(control('Clause 1: left fast period'), '8');
    await userEvent.selectOptions(control('Clause 1: left side'), 'MACD histogram');
    expect(control('Clause 1: left fast period')).toHaveValue(8);
    expect(control('Clause 1: left slow period')).toHaveValue(26);
  });

  it('adds and removes clauses and a group with its own join, and says them in plain words', async () => {
    const latest = renderBuilder();
    await userEvent.click(screen.getByRole('button', { name: 'Condition 1: add clause' }));
    await userEvent.selectOptions(control('Clause 2: left side'), 'close');
    await userEvent.selectOptions(control('Clause 2: operator'), 'is above');
    await userEvent.selectOptions(control('Clause 2: right side'), 'SMA');
    await userEvent.click(screen.getByRole('button', { name: 'Condition 1: add group' }));
    const group = within(screen.getByRole('group', { name: 'Condition 1, group 1' }));
    expect(group.getByRole('combobox', { name: 'Group 1: join' })).toHaveDisplayValue('any of');
    await userEvent.click(group.getByRole('button', { name: 'Add clause to group 1' }));
    await userEvent.selectOptions(group.getByRole('combobox', { name: 'Clause 4: operator' }), 'crosses above');
    expect(
      condition().getByText('RSI (14) crosses below 30 and close is above SMA (20) and (RSI (14) crosses below 30 or RSI (14) crosses above 30)'),
    ).toBeInTheDocument();
    await userEvent.selectOptions(control('Condition 1: join'), 'any of');
    expect(latest.value[0]!.when.join).toBe('any');
    // The group's last clause removed removes the group.
    await userEvent.click(group.getByRole('button', { name: 'Remove clause 4' }));
    await userEvent.click(group.getByRole('button', { name: 'Remove clause 3' }));
    expect(screen.queryByRole('group', { name: 'Condition 1, group 1' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Remove clause 2' }));
    // The only clause left cannot be removed (a condition needs one).
    expect(screen.queryByRole('button', { name: 'Remove clause 1' })).not.toBeInTheDocument();
    expect(latest.value[0]!.when.clauses).toHaveLength(1);
    await userEvent.click(screen.getByRole('button', { name: 'Remove condition 1' }));
    expect(screen.getByText('No conditions')).toBeInTheDocument();
  });

  it('stops at the bounds and says so', async () => {
    // One short of each bound: the last one added by hand.
    const full = newCondition();
    full.when.clauses = Array.from({ length: CLAUSES_MAX - 1 }, () => newClause());
    renderBuilder({ initial: [full, ...Array.from({ length: CONDITIONS_MAX - 2 }, () => newCondition())] });
    expect(screen.queryByText(`A condition may have at most ${CLAUSES_MAX} clauses.`)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Condition 1: add group' }));
    expect(screen.getByRole('button', { name: 'Condition 1: add clause' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Add clause to group 1' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Condition 1: add group' })).toBeDisabled();
    expect(screen.getByText(`A condition may have at most ${CLAUSES_MAX} clauses.`)).toBeInTheDocument();
    expect(screen.queryByText(`An agent may have at most ${CONDITIONS_MAX} conditions.`)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Add condition' }));
    expect(screen.getAllByRole('group', { name: /^Condition \d+$/ })).toHaveLength(CONDITIONS_MAX);
    expect(screen.getByRole('button', { name: 'Add condition' })).toBeDisabled();
    expect(screen.getByText(`An agent may have at most ${CONDITIONS_MAX} conditions.`)).toBeInTheDocument();
  });

  it("shows the contract's message on the field as the value changes, and drops it once fixed", async () => {
    renderBuilder();
    const period = control('Clause 1: left period');
    await userEvent.clear(period);
    await userEvent.type(period, '1');
    expect(period).toHaveAttribute('aria-invalid', 'true');
    expect(period).toHaveAccessibleDescription('RSI period must be a whole number from 2 to 500');
    await userEvent.type(period, '4');
    expect(period).not.toHaveAttribute('aria-invalid');
    // An emptied number is refused on its own field, not on the side as a whole.
    const number = control('Clause 1: right number');
    await userEvent.clear(number);
    expect(number).toHaveAttribute('aria-invalid', 'true');
    expect(number).toHaveAccessibleDescription(/^The number must be a number from/);
    // MACD's fast period must be shorter than its slow one.
    await userEvent.selectOptions(control('Clause 1: left side'), 'MACD signal');
    await userEvent.clear(control('Clause 1: left fast period'));
    await userEvent.type(control('Clause 1: left fast period'), '30');
    expect(control('Clause 1: left fast period')).toHaveAccessibleDescription('MACD fast period must be shorter than its slow period');
  });

  it('can be used from the keyboard alone, in the order the sentence reads', async () => {
    const latest = renderBuilder({ initial: [] });
    await userEvent.tab();
    expect(screen.getByRole('button', { name: 'Add condition' })).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    const order = ['Remove condition 1', 'Condition 1: name (optional)', 'Condition 1: join', 'Clause 1: left side', 'Clause 1: left period', 'Clause 1: left timeframe', 'Clause 1: operator', 'Clause 1: right side', 'Clause 1: right number'];
    // From the top of the page: the sentence's controls in the order it reads.
    (document.activeElement as HTMLElement).blur();
    for (const name of order) {
      await userEvent.tab();
      expect(document.activeElement).toHaveAccessibleName(name);
    }
    await userEvent.keyboard('{Backspace}{Backspace}45');
    expect(latest.value[0]!.when.clauses[0]).toMatchObject({ right: { indicator: 'number', value: 45 } });
    // On to Add clause, pressed with the space bar.
    while (document.activeElement?.getAttribute('aria-label') !== 'Condition 1: add clause') await userEvent.tab();
    await userEvent.keyboard(' ');
    expect(control('Clause 2: operator')).toBeInTheDocument();
  });

  it('takes an expiry in the owner\'s zone, named, and a cooldown in hours', async () => {
    const latest = renderBuilder();
    const expiry = condition().getByLabelText('Condition 1: expires');
    expect(expiry).toHaveAccessibleDescription('In Europe/Paris. Empty: never expires.');
    await userEvent.type(expiry, '2026-12-01T09:00');
    // 09:00 in Paris in winter is 08:00 UTC.
    expect(latest.value[0]!.trigger.expiresAt).toBe('2026-12-01T08:00:00.000Z');
    await userEvent.selectOptions(condition().getByRole('combobox', { name: 'Condition 1: cooldown unit' }), 'hours');
    await userEvent.type(condition().getByRole('spinbutton', { name: 'Condition 1: cooldown' }), '2');
    expect(latest.value[0]!.trigger).toEqual({ mode: 'once-per-close', expiresAt: '2026-12-01T08:00:00.000Z', cooldownMinutes: 120 });
    await userEvent.selectOptions(condition().getByRole('combobox', { name: 'Condition 1: trigger' }), 'Only once');
    expect(condition().getByRole('combobox', { name: 'Condition 1: trigger' })).toHaveAccessibleDescription(/disarms itself until you re-arm it/);
    expect(latest.value[0]!.trigger.mode).toBe('once');
  });

  it('puts a condition drafted elsewhere ("Describe it") in the builder for review, with an id of its own', async () => {
    const drafted: TCondition = { ...newCondition(), name: 'From words' };
    const first = newCondition();
    const latest: { value: TCondition[] } = { value: [] };
    function WithDescribe() {
      const [value, setValue] = useState([first]);
      return (
        <ConditionsEditor
          value={value}
          onChange={(next) => {
            latest.value = next;
            setValue(next);
          }}
          errors={{}}
          agentTimeframe="1h"
          timeZone="UTC"
          describe={(add) => (
            <>
              <button type="button" onClick={() => add(drafted)}>
                Draft
              </button>
              <button type="button" onClick={() => add({ ...drafted, id: first.id })}>
                Draft again
              </button>
            </>
          )}
        />
      );
    }
    renderWithProviders(<WithDescribe />);
    await userEvent.click(screen.getByRole('button', { name: 'Draft' }));
    expect(condition(2).getByRole('textbox', { name: 'Condition 2: name (optional)' })).toHaveValue('From words');
    expect(latest.value[1]!.id).toBe(drafted.id);
    await userEvent.click(screen.getByRole('button', { name: 'Draft again' }));
    expect(latest.value).toHaveLength(3);
    expect(new Set(latest.value.map((c) => c.id)).size).toBe(3);
  });

  it('gives new conditions a v4 UUID, also where the page has no crypto.randomUUID', () => {
    expect(ZCondition.shape.id.safeParse(newConditionId()).success).toBe(true);
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array<ArrayBuffer>) => real.getRandomValues(bytes) });
    const id = newConditionId();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newConditionId()).not.toBe(id);
  });
});

describe('AgentWizard with conditions', () => {
  it("lands a 400's condition and watchlist problems on their fields, opens Parameters, and names them on Review", async () => {
    stubFetch({ 'GET /api/channels': jsonResponse({ channels: [] }) });
    const onCreate = vi.fn(async (_config: TAgentConfig) => {
      throw new ApiError('400: Invalid request', 400, {
        error: 'Invalid request',
        details: [
          { path: 'config.conditions.0.when.clauses.1.right.period', message: 'SMA period must be a whole number from 2 to 500' },
          { path: 'config.conditions.0.trigger.cooldownMinutes', message: 'Cooldown must be a whole number from 0 to 10,080' },
          { path: 'config.watchlist.1.symbol', message: 'A crypto pair must be two symbols of 2 to 10 capital letters or digits joined by / (e.g. BTC/USDT)' },
        ],
      });
    });
    renderWithProviders(<AgentWizard open onOpenChange={() => {}} template={findTemplate('custom-monitor')!} name="Mine" pending={false} onCreate={onCreate} />);
    const wizard = within(screen.getByRole('dialog', { name: 'Configure Your Agent' }));
    await userEvent.click(wizard.getByRole('tab', { name: 'Parameters' }));
    // No signals of its own: said, not an empty list.
    expect(wizard.getByRole('region', { name: 'Signals' })).toHaveTextContent('Custom Monitor has no signals of its own');
    // The Custom Monitor starts with its template's watchlist.
    expect(wizard.getByRole('textbox', { name: 'Market 1: symbol' })).toHaveValue('AAPL');
    expect(wizard.getByRole('textbox', { name: 'Market 2: symbol' })).toHaveValue('BTC/USDT');
    await userEvent.click(wizard.getByRole('button', { name: 'Add condition' }));
    await userEvent.click(wizard.getByRole('button', { name: 'Condition 1: add clause' }));
    await userEvent.selectOptions(wizard.getByRole('combobox', { name: 'Clause 2: right side' }), 'SMA');
    await userEvent.click(wizard.getByRole('tab', { name: 'Review' }));
    expect(wizard.getByText('AAPL, BTC/USDT on binance', { selector: 'dd' })).toBeInTheDocument();
    await userEvent.click(wizard.getByRole('button', { name: 'Create Agent' }));
    const sent = onCreate.mock.calls[0]![0];
    expect(sent.conditions).toHaveLength(1);
    expect(sent.watchlist).toEqual(findTemplate('custom-monitor')!.defaultConfig.watchlist);

    // The first tab holding a refused field opens, marked; focus goes to its first marked field.
    expect(await wizard.findByRole('tab', { name: /Parameters \(has problems\)/, selected: true })).toBeInTheDocument();
    const period = wizard.getByRole('spinbutton', { name: 'Clause 2: right period' });
    expect(period).toHaveAttribute('aria-invalid', 'true');
    expect(period).toHaveAccessibleDescription('SMA period must be a whole number from 2 to 500');
    expect(wizard.getByRole('spinbutton', { name: 'Condition 1: cooldown' })).toHaveAccessibleDescription(/^Cooldown must be a whole number from 0 to 10,080/);
    expect(wizard.getByRole('textbox', { name: 'Market 2: symbol' })).toHaveAccessibleDescription(/^A crypto pair must be/);
    await vi.waitFor(() => expect(wizard.getByRole('textbox', { name: 'Market 2: symbol' })).toHaveFocus());

    await userEvent.click(wizard.getByRole('tab', { name: /Review/ }));
    const problems = wizard.getByRole('list', { name: 'Condition problems' });
    expect(within(problems).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Condition 1, clause 2: SMA period must be a whole number from 2 to 500',
      'Condition 1: Cooldown must be a whole number from 0 to 10,080',
    ]);

    // Changing the field drops the server's message (it has not judged the new value).
    await userEvent.click(wizard.getByRole('tab', { name: /Parameters/ }));
    await userEvent.type(wizard.getByRole('spinbutton', { name: 'Clause 2: right period' }), '5');
    expect(wizard.getByRole('spinbutton', { name: 'Clause 2: right period' })).not.toHaveAttribute('aria-invalid');
  });
});

describe('TemplateCard for the Custom Monitor', () => {
  it('shows its starting watchlist and says it has no decision rules of its own', async () => {
    renderWithProviders(<TemplateCard template={findTemplate('custom-monitor')!} onUse={() => {}} />);
    await userEvent.click(screen.getByRole('button', { name: 'Details' }));
    const details = within(screen.getByRole('dialog', { name: 'Custom Monitor' }));
    expect(details.getByText('AAPL, BTC/USDT on binance (change it in the wizard)')).toBeInTheDocument();
    expect(details.getByText('None: only the conditions and alert thresholds you set decide.')).toBeInTheDocument();
  });
});
