import { FORWARD_HORIZONS, type TBacktestResult, type TBacktestRow } from '../../contracts/backtest.ts';
import { formatNumber, formatPercent } from '../../contracts/number-format.ts';

/**
 * A test on history at a glance (issue 31): per market, how often each signal, alert and
 * condition fired, how many notifications it would have sent, and the average move that followed
 * 1, 5 and 20 candles later. Compact, for a chat's step and a proposal's card; the agents
 * console's full report (charts, every firing) is Test on history's own panel.
 */

const count = (n: number, one: string, many = `${one}s`) => `${formatNumber(n, 0)} ${n === 1 ? one : many}`;
const signed = (value: number | null) => (value === null ? '—' : `${value > 0 ? '+' : ''}${formatPercent(value)}`);
const KIND: Record<string, string> = { signal: 'Signal', alert: 'Alert', condition: 'Condition' };

function RowsTable({ caption, rows }: { caption: string; rows: readonly TBacktestRow[] }) {
  return (
    <table className="mt-2 w-full text-left text-xs">
      <caption className="text-left font-medium text-slate-800">{caption}</caption>
      <thead className="text-slate-500">
        <tr>
          <th scope="col" className="py-1 pr-2 font-medium">
            Rule
          </th>
          <th scope="col" className="py-1 pr-2 text-right font-medium">
            Fired
          </th>
          <th scope="col" className="py-1 pr-2 text-right font-medium">
            Notified
          </th>
          {FORWARD_HORIZONS.map((h) => (
            <th key={h} scope="col" className="py-1 pr-2 text-right font-medium">
              After {count(h, 'candle')}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key} className="border-t border-slate-100">
            <th scope="row" className="py-1 pr-2 font-normal text-slate-800">
              <span className="text-slate-500">{KIND[row.kind] ?? row.kind}: </span>
              {row.label}
            </th>
            <td className="py-1 pr-2 text-right tabular-nums">{formatNumber(row.fired, 0)}</td>
            <td className="py-1 pr-2 text-right tabular-nums">{row.notifications === null ? '—' : formatNumber(row.notifications, 0)}</td>
            {FORWARD_HORIZONS.map((h, i) => (
              <td key={h} className="py-1 pr-2 text-right tabular-nums">
                {signed(row.forward[i]?.average ?? null)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function BacktestSummary({ result, heading = 'Test on history' }: { result: TBacktestResult; heading?: string }) {
  const notes = result.notifications;
  return (
    <section aria-label={heading} className="text-sm">
      <p className="text-slate-700">
        {count(notes.total, 'notification')} over {count(notes.days, 'day')} ({formatNumber(notes.perDay, 1)} a day)
        {notes.held > 0 ? `, ${formatNumber(notes.held, 0)} held back by the hourly cap` : ''}
        {result.simulated ? '. Simulated data, not a real market.' : '.'}
      </p>
      {result.markets.map((market) =>
        market.ok ? (
          <RowsTable key={market.label} caption={`${market.label}: ${count(market.evaluated, 'candle')} from ${market.from.slice(0, 10)} to ${market.to.slice(0, 10)}`} rows={market.rows} />
        ) : (
          <p key={market.label} className="mt-2 text-xs text-amber-800">
            {market.label}: {market.error}
          </p>
        ),
      )}
      {result.notTested.length > 0 && (
        <ul className="mt-2 text-xs text-slate-500" aria-label="Not tested on history">
          {result.notTested.map((rule) => (
            <li key={rule.name}>
              {rule.name}: {rule.reason}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
