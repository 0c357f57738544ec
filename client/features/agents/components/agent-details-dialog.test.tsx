import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AGENT_TEMPLATES, type TAgent, type TAgentRun } from '../../../../contracts/agents.ts';
import type { TRunResult } from '../../../../contracts/market.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { AgentDetailsDialog, Settings } from './agent-details-dialog.tsx';
import { RUN_POLL_MS } from '../api/agents-api.ts';
import { CRYPTO_AGENT, RUNS, STOCK_AGENT, backtestResult, ndjson } from '../lib/agents-test-data.ts';
import { BACKTEST_CONTENT_TYPE } from '../../../../contracts/backtest.ts';
import { notify } from '../../../lib/notify.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';

beforeEach(() => vi.clearAllMocks());

function Harness({ agent }: { agent: TAgent }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      <AgentDetailsDialog agent={agent} template={AGENT_TEMPLATES.find((t) => t.id === agent.templateId)} open={open} onOpenChange={setOpen} />
    </>
  );
}

const routes = (agent: TAgent, runs = RUNS) => ({
  [`GET /api/agents/${agent.id}`]: { body: agent },
  [`GET /api/agents/${agent.id}/runs?limit=50`]: { body: runs },
  'GET /api/agents': { body: [agent] },
});

function stubAgent(agent: TAgent, runs = RUNS) {
  return stubFetch({
    [`GET /api/agents/${agent.id}`]: { body: agent },
    [`GET /api/agents/${agent.id}/runs?limit=50`]: { body: runs },
    [`PATCH /api/agents/${agent.id}`]: (request) => jsonResponse({ ...agent, config: (request.body as { config: TAgent['config'] }).config }),
    'GET /api/agents': { body: [agent] },
  });
}

async function open() {
  await userEvent.click(screen.getByRole('button', { name: 'Open' }));
  return within(await screen.findByRole('dialog'));
}

describe('AgentDetailsDialog', () => {
  it('shows the overview, and every opening starts on Overview with edits closed', async () => {
    // Settings' zone is Tokyo; the schedule was set in UTC (docs/decisions/0066).
    setSettingsTimeZone('Asia/Tokyo');
    stubAgent(STOCK_AGENT);
    renderWithProviders(<Harness agent={STOCK_AGENT} />);
    let d = await open();
    expect(d.getByRole('tab', { name: 'Overview' })).toHaveAttribute('aria-selected', 'true');
    // One word for the status, the card's and SPEC's 'Running Agents'.
    expect(d.getByText('Status').nextSibling).toHaveTextContent(/^Running$/);
    // Every time in the one zone, named: 10:05 UTC is 19:05 in Tokyo.
    expect(d.getByText('Last Run').nextSibling).toHaveTextContent(/^Mar 4, 2025 19:05 GMT\+9$/);
    expect(d.getByText('Created').nextSibling).toHaveTextContent(/^Mar 1, 2025$/);
    expect(d.getByText('Next run').nextSibling).toHaveTextContent(/^Mar 4, 2025 20:00 GMT\+9$/);
    expect(d.getByText('Performance').nextSibling).toHaveTextContent('+2.5% at Mar 4, 2025 19:05 GMT+9');
    // The hours stay in the zone they were set in, named; 'Active hours' as the wizard says, on every agent.
    expect(d.queryByText('Trading hours')).not.toBeInTheDocument();
    expect(d.getByText('Active hours').nextSibling).toHaveTextContent(/^09:30 – 16:00 \(UTC\)$/);

    await userEvent.click(d.getByRole('button', { name: 'Edit schedule' }));
    expect(d.getByRole('combobox', { name: 'Frequency' })).toBeInTheDocument();
    await userEvent.click(d.getByRole('tab', { name: 'Settings' }));
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    d = await open();
    expect(d.getByRole('tab', { name: 'Overview' })).toHaveAttribute('aria-selected', 'true');
    expect(d.queryByRole('combobox', { name: 'Frequency' })).not.toBeInTheDocument();
    expect(d.getByRole('button', { name: 'Edit schedule' })).toBeInTheDocument();
  });

  it('edits the schedule: Save disabled without a frequency, Cancel discards, Save PATCHes the whole config', async () => {
    // Hours set in New York, read by someone whose times are in Tokyo: an edit keeps them New York's.
    setSettingsTimeZone('Asia/Tokyo');
    const agent = { ...STOCK_AGENT, config: { ...STOCK_AGENT.config, schedule: { ...STOCK_AGENT.config.schedule, timeZone: 'America/New_York' } } };
    const { requests } = stubAgent(agent);
    renderWithProviders(<Harness agent={agent} />);
    const d = await open();
    await userEvent.click(d.getByRole('button', { name: 'Edit schedule' }));
    const frequency = d.getByRole('combobox', { name: 'Frequency' });
    await userEvent.selectOptions(frequency, '');
    expect(d.getByRole('button', { name: 'Save' })).toBeDisabled();
    await userEvent.click(d.getByRole('button', { name: 'Cancel' }));
    expect(d.getByText('Frequency').nextSibling).toHaveTextContent('Hourly');

    await userEvent.click(d.getByRole('button', { name: 'Edit schedule' }));
    expect(d.getByRole('group', { name: 'Active hours (America/New_York)' })).toBeInTheDocument();
    // 24-hour 'HH:mm', as every time is written, whatever the browser's clock.
    expect(d.getByRole('textbox', { name: 'Start' })).toHaveValue('09:30');
    expect(d.getByRole('textbox', { name: 'Start' })).toHaveAccessibleDescription('24-hour clock, HH:mm: 00:00 is midnight.');
    await userEvent.selectOptions(d.getByRole('combobox', { name: 'Frequency' }), 'daily');
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Agent updated successfully', 'The changes have been saved.'));
    const patch = requests.find((r) => r.method === 'PATCH');
    expect(patch?.body).toEqual({
      config: { ...agent.config, schedule: { ...agent.config.schedule, frequency: 'daily', timeZone: 'America/New_York' } },
    });
  });

  it("edits every parameter with the wizard's fields, the token upper-cased with its placeholder; a refusal lands on its field", async () => {
    let answer: 'refuse' | 'fail' = 'refuse';
    const { requests } = stubFetch({
      [`GET /api/agents/${CRYPTO_AGENT.id}`]: { body: CRYPTO_AGENT },
      [`GET /api/agents/${CRYPTO_AGENT.id}/runs?limit=50`]: { status: 500, body: { error: 'Boom' } },
      [`PATCH /api/agents/${CRYPTO_AGENT.id}`]: () =>
        answer === 'refuse'
          ? jsonResponse({ error: 'Invalid request', details: [{ path: 'parameters.token', message: 'must be 2 to 10 capital letters (e.g. BTC)' }] }, 400)
          : jsonResponse({ error: 'Internal Server Error' }, 500),
    });
    renderWithProviders(<Harness agent={CRYPTO_AGENT} />);
    const d = await open();
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Error loading run history', '500: Boom'));
    expect(d.getByText('Status').nextSibling).toHaveTextContent('Paused');
    await userEvent.click(d.getByRole('button', { name: 'Edit parameters' }));
    const parameters = within(d.getByRole('region', { name: 'Parameters' }));
    expect(parameters.getByRole('textbox', { name: /^Token/ })).toHaveValue('BTC');
    expect(parameters.getByRole('combobox', { name: /^Timeframe/ })).toHaveValue('15min');
    expect(parameters.getByRole('list', { name: 'Selected exchanges' })).toHaveTextContent('Binance');
    expect(parameters.getByRole('slider', { name: /Volatility threshold/ })).toHaveAttribute('aria-valuenow', '2');
    expect(parameters.getByRole('spinbutton', { name: /Price change threshold/ })).toHaveValue(3);
    expect(parameters.getAllByRole('switch')).toHaveLength(2);

    const token = parameters.getByPlaceholderText('Enter token symbol (e.g. BTC, ETH)');
    await userEvent.clear(token);
    await userEvent.type(token, 'eth');
    expect(token).toHaveValue('ETH');
    await userEvent.selectOptions(parameters.getByRole('combobox', { name: /Add|Exchanges/ }), 'Kraken');
    await userEvent.click(parameters.getByRole('button', { name: 'Save' }));
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Failed to update agent', 'Some settings need a change: see the marked fields.'));
    const sent = (requests.find((r) => r.method === 'PATCH')?.body as { config: TAgent['config'] }).config;
    expect(sent).toEqual({ ...CRYPTO_AGENT.config, parameters: { ...CRYPTO_AGENT.config.parameters, token: 'ETH', exchanges: ['Binance', 'Kraken'] } });
    expect(token).toHaveAttribute('aria-invalid', 'true');
    expect(token).toHaveAccessibleDescription(/^must be 2 to 10 capital letters \(e\.g\. BTC\)/);
    await vi.waitFor(() => expect(token).toHaveFocus());

    // A failure that is not about fields: SPEC's toast with the error's message.
    answer = 'fail';
    await userEvent.click(parameters.getByRole('button', { name: 'Save' }));
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Failed to update agent', '500: Internal Server Error'));
  });

  it("edits a stock agent's symbols and RSI threshold, and its name", async () => {
    const { requests } = stubFetch({
      [`GET /api/agents/${STOCK_AGENT.id}`]: { body: STOCK_AGENT },
      [`GET /api/agents/${STOCK_AGENT.id}/runs?limit=50`]: { body: [] },
      [`PATCH /api/agents/${STOCK_AGENT.id}`]: (request) => jsonResponse({ ...STOCK_AGENT, ...(request.body as object) }),
      'GET /api/agents': { body: [STOCK_AGENT] },
    });
    renderWithProviders(<Harness agent={STOCK_AGENT} />);
    const d = await open();
    await userEvent.click(d.getByRole('button', { name: 'Edit parameters' }));
    const symbols = d.getByRole('textbox', { name: /Symbols/ });
    await userEvent.clear(symbols);
    await userEvent.type(symbols, 'NVDA, TSLA');
    const rsi = d.getByRole('slider', { name: /RSI threshold/ });
    rsi.focus();
    for (let i = 0; i < 10; i++) await userEvent.keyboard('{ArrowLeft}');
    expect(rsi).toHaveAttribute('aria-valuenow', '60');
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Agent updated successfully', 'The changes have been saved.'));
    expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({
      config: { ...STOCK_AGENT.config, parameters: { ...STOCK_AGENT.config.parameters, symbols: 'NVDA, TSLA', rsiThreshold: 60 } },
    });
    expect(d.queryByRole('slider')).not.toBeInTheDocument();

    await userEvent.click(d.getByRole('button', { name: 'Edit name' }));
    const name = d.getByRole('textbox', { name: 'Agent name' });
    await userEvent.clear(name);
    await userEvent.type(name, 'Chip watch');
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    await vi.waitFor(() => expect(requests.filter((r) => r.method === 'PATCH')).toHaveLength(2));
    expect(requests.filter((r) => r.method === 'PATCH')[1]!.body).toEqual({ name: 'Chip watch' });
  });

  it('edits the notifications and thresholds in the Settings tab', async () => {
    const { requests } = stubAgent(CRYPTO_AGENT);
    renderWithProviders(<Harness agent={CRYPTO_AGENT} />);
    const d = await open();
    await userEvent.click(d.getByRole('tab', { name: 'Settings' }));
    await userEvent.click(d.getByRole('button', { name: 'Edit notifications' }));
    await userEvent.click(d.getByRole('switch', { name: 'Email notifications' }));
    await userEvent.click(d.getByRole('button', { name: 'Add threshold' }));
    await userEvent.click(d.getByRole('button', { name: 'Save' }));
    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Agent updated successfully', 'The changes have been saved.'));
    const sent = (requests.find((r) => r.method === 'PATCH')?.body as { config: TAgent['config'] }).config.notifications;
    expect(sent.email).toBe(true);
    expect(sent.thresholds).toHaveLength(2);
    expect(sent.thresholds[0]).toEqual(CRYPTO_AGENT.config.notifications.thresholds[0]);
  });
});

it("repairs parameters stored before the template changed: unknown ones dropped, missing ones at their default", async () => {
  const { rsiThreshold: _dropped, ...kept } = STOCK_AGENT.config.parameters;
  const stale: TAgent = { ...STOCK_AGENT, config: { ...STOCK_AGENT.config, parameters: { ...kept, rsiLevel: 65 } } };
  const { requests } = stubAgent(stale);
  renderWithProviders(<Harness agent={stale} />);
  const d = await open();
  await userEvent.click(d.getByRole('button', { name: 'Edit parameters' }));
  expect(d.getByRole('slider', { name: /RSI threshold/ })).toHaveAttribute('aria-valuenow', '70');
  await userEvent.click(d.getByRole('button', { name: 'Save' }));
  await vi.waitFor(() => expect(requests.some((r) => r.method === 'PATCH')).toBe(true));
  expect((requests.find((r) => r.method === 'PATCH')?.body as { config: TAgent['config'] }).config.parameters).toEqual(STOCK_AGENT.config.parameters);
});

describe('closing with an unsaved edit', () => {
  it('asks before discarding; an edit opened but unchanged closes at once', async () => {
    stubAgent(STOCK_AGENT);
    renderWithProviders(<Harness agent={STOCK_AGENT} />);
    let d = await open();
    await userEvent.click(d.getByRole('button', { name: 'Edit name' }));
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    d = await open();
    await userEvent.click(d.getByRole('button', { name: 'Edit name' }));
    await userEvent.type(d.getByRole('textbox', { name: 'Agent name' }), ' 2');
    await userEvent.keyboard('{Escape}');
    const confirm = screen.getByRole('dialog', { name: 'Discard your changes?' });
    expect(confirm).toHaveTextContent('Your unsaved edits to Tech watch will be lost.');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Keep editing' }));
    expect(d.getByRole('textbox', { name: 'Agent name' })).toHaveValue('Tech watch 2');
    await userEvent.click(d.getByRole('button', { name: 'Close' }));
    await userEvent.click(within(screen.getByRole('dialog', { name: 'Discard your changes?' })).getByRole('button', { name: 'Discard changes' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    // The next opening starts clean: nothing left to ask about.
    await open();
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

describe('Run History and Chart tabs', () => {
  const queued: TAgentRun = { id: 9, scheduledFor: null, status: 'queued', startTime: null, endTime: null, result: null, error: null, createdAt: '2025-03-04T10:05:00.000Z' };
  const result: TRunResult = {
    templateId: 'crypto-market-monitor',
    simulated: true,
    performance: null,
    alerts: [],
    markets: [
      {
        ok: true,
        symbol: 'BTC/USDT',
        source: 'binance',
        simulated: true,
        timeframe: '15m',
        price: 101,
        candleTime: '2025-03-04T10:00:00.000Z',
        indicators: { 'RSI 14': 55 },
        rules: [{ name: 'Price change', status: 'evaluated', fired: true, values: {}, detail: 'change +1.00% > 0% in size' }],
        chart: { candles: [{ time: Date.UTC(2025, 2, 4, 10), open: 100, high: 102, low: 99, close: 101, volume: 5 }], overlays: {}, markers: [] },
      },
    ],
  };
  const done: TAgentRun = { ...queued, status: 'success', startTime: '2025-03-04T10:05:01.000Z', endTime: '2025-03-04T10:05:02.000Z', result };

  it('lists the runs in the Run History tab, and the Chart and Test on history tabs come after SPEC\'s tabs, Chart with its empty state', async () => {
    stubAgent(STOCK_AGENT);
    renderWithProviders(<Harness agent={STOCK_AGENT} />);
    const d = await open();
    expect(d.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Overview', 'Run History', 'Settings', 'Chart', 'Test on history']);
    await userEvent.click(d.getByRole('tab', { name: 'Run History' }));
    expect(await d.findByRole('heading', { name: 'Last 3 executions' })).toBeInTheDocument();
    expect(d.getByText('Run #7').closest('li')!.querySelector('pre')?.textContent).toBe('{\n  "signals": 2\n}');
    await userEvent.click(d.getByRole('tab', { name: 'Chart' }));
    expect(d.getByText('No chart yet: run the agent to see its data')).toBeInTheDocument();
  });

  it("Run now: queued says so; pressed while a run is in progress, shows the server's 'A run is already in progress'", async () => {
    let presses = 0;
    stubFetch({
      [`GET /api/agents/${STOCK_AGENT.id}`]: { body: STOCK_AGENT },
      [`GET /api/agents/${STOCK_AGENT.id}/runs?limit=50`]: { body: RUNS },
      'GET /api/agents': { body: [STOCK_AGENT] },
      [`POST /api/agents/${STOCK_AGENT.id}/run`]: () =>
        presses++ === 0 ? jsonResponse({ runId: 99 }, 202) : jsonResponse({ error: 'Conflict', message: 'A run is already in progress' }, 409),
    });
    renderWithProviders(<Harness agent={STOCK_AGENT} />);
    const d = await open();
    await userEvent.click(d.getByRole('button', { name: 'Run now' }));
    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Run queued', expect.stringContaining(STOCK_AGENT.name)));
    await userEvent.click(await d.findByRole('button', { name: 'Run now' }));
    await vi.waitFor(() => expect(notify.info).toHaveBeenCalledWith('A run is already in progress', 'Run History shows its result when it finishes.'));
    expect(notify.error).not.toHaveBeenCalled();
  });

  it('polls while a run is queued, then shows its result, refreshes the agent and stops polling', async () => {
    // The clock runs on its own (user events wait on it) and is pushed past each poll interval.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      let polls = 0;
      const { requests } = stubFetch({
        [`GET /api/agents/${STOCK_AGENT.id}`]: { body: STOCK_AGENT },
        [`GET /api/agents/${STOCK_AGENT.id}/runs?limit=50`]: () => jsonResponse([polls++ === 0 ? queued : done]),
        'GET /api/agents': { body: [STOCK_AGENT] },
      });
      const count = (url: string) => requests.filter((r) => r.url === url).length;
      renderWithProviders(<Harness agent={STOCK_AGENT} />);
      const d = await open();
      await userEvent.click(d.getByRole('tab', { name: 'Run History' }));
      expect(await d.findByText('Queued')).toBeInTheDocument();

      await vi.advanceTimersByTimeAsync(RUN_POLL_MS);
      expect(await d.findByText('Simulated data')).toBeInTheDocument();
      expect(d.getByText('Success')).toBeInTheDocument();
      // The finished run changed the agent's Last Run: it is fetched again.
      await vi.waitFor(() => expect(count(`/api/agents/${STOCK_AGENT.id}`)).toBe(2));

      await vi.advanceTimersByTimeAsync(3 * RUN_POLL_MS);
      expect(polls).toBe(2);

      await userEvent.click(d.getByRole('tab', { name: 'Chart' }));
      expect(d.getByText(/^From run #9/)).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Settings', () => {
  it('shows email and in-app on/off and the thresholds', () => {
    renderWithProviders(<Settings agent={CRYPTO_AGENT} />);
    expect(screen.getByText('Email notifications').nextSibling).toHaveTextContent('Off');
    expect(screen.getByText('In-app notifications').nextSibling).toHaveTextContent('On');
    const alerts = within(screen.getByRole('region', { name: 'Alert thresholds' }));
    expect(alerts.getByRole('listitem')).toHaveTextContent('Price change3%Price movedHow far the close moved over the last candle, up or down, as a % of the close before it.');
    // The template's signals are listed apart, under their own name.
    expect(within(screen.getByRole('region', { name: 'Signals' })).getAllByRole('listitem').map((li) => li.firstChild?.textContent)).toEqual([
      'Price change',
      'Volatility spike',
      'Volume surge',
      'Whale transaction',
    ]);
  });

  // Issue 29 item 11: the Settings tab did not list the agent's channels.
  it("lists the agent's channels by name and kind, 'None' without any", async () => {
    const ids = ['00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000a'];
    stubFetch({
      'GET /api/channels': jsonResponse({
        channels: [
          { id: ids[1], kind: 'telegram', name: 'Phone', target: 'chat -100 · bot 1234…', createdAt: '2025-01-01T00:00:00.000Z', movedFrom: null },
          { id: ids[0], kind: 'discord', name: 'Team room', target: 'discord.com/…/x', createdAt: '2025-01-01T00:00:00.000Z', movedFrom: null },
        ],
      }),
    });
    const withChannels = { ...CRYPTO_AGENT, config: { ...CRYPTO_AGENT.config, notifications: { ...CRYPTO_AGENT.config.notifications, channels: ids } } };
    const { unmount } = renderWithProviders(<Settings agent={withChannels} />);
    const channels = () => screen.getByText('Channels', { selector: 'dt' }).nextSibling;
    await vi.waitFor(() => expect(channels()).toHaveTextContent('Team room (Discord), Phone (Telegram)'));
    unmount();
    renderWithProviders(<Settings agent={CRYPTO_AGENT} />);
    expect(channels()).toHaveTextContent('None');
  });

  it("says 'No thresholds configured' when there are none", () => {
    renderWithProviders(<Settings agent={STOCK_AGENT} />);
    expect(screen.getByText('No thresholds configured')).toBeInTheDocument();
  });
});

describe('Test on history tab', () => {
  const streamed = () => new Response(ndjson([{ type: 'result', result: backtestResult() }]), { headers: { 'content-type': BACKTEST_CONTENT_TYPE } });

  it('tests the saved configuration when nothing is being edited', async () => {
    const { requests } = stubFetch({ ...routes(STOCK_AGENT), [`POST /api/agents/${STOCK_AGENT.id}/backtest`]: streamed });
    renderWithProviders(<Harness agent={STOCK_AGENT} />);
    const d = await open();
    await userEvent.click(d.getByRole('tab', { name: 'Test on history' }));
    expect(d.getByText('Tests the saved settings.')).toBeInTheDocument();
    await userEvent.click(await d.findByRole('button', { name: 'Test on history' }));
    expect(await d.findByRole('region', { name: 'Test result' })).toBeInTheDocument();
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ candles: 500 });
  });

  it("applies every section's unsaved edit, from any tab, and the edits survive the visit", async () => {
    const { requests } = stubFetch({ ...routes(STOCK_AGENT), [`POST /api/agents/${STOCK_AGENT.id}/backtest`]: streamed });
    renderWithProviders(<Harness agent={STOCK_AGENT} />);
    const d = await open();
    await userEvent.click(d.getByRole('button', { name: 'Edit parameters' }));
    d.getByRole('slider', { name: /RSI threshold/ }).focus();
    for (let i = 0; i < 10; i++) await userEvent.keyboard('{ArrowLeft}');
    await userEvent.click(d.getByRole('tab', { name: 'Settings' }));
    await userEvent.click(d.getByRole('button', { name: 'Edit notifications' }));
    await userEvent.click(d.getByRole('switch', { name: 'In-app notifications' }));
    await userEvent.click(d.getByRole('tab', { name: 'Test on history' }));
    expect(d.getByText('Tests the saved settings with your unsaved edits to Parameters and Notifications.')).toBeInTheDocument();
    await userEvent.click(await d.findByRole('button', { name: 'Test on history' }));
    await d.findByRole('region', { name: 'Test result' });
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({
      config: {
        ...STOCK_AGENT.config,
        parameters: { ...STOCK_AGENT.config.parameters, rsiThreshold: 60 },
        notifications: { ...STOCK_AGENT.config.notifications, inApp: true },
      },
      candles: 500,
    });
    expect(requests.some((r) => r.method === 'PATCH')).toBe(false);

    await userEvent.click(d.getByRole('tab', { name: 'Overview' }));
    expect(d.getByRole('slider', { name: /RSI threshold/ })).toHaveAttribute('aria-valuenow', '60');
    // Still unsaved: closing asks first.
    await userEvent.keyboard('{Escape}');
    expect(await screen.findByRole('dialog', { name: 'Discard your changes?' })).toBeInTheDocument();
  });
});
