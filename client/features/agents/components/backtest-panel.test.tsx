import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BACKTEST_CONTENT_TYPE } from '../../../../contracts/backtest.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { backtestDraft, type TBacktestOptions } from '../api/agents-api.ts';
import { backtestResult, ndjson } from '../lib/agents-test-data.ts';
import BacktestPanel, { PROGRESS_DELAY_MS } from './backtest-panel.tsx';

const BODY = { templateId: 'stock-market-scanner', config: {} as never };
const run = (candles: number, options: TBacktestOptions) => backtestDraft({ ...BODY, candles }, options);

/** An answer whose lines the test sends when it likes; `signal` is the request's. */
function liveAnswer() {
  let push!: (text: string) => void;
  let close!: () => void;
  const cancelled = vi.fn();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (text) => controller.enqueue(new TextEncoder().encode(text));
      close = () => controller.close();
    },
    // What the browser does when the reader cancels: it closes the connection.
    cancel: cancelled,
  });
  const { requests } = stubFetch({
    'POST /api/agents/backtest': () => new Response(body, { status: 200, headers: { 'content-type': BACKTEST_CONTENT_TYPE } }),
  });
  return { push, close: () => close(), requests, cancelled };
}

afterEach(() => vi.useRealTimers());

describe('BacktestPanel', () => {
  it('with an auto-start key, tests at once with the configuration of the render that brought the key, and again when the key changes', async () => {
    const answer = liveAnswer();
    const ran: number[] = [];
    const runWith = (tag: number) => (candles: number, options: TBacktestOptions) => {
      ran.push(tag);
      return run(candles, options);
    };
    const { rerender } = render(<BacktestPanel run={runWith(1)} autoStartKey="1" />);
    expect(await screen.findByRole('status')).toHaveTextContent('Testing on history');
    expect(answer.requests).toHaveLength(1);
    // A new render without a new key starts nothing; a new key starts with that render's run.
    rerender(<BacktestPanel run={runWith(2)} autoStartKey="1" />);
    rerender(<BacktestPanel run={runWith(3)} autoStartKey="2" />);
    await vi.waitFor(() => expect(ran).toEqual([1, 3]));
  });

  it('asks for 500 candles unless changed, states the rule, and refuses a count outside it without a request', async () => {
    const { requests } = stubFetch({});
    render(<BacktestPanel run={run} />);
    const field = screen.getByRole('spinbutton', { name: 'Candles per market' });
    expect(field).toHaveValue(500);
    expect(field).toHaveAccessibleDescription('A whole number from 50 to 5,000 (500 unless changed), in each market’s own timeframe.'.replace('’', "'"));
    await userEvent.clear(field);
    await userEvent.type(field, '6000');
    await userEvent.click(screen.getByRole('button', { name: 'Test on history' }));
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveAccessibleDescription(/Candles per market must be at most 5,000$/);
    expect(field).toHaveFocus();
    expect(requests).toEqual([]);
  });

  it('runs the test with the candles asked for, shows per-market progress only past a second, then the result', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const answer = liveAnswer();
    render(<BacktestPanel run={run} />);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.clear(screen.getByRole('spinbutton', { name: 'Candles per market' }));
    await user.type(screen.getByRole('spinbutton', { name: 'Candles per market' }), '200');
    await user.click(screen.getByRole('button', { name: 'Test on history' }));
    expect(answer.requests[0]!.body).toEqual({ ...BODY, candles: 200 });
    expect(screen.getByRole('spinbutton', { name: 'Candles per market' })).toBeDisabled();
    expect(screen.getByRole('status')).toHaveTextContent('Testing on history');

    await act(async () => answer.push(ndjson([{ type: 'progress', market: 'AAPL', loaded: 50, total: 250 }])));
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    await act(async () => vi.advanceTimersByTime(PROGRESS_DELAY_MS));
    const bar = screen.getByRole('progressbar', { name: 'AAPL' });
    expect(bar).toHaveAttribute('aria-valuenow', '50');
    expect(bar).toHaveAttribute('aria-valuemax', '250');
    await act(async () => answer.push(ndjson([{ type: 'progress', market: 'MSFT', loaded: 250, total: 250 }, { type: 'progress', market: 'AAPL', loaded: 250, total: 250 }])));
    expect(screen.getByRole('progressbar', { name: 'AAPL' })).toHaveAttribute('aria-valuenow', '250');
    expect(screen.getByRole('progressbar', { name: 'MSFT' })).toHaveAttribute('aria-valuenow', '250');

    await act(async () => {
      answer.push(ndjson([{ type: 'result', result: backtestResult() }]));
      answer.close();
    });
    expect(await screen.findByRole('region', { name: 'Test result' })).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Test on history' })).toBeEnabled();
  });

  it('Cancel aborts the answer (its body is cancelled, which closes the connection) and says so', async () => {
    const answer = liveAnswer();
    render(<BacktestPanel run={run} />);
    await userEvent.click(screen.getByRole('button', { name: 'Test on history' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel test' }));
    await vi.waitFor(() => expect(answer.cancelled).toHaveBeenCalled());
    expect(screen.getByText('Test cancelled.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Test on history' })).toBeInTheDocument();
  });

  it('leaving (the panel unmounts) aborts a running test', async () => {
    const answer = liveAnswer();
    const { unmount } = render(<BacktestPanel run={run} />);
    await userEvent.click(screen.getByRole('button', { name: 'Test on history' }));
    await screen.findByRole('button', { name: 'Cancel test' });
    unmount();
    await vi.waitFor(() => expect(answer.cancelled).toHaveBeenCalled());
  });

  it("a refusal naming fields: the candles on their field, the configuration's to onRefused and listed", async () => {
    stubFetch({
      'POST /api/agents/backtest': () =>
        jsonResponse(
          {
            error: 'Invalid request',
            details: [
              { path: 'candles', message: 'Candles per market must be at most 5,000' },
              { path: 'config.parameters.rsiThreshold', message: 'RSI threshold must be between 0 and 100' },
            ],
          },
          400,
        ),
    });
    const onRefused = vi.fn();
    render(<BacktestPanel run={run} onRefused={onRefused} />);
    await userEvent.click(screen.getByRole('button', { name: 'Test on history' }));
    expect(await screen.findByText('The test was refused: some settings need a change.')).toBeInTheDocument();
    expect(onRefused).toHaveBeenCalledWith({ 'parameters.rsiThreshold': 'RSI threshold must be between 0 and 100' });
    expect(screen.getByRole('spinbutton', { name: 'Candles per market' })).toHaveAccessibleDescription(/Candles per market must be at most 5,000$/);
    expect(screen.getByRole('list', { name: 'Settings to change' })).toHaveTextContent('RSI threshold must be between 0 and 100');
  });

  it.each([
    [429, { error: 'Too many tests: 6 a minute. Try again in 40 seconds.' }, 'Too many tests: 6 a minute. Try again in 40 seconds.'],
    [403, { error: 'Forbidden' }, 'Only admins can test on history.'],
    [404, { error: 'Not Found' }, 'This agent no longer exists, or is not yours.'],
  ])('a %i refusal is said in words', async (status, body, text) => {
    stubFetch({ 'POST /api/agents/backtest': () => jsonResponse(body, status) });
    render(<BacktestPanel run={run} />);
    await userEvent.click(screen.getByRole('button', { name: 'Test on history' }));
    expect(await screen.findByText(text)).toBeInTheDocument();
  });

  it("an error event after the answer began shows the server's sentence", async () => {
    stubFetch({
      'POST /api/agents/backtest': () =>
        new Response(ndjson([{ type: 'error', error: 'The test could not finish because of an error on our side.' }]), { headers: { 'content-type': BACKTEST_CONTENT_TYPE } }),
    });
    render(<BacktestPanel run={run} />);
    await userEvent.click(screen.getByRole('button', { name: 'Test on history' }));
    expect(await screen.findByText('The test could not finish because of an error on our side.')).toBeInTheDocument();
  });
});
