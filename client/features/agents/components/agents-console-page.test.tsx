import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AGENT_TEMPLATES, defaultAgentConfig } from '../../../../contracts/agents.ts';
import { jsonResponse, never, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import AgentsConsolePage from './agents-console-page.tsx';
import { CRYPTO_AGENT, RUNS, STOCK_AGENT, backtestResult, failingAgent, ndjson } from '../lib/agents-test-data.ts';
import { BACKTEST_CONTENT_TYPE } from '../../../../contracts/backtest.ts';
import { notify } from '../../../lib/notify.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';

beforeEach(() => vi.clearAllMocks());
afterEach(() => vi.useRealTimers());

const renderPage = () => renderWithProviders(<AgentsConsolePage />, { path: '/agents-console', auth: signedInAs('admin') });
/** When (on the fake clock) the agents list was asked for. */
let listedAt: number[] = [];
const listRecordingTimes = (agents = [STOCK_AGENT, CRYPTO_AGENT]) => {
  listedAt = [];
  return {
    'GET /api/agents': () => {
      listedAt.push(Date.now());
      return jsonResponse(agents);
    },
  };
};
/** When (on the fake clock) a mocked toast was last shown. */
const recordTimeOf = (show: ReturnType<typeof vi.mocked<typeof notify.error>>) => {
  let at = NaN;
  show.mockImplementation(() => void (at = Date.now()));
  return () => at;
};
const baseRoutes = (agents = [STOCK_AGENT, CRYPTO_AGENT]) => ({
  'GET /api/agent-templates': { body: AGENT_TEMPLATES },
  'GET /api/agents': { body: agents },
  'GET /api/agents/proposals?status=pending': { body: [] },
});

async function openNameDialog(template = 'Crypto Market Monitor') {
  await userEvent.click(await screen.findByRole('tab', { name: 'Agent Templates' }));
  const card = await screen.findByRole('listitem', { name: template });
  await userEvent.click(within(card).getByRole('button', { name: 'Use template' }));
  return screen.getByRole('dialog', { name: 'Name Your New Agent' });
}

describe('AgentsConsolePage', () => {
  it('shows the title, the tabs and the agents by status', async () => {
    stubFetch(baseRoutes());
    renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'AI Agents Console' })).toBeInTheDocument();
    expect(screen.getByText('Create, manage, and monitor your AI agents')).toBeInTheDocument();
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Running Agents', 'Paused Agents', 'Agent Templates']);

    const running = await screen.findByRole('listitem', { name: 'Tech watch' });
    expect(running).toHaveTextContent('Based on Stock Market Scanner');
    expect(running).toHaveTextContent('Last run');
    expect(within(running).getByText('+2.5%')).toHaveClass('text-emerald-700');
    expect(running).toHaveTextContent('Next run');
    expect(within(running).getByRole('button', { name: 'Pause' })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('tab', { name: 'Paused Agents' }));
    const paused = screen.getByRole('listitem', { name: 'Coins' });
    expect(paused).toHaveTextContent('Last active');
    expect(paused).toHaveTextContent('Never');
    expect(within(paused).getByText('-1.2%')).toHaveClass('text-red-700');
    expect(within(paused).getByRole('button', { name: 'Resume' })).toBeInTheDocument();
  });

  it('shows a failing agent red on its card, with its reason, its last success and its performance as of then; the list filters to failing agents', async () => {
    const failing = { ...failingAgent(STOCK_AGENT), performance: '+1.5%' };
    const other = { ...STOCK_AGENT, id: '33333333-3333-4333-8333-333333333333', name: 'Healthy watch' };
    stubFetch(baseRoutes([failing, other, CRYPTO_AGENT]));
    renderPage();
    const card = await screen.findByRole('listitem', { name: 'Tech watch' });
    expect(within(card).getByText('Failing').closest('div')).toHaveClass('bg-red-50');
    expect(card).toHaveTextContent('BTC/USD (kraken): The data provider is having trouble on its side.');
    expect(card).toHaveTextContent('Last successful run: Mar 4, 2025');
    expect(card).toHaveTextContent(/Performance\s*\+1\.5% at Mar 4, 2025/);
    expect(within(screen.getByRole('listitem', { name: 'Healthy watch' })).queryByText('Failing')).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('checkbox', { name: 'Only failing agents (1)' }));
    expect(screen.getByRole('list', { name: 'Running agents' }).children).toHaveLength(1);
    expect(screen.queryByRole('listitem', { name: 'Healthy watch' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('tab', { name: 'Paused Agents' }));
    expect(screen.getByText('No failing paused agents')).toBeInTheDocument();
  });

  it("opens from a notification's link at the agent's Run History with its run in view", async () => {
    stubFetch({
      ...baseRoutes(),
      [`GET /api/agents/${STOCK_AGENT.id}`]: { body: STOCK_AGENT },
      [`GET /api/agents/${STOCK_AGENT.id}/runs?limit=50`]: { body: RUNS },
    });
    renderWithProviders(<AgentsConsolePage />, { path: `/agents-console?agent=${STOCK_AGENT.id}&run=6`, auth: signedInAs('admin') });
    const dialog = await screen.findByRole('dialog', { name: 'Tech watch' });
    expect(within(dialog).getByRole('tab', { name: 'Run History' })).toHaveAttribute('aria-selected', 'true');
    const run = await within(dialog).findByText('Run #6');
    const item = run.closest('li')!;
    expect(item).toHaveAttribute('aria-current', 'true');
    expect(item).toHaveTextContent('From your notification');
    // Red, not the neutral badge with red classes on top (which one wins is up to the stylesheet).
    expect(within(item).getByText('Failure')).toHaveClass('bg-red-100', 'text-red-800');
    expect(within(item).getByText('Failure')).not.toHaveClass('bg-slate-100');
    await vi.waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/agents-console$/));
  });

  it('shows the empty states, and View Running Agents switches tab', async () => {
    stubFetch(baseRoutes([]));
    renderPage();
    expect(await screen.findByRole('heading', { name: 'No Running Agents' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create Your First Agent' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('tab', { name: 'Paused Agents' }));
    expect(screen.getByRole('heading', { name: 'No Paused Agents' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'View Running Agents' }));
    expect(screen.getByRole('tab', { name: 'Running Agents' })).toHaveAttribute('aria-selected', 'true');
  });

  it('names the agent: the default name, Continue disabled when blank, Enter on blank explains', async () => {
    stubFetch(baseRoutes([]));
    renderPage();
    const dialog = await openNameDialog('Stock Market Scanner');
    const input = within(dialog).getByRole('textbox', { name: 'Agent name' });
    expect(input).toHaveValue('Stock Market Scanner - S&P 500');
    expect(input).toHaveAccessibleDescription(/For example/);
    await userEvent.clear(input);
    await userEvent.type(input, '   ');
    expect(within(dialog).getByRole('button', { name: 'Continue' })).toBeDisabled();
    await userEvent.type(input, '{Enter}');
    expect(notify.error).toHaveBeenCalledWith('Name required', 'Please provide a name for your agent');
    expect(screen.queryByRole('dialog', { name: 'Configure Your Agent' })).not.toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it.each([
    ['Create Agent', 'Stock Market Scanner', 'Stock Market Scanner - S&P 500'],
    ['Create Your First Agent', 'Crypto Market Monitor', 'Crypto Market Monitor - BTC/ETH'],
    // Issue 30: the third template, SPEC's type 'other', named so.
    ['Create Agent', 'Custom Monitor', 'Custom Monitor - New'],
  ])('%s asks which template first, then names the agent with that template\'s default name', async (button, template, name) => {
    stubFetch(baseRoutes([]));
    renderPage();
    await screen.findByRole('heading', { name: 'No Running Agents' });
    await userEvent.click(screen.getByRole('button', { name: button }));
    const picker = screen.getByRole('dialog', { name: 'Choose a Template' });
    expect(screen.queryByRole('dialog', { name: 'Name Your New Agent' })).not.toBeInTheDocument();
    const choices = within(picker).getAllByRole('button').filter((b) => b.getAttribute('aria-label') !== 'Close');
    // Every template the server offers, in its order (the picker listed two before issue 30).
    expect(choices.map((b) => b.textContent)).toEqual(['Stock Market Scanner', 'Crypto Market Monitor', 'Custom Monitor']);
    const choice = within(picker).getByRole('button', { name: template });
    expect(choice).toHaveAccessibleDescription(expect.stringContaining(AGENT_TEMPLATES.find((t) => t.name === template)!.complexity));
    expect(choice).toHaveAccessibleDescription(expect.stringContaining(AGENT_TEMPLATES.find((t) => t.name === template)!.description));
    await userEvent.click(choice);
    expect(screen.queryByRole('dialog', { name: 'Choose a Template' })).not.toBeInTheDocument();
    expect(within(screen.getByRole('dialog', { name: 'Name Your New Agent' })).getByRole('textbox')).toHaveValue(name);
  });

  it('walks the wizard in order and creates the agent from the template defaults with the time zone', async () => {
    // The hours are entered in the zone every time is shown in: Settings', when there is one.
    setSettingsTimeZone('Asia/Tokyo');
    const { requests } = stubFetch({
      ...baseRoutes([]),
      'POST /api/agents': (request) => jsonResponse({ ...CRYPTO_AGENT, name: (request.body as { name: string }).name }, 201),
    });
    renderPage();
    const nameDialog = await openNameDialog();
    const input = within(nameDialog).getByRole('textbox');
    await userEvent.clear(input);
    await userEvent.type(input, 'My coins{Enter}');

    const wizard = await screen.findByRole('dialog', { name: 'Configure Your Agent' });
    const w = within(wizard);
    expect(w.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Schedule', 'Parameters', 'Notifications', 'Review']);
    const buttons = () => w.getAllByRole('button').filter((b) => b.getAttribute('aria-label') !== 'Close' && !b.closest('[role=tabpanel]')).map((b) => b.textContent);
    expect(buttons()).toEqual(['Cancel', 'Next']);
    const frequency = w.getByRole('combobox', { name: 'Frequency' });
    // One entry per period, shortest first, SPEC's names (Real-time, Hourly, Daily, Weekly) where it has them.
    expect(within(frequency).getAllByRole('option').map((o) => o.textContent)).toEqual(['Real-time', 'Every 5 minutes', 'Every 15 minutes', 'Every 30 minutes', 'Hourly', 'Daily', 'Weekly']);
    expect(frequency).toHaveValue('5min');
    expect(w.getAllByRole('checkbox')).toHaveLength(7);
    // 24-hour 'HH:mm' as every time is written: a time input would show the browser's '12:00 AM'.
    expect(w.getByRole('group', { name: 'Active hours (Asia/Tokyo)' })).toBeInTheDocument();
    expect(w.getByRole('textbox', { name: 'Start' })).toHaveValue('00:00');
    expect(w.getByRole('textbox', { name: 'End' })).toHaveValue('23:59');

    await userEvent.click(w.getByRole('button', { name: 'Next' }));
    expect(w.getByRole('tab', { name: 'Parameters' })).toHaveAttribute('aria-selected', 'true');
    expect(buttons()).toEqual(['Previous', 'Next']);
    await userEvent.click(w.getByRole('button', { name: 'Previous' }));
    expect(w.getByRole('tab', { name: 'Schedule' })).toHaveAttribute('aria-selected', 'true');

    // Tabs may be clicked directly.
    await userEvent.click(w.getByRole('tab', { name: 'Notifications' }));
    expect(w.getByRole('switch', { name: 'Email notifications' })).toBeChecked();
    // The cap on notifications per hour (empty: its default) and the template's three thresholds.
    expect(w.getAllByRole('spinbutton')).toEqual(
      ['Notifications per hour', 'Threshold 1 value (%)', 'Threshold 2 value (%)', 'Threshold 3 value (%)'].map((name) => w.getByRole('spinbutton', { name })),
    );
    expect(w.getByRole('spinbutton', { name: 'Notifications per hour' })).toHaveValue(null);
    await userEvent.click(w.getByRole('button', { name: 'Add threshold' }));
    // SPEC's new threshold, a price change of 5, with the message that follows its type and value.
    expect(w.getByRole('textbox', { name: 'Threshold 4 message' })).toHaveValue('Price change above 5%');
    expect(w.getByRole('spinbutton', { name: 'Threshold 4 value (%)' })).toHaveAccessibleDescription(
      '% How far the close moved over the last candle, up or down, as a % of the close before it. Each value is from 0 to 10,000; each message is required, up to 200 characters.',
    );
    await userEvent.click(w.getByRole('button', { name: 'Remove threshold 4' }));

    await userEvent.click(w.getByRole('button', { name: 'Next' }));
    expect(buttons()).toEqual(['Previous', 'Create Agent']);
    expect(w.getByRole('tabpanel')).toHaveTextContent('My coins');
    expect(w.getByText('Active hours').nextSibling).toHaveTextContent(/^00:00 – 23:59 \(Asia\/Tokyo\)$/);
    await userEvent.click(w.getByRole('button', { name: 'Create Agent' }));

    await vi.waitFor(() =>
      expect(notify.success).toHaveBeenCalledWith('Agent created successfully', 'My coins has been created in a paused state. You can start it when ready.'),
    );
    const crypto = AGENT_TEMPLATES[1]!;
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({
      templateId: 'crypto-market-monitor',
      name: 'My coins',
      config: defaultAgentConfig(crypto, 'Asia/Tokyo'),
    });
    expect(screen.getByRole('tab', { name: 'Paused Agents' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('says why a create failed when the failure is not about fields', async () => {
    stubFetch({ ...baseRoutes([]), 'POST /api/agents': { status: 500, body: { error: 'Internal Server Error' } } });
    renderPage();
    await userEvent.click(within(await openNameDialog()).getByRole('button', { name: 'Continue' }));
    const wizard = within(await screen.findByRole('dialog', { name: 'Configure Your Agent' }));
    await userEvent.click(wizard.getByRole('tab', { name: 'Review' }));
    await userEvent.click(wizard.getByRole('button', { name: 'Create Agent' }));
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Failed to create agent', '500: Internal Server Error'));
    expect(screen.getByRole('dialog', { name: 'Configure Your Agent' })).toBeInTheDocument();
  });

  // Issue 29 item 6: the server answers every refused field at once (the notifications' first, as
  // the contract's shape is checked before the template's); the wizard marks them all and opens
  // the first tab, in the steps' order, that holds one.
  it('marks every field a refusal names and opens the first tab that holds one', async () => {
    stubFetch({
      ...baseRoutes([]),
      'POST /api/agents': {
        status: 400,
        body: {
          error: 'Invalid request',
          details: [
            { path: 'config.notifications.thresholds.1.value', message: 'Value must be a number from 0 to 10,000' },
            { path: 'config.notifications.maxPerHour', message: 'Notifications per hour must be at least 1' },
            { path: 'parameters.token', message: 'Token must be 2 to 10 capital letters (e.g. BTC)' },
            { path: 'name', message: 'Name must be at most 100 characters' },
          ],
        },
      },
    });
    renderPage();
    await userEvent.click(within(await openNameDialog()).getByRole('button', { name: 'Continue' }));
    const wizard = within(await screen.findByRole('dialog', { name: 'Configure Your Agent' }));
    await userEvent.click(wizard.getByRole('tab', { name: 'Review' }));
    await userEvent.click(wizard.getByRole('button', { name: 'Create Agent' }));
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Failed to create agent', 'Some settings need a change: see the marked fields.'));

    expect(wizard.getByRole('tab', { name: /Parameters/ })).toHaveAttribute('aria-selected', 'true');
    const token = wizard.getByRole('textbox', { name: /Token/ });
    expect(token).toHaveAttribute('aria-invalid', 'true');
    expect(token).toHaveAccessibleDescription(/^Token must be 2 to 10 capital letters \(e\.g\. BTC\)/);
    await vi.waitFor(() => expect(token).toHaveFocus());
    expect(wizard.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Schedule', 'Parameters(has problems)', 'Notifications(has problems)', 'Review(has problems)']);

    // Every field of the Notifications tab is marked on the field itself, with its message.
    await userEvent.click(wizard.getByRole('tab', { name: /Notifications/ }));
    const perHour = wizard.getByRole('spinbutton', { name: 'Notifications per hour' });
    expect(perHour).toHaveAttribute('aria-invalid', 'true');
    expect(perHour).toHaveAccessibleDescription(/^Notifications per hour must be at least 1/);
    const value = wizard.getByRole('spinbutton', { name: 'Threshold 2 value (%)' });
    expect(value).toHaveAttribute('aria-invalid', 'true');
    expect(value).toHaveAccessibleDescription(/^Value must be a number from 0 to 10,000 /);
    expect(wizard.getByRole('spinbutton', { name: 'Threshold 1 value (%)' })).not.toHaveAttribute('aria-invalid');
    expect(wizard.queryByRole('list', { name: 'Notification problems' })).not.toBeInTheDocument();
    await userEvent.click(wizard.getByRole('tab', { name: /Review/ }));
    expect(wizard.getByRole('list', { name: 'Agent problems' })).toHaveTextContent('Name must be at most 100 characters');

    // Changing the field clears its message: the server has not judged the new value yet.
    await userEvent.click(wizard.getByRole('tab', { name: /Parameters/ }));
    await userEvent.type(wizard.getByRole('textbox', { name: /Token/ }), 'X');
    expect(wizard.getByRole('textbox', { name: /Token/ })).not.toHaveAttribute('aria-invalid');
    expect(wizard.getByRole('tab', { name: /Parameters/ }).textContent).toBe('Parameters');
  });

  it('Review tests the draft as it stands on history, and a refusal marks its fields as Create does', async () => {
    let refuse = false;
    const { requests } = stubFetch({
      ...baseRoutes([]),
      'POST /api/agents/backtest': () =>
        refuse
          ? jsonResponse({ error: 'Invalid request', details: [{ path: 'config.parameters.rsiThreshold', message: 'RSI threshold must be at most 90' }] }, 400)
          : new Response(ndjson([{ type: 'result', result: backtestResult() }]), { headers: { 'content-type': BACKTEST_CONTENT_TYPE } }),
    });
    renderPage();
    await userEvent.click(within(await openNameDialog('Stock Market Scanner')).getByRole('button', { name: 'Continue' }));
    const wizard = within(await screen.findByRole('dialog', { name: 'Configure Your Agent' }));
    await userEvent.click(wizard.getByRole('tab', { name: 'Parameters' }));
    wizard.getByRole('slider', { name: /RSI threshold/ }).focus();
    for (let i = 0; i < 5; i++) await userEvent.keyboard('{ArrowRight}');
    await userEvent.click(wizard.getByRole('tab', { name: 'Review' }));
    await userEvent.click(await wizard.findByRole('button', { name: 'Test on history' }));
    expect(await wizard.findByRole('region', { name: 'Test result' })).toBeInTheDocument();
    const template = AGENT_TEMPLATES.find((t) => t.id === 'stock-market-scanner')!;
    const defaults = defaultAgentConfig(template, Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({
      templateId: 'stock-market-scanner',
      config: { ...defaults, parameters: { ...defaults.parameters, rsiThreshold: 75 } },
      candles: 500,
    });

    refuse = true;
    await userEvent.click(wizard.getByRole('button', { name: 'Test on history' }));
    expect(await wizard.findByRole('list', { name: 'Settings to change' })).toHaveTextContent('RSI threshold must be at most 90');
    expect(wizard.getByRole('tab', { name: /Parameters/ })).toHaveTextContent('Parameters(has problems)');
    await userEvent.click(wizard.getByRole('tab', { name: /Parameters/ }));
    expect(wizard.getByRole('slider', { name: /RSI threshold/ })).toHaveAccessibleDescription(/must be at most 90/);
  });

  it('asks before discarding changes; closes at once when nothing changed', async () => {
    stubFetch(baseRoutes([]));
    renderPage();
    await userEvent.click(within(await openNameDialog()).getByRole('button', { name: 'Continue' }));
    let wizard = within(await screen.findByRole('dialog', { name: 'Configure Your Agent' }));
    await userEvent.click(wizard.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    await userEvent.click(within(await openNameDialog()).getByRole('button', { name: 'Continue' }));
    wizard = within(await screen.findByRole('dialog', { name: 'Configure Your Agent' }));
    await userEvent.click(wizard.getByRole('checkbox', { name: 'Sunday' }));
    for (const close of [() => userEvent.keyboard('{Escape}'), () => userEvent.click(wizard.getByRole('button', { name: 'Cancel' }))]) {
      await close();
      const confirm = screen.getByRole('dialog', { name: 'Discard your changes?' });
      await userEvent.click(within(confirm).getByRole('button', { name: 'Keep editing' }));
      expect(screen.queryByRole('dialog', { name: 'Discard your changes?' })).not.toBeInTheDocument();
      expect(wizard.getByRole('checkbox', { name: 'Sunday' })).not.toBeChecked();
    }
    await userEvent.click(wizard.getByRole('button', { name: 'Close' }));
    await userEvent.click(within(screen.getByRole('dialog', { name: 'Discard your changes?' })).getByRole('button', { name: 'Discard changes' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it("pauses: 'Updating...' while pending, the toast, and a list refresh 500 ms later", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let answer!: (r: Response) => void;
    const { requests } = stubFetch({
      ...baseRoutes(),
      ...listRecordingTimes(),
      [`PATCH /api/agents/${STOCK_AGENT.id}`]: () => new Promise<Response>((resolve) => (answer = resolve)),
    });
    renderPage();
    const card = await screen.findByRole('listitem', { name: 'Tech watch' });
    fireEvent.click(within(card).getByRole('button', { name: 'Pause' }));
    const updating = await within(card).findByRole('button', { name: 'Updating...' });
    expect(updating).toBeDisabled();
    expect(requests.at(-1)).toEqual({ method: 'PATCH', url: `/api/agents/${STOCK_AGENT.id}`, body: { status: 'paused' } });

    const listCalls = () => requests.filter((r) => r.method === 'GET' && r.url === '/api/agents').length;
    expect(listCalls()).toBe(1);
    // The fake clock also runs with real time (shouldAdvanceTime): on a loaded machine a count taken
    // "400 ms later" could come late, so the refresh's delay is read from the fake clock itself.
    const toastAt = recordTimeOf(vi.mocked(notify.success));
    await act(async () => answer(jsonResponse({ ...STOCK_AGENT, status: 'paused' })));
    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Agent paused', 'Tech watch has been paused successfully.'));
    await act(async () => vi.advanceTimersByTime(600));
    await vi.waitFor(() => expect(listCalls()).toBe(2));
    expect(listedAt.at(-1)! - toastAt()).toBeGreaterThanOrEqual(500);
  });

  it("a failed resume: the server's details in the toast, a refresh after 1000 ms", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const toastAt = recordTimeOf(vi.mocked(notify.error));
    const { requests } = stubFetch({
      ...baseRoutes(),
      ...listRecordingTimes(),
      [`PATCH /api/agents/${CRYPTO_AGENT.id}`]: { status: 400, body: { error: 'Invalid request', details: [{ path: 'status', message: 'bad status' }, { path: 'x', message: 'other' }] } },
    });
    renderPage();
    // Radix tabs activate on mouse down.
    fireEvent.mouseDown(await screen.findByRole('tab', { name: 'Paused Agents' }));
    const card = await screen.findByRole('listitem', { name: 'Coins' });
    fireEvent.click(within(card).getByRole('button', { name: 'Resume' }));
    await vi.waitFor(() =>
      expect(notify.error).toHaveBeenCalledWith('Failed to update agent', 'There was a problem updating your agent: bad status, other. Please try again.'),
    );
    const listCalls = () => requests.filter((r) => r.method === 'GET' && r.url === '/api/agents').length;
    await act(async () => vi.advanceTimersByTime(1100));
    await vi.waitFor(() => expect(listCalls()).toBe(2));
    expect(listedAt.at(-1)! - toastAt()).toBeGreaterThanOrEqual(1000);
  });

  it('shows placeholders while the agents load', () => {
    stubFetch({ 'GET /api/agent-templates': { body: AGENT_TEMPLATES }, 'GET /api/agents': never });
    renderPage();
    expect(screen.getByRole('list', { name: 'Loading agents' })).toHaveAttribute('aria-busy', 'true');
  });
});
