import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AGENT_TEMPLATES, type TAgent } from '../../../../contracts/agents.ts';
import type { TCondition, TConditionState } from '../../../../contracts/conditions.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import { STOCK_AGENT } from '../lib/agents-test-data.ts';
import { AgentDetailsDialog } from './agent-details-dialog.tsx';

afterEach(() => setSettingsTimeZone(null));

const clause = { kind: 'clause', left: { indicator: 'rsi', period: 14 }, operator: 'crosses-below', right: { indicator: 'number', value: 30 } } as const;
const CONDITIONS: TCondition[] = [
  { id: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', name: 'Oversold', when: { kind: 'group', join: 'all', clauses: [clause] }, trigger: { mode: 'once' } },
  {
    id: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
    when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'close', timeframe: '1d' }, operator: 'above', right: { indicator: 'ema', period: 200, timeframe: '1d' } }] },
    trigger: { mode: 'once-per-close', cooldownMinutes: 120 },
  },
  { id: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc', name: 'Old one', when: { kind: 'group', join: 'all', clauses: [clause] }, trigger: { mode: 'once-per-candle', expiresAt: '2020-01-01T08:00:00.000Z' } },
];

const MONITOR: TAgent = {
  ...STOCK_AGENT,
  id: '33333333-3333-4333-8333-333333333333',
  name: 'My monitor',
  templateId: 'custom-monitor',
  config: {
    ...STOCK_AGENT.config,
    parameters: { timeframe: '1h' },
    watchlist: [
      { kind: 'stock', symbol: 'AAPL' },
      { kind: 'crypto', symbol: 'BTC/USDT', exchange: 'binance' },
    ],
    conditions: CONDITIONS,
  },
};

function Harness({ agent }: { agent: TAgent }) {
  const [open, setOpen] = useState(true);
  return <AgentDetailsDialog agent={agent} template={AGENT_TEMPLATES.find((t) => t.id === agent.templateId)} open={open} onOpenChange={setOpen} />;
}

function stubMonitor(states: { current: TConditionState[] }) {
  const base = `/api/agents/${MONITOR.id}`;
  return stubFetch({
    [`GET ${base}`]: { body: MONITOR },
    [`GET ${base}/runs?limit=50`]: { body: [] },
    'GET /api/agents': { body: [MONITOR] },
    [`GET ${base}/conditions/state`]: () => jsonResponse(states.current),
    [`POST ${base}/conditions/${CONDITIONS[0]!.id}/rearm`]: () => {
      states.current = states.current.map((s) => (s.conditionId === CONDITIONS[0]!.id ? { ...s, disarmed: false } : s));
      return jsonResponse(states.current[0]);
    },
    [`DELETE ${base}/conditions/${CONDITIONS[1]!.id}/snooze`]: () => {
      states.current = states.current.map((s) => (s.conditionId === CONDITIONS[1]!.id ? { ...s, snoozedUntil: null } : s));
      return new Response(null, { status: 204 });
    },
  });
}

describe('Conditions in the details', () => {
  it('shows each condition in plain words with its trigger and state; Re-arm and Unsnooze change it', async () => {
    setSettingsTimeZone('Europe/Paris');
    const states = {
      current: [
        { conditionId: CONDITIONS[0]!.id, disarmed: true, snoozedUntil: null, lastNotifiedAt: '2025-03-04T10:00:00.000Z' },
        { conditionId: CONDITIONS[1]!.id, disarmed: false, snoozedUntil: '2099-01-01T08:00:00.000Z', lastNotifiedAt: null },
      ],
    };
    const { requests } = stubMonitor(states);
    renderWithProviders(<Harness agent={MONITOR} />);
    const dialog = within(await screen.findByRole('dialog'));
    const section = within(dialog.getByRole('region', { name: 'Conditions' }));
    const items = () => within(section.getByRole('list', { name: 'Conditions' })).getAllByRole('listitem');
    expect(items()[0]).toHaveTextContent('Oversold');
    expect(items()[0]).toHaveTextContent('RSI (14) crosses below 30');
    expect(items()[0]).toHaveTextContent('Only once');
    expect(items()[1]).toHaveTextContent('close on 1 day is above EMA (200) on 1 day');
    expect(items()[1]).toHaveTextContent('Once per candle close, at most every 2 hours');
    expect(items()[2]).toHaveTextContent('Once per candle, until Jan 1, 2020 09:00 (Europe/Paris)');

    expect(await within(items()[0]!).findByText('Disarmed: fired once')).toBeInTheDocument();
    expect(within(items()[1]!).getByText('Snoozed until Jan 1, 2099 09:00 (Europe/Paris)')).toBeInTheDocument();
    expect(within(items()[2]!).getByText('Expired')).toBeInTheDocument();

    await userEvent.click(within(items()[0]!).getByRole('button', { name: 'Re-arm Oversold' }));
    await vi.waitFor(() => expect(within(items()[0]!).queryByText('Disarmed: fired once')).not.toBeInTheDocument());
    await userEvent.click(within(items()[1]!).getByRole('button', { name: 'Unsnooze this condition' }));
    await vi.waitFor(() => expect(within(items()[1]!).queryByText(/Snoozed until/)).not.toBeInTheDocument());
    expect(requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST /api/agents/${MONITOR.id}/conditions/${CONDITIONS[0]!.id}/rearm`,
      `DELETE /api/agents/${MONITOR.id}/conditions/${CONDITIONS[1]!.id}/snooze`,
    ]);
  });

  it('edits the conditions and the watchlist with the wizard\'s builder and saves them whole', async () => {
    const states = { current: [] as TConditionState[] };
    const { requests } = stubMonitor(states);
    renderWithProviders(<Harness agent={MONITOR} />);
    const dialog = within(await screen.findByRole('dialog'));
    expect(within(dialog.getByRole('region', { name: 'Watchlist' })).getByRole('list', { name: 'Markets watched' })).toHaveTextContent('AAPLBTC/USDT on binance');
    await userEvent.click(dialog.getByRole('button', { name: 'Edit conditions' }));
    const condition = within(dialog.getByRole('group', { name: 'Condition 1' }));
    expect(condition.getByRole('textbox', { name: 'Condition 1: name (optional)' })).toHaveValue('Oversold');
    await userEvent.selectOptions(condition.getByRole('combobox', { name: 'Clause 1: operator' }), 'is below');
    // A 400 on a clause's field lands there.
    const base = `/api/agents/${MONITOR.id}`;
    stubFetch(
      {
        [`PATCH ${base}`]: {
          status: 400,
          body: { error: 'Invalid request', details: [{ path: 'config.conditions.1.when.clauses.0.right.timeframe', message: "A timeframe must be the agent's (1 hour) or longer" }] },
        },
      },
      (request) => (request.method === 'GET' ? jsonResponse(request.url.endsWith('/state') ? [] : request.url.includes('runs') ? [] : MONITOR) : undefined),
    );
    await userEvent.click(dialog.getByRole('button', { name: 'Save' }));
    const timeframe = await within(dialog.getByRole('group', { name: 'Condition 2' })).findByRole('combobox', { name: 'Clause 1: right timeframe' });
    expect(timeframe).toHaveAttribute('aria-invalid', 'true');
    expect(timeframe).toHaveAccessibleDescription("A timeframe must be the agent's (1 hour) or longer");
    expect(requests.length).toBeGreaterThan(0);
  });
});
