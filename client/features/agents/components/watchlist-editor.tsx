import { Plus, Trash2 } from 'lucide-react';
import { useId, useMemo, useState } from 'react';
import { WATCHLIST_EXCHANGE_LABELS, WATCHLIST_EXCHANGES, WATCHLIST_MAX, type TWatchedMarket, type TWatchlistExchange } from '../../../../contracts/watchlist.ts';
import { Button } from '../../../components/ui/button.tsx';
import { errorsUnder, type TFieldErrors } from '../lib/field-errors.ts';
import { addMarkets, DEFAULT_EXCHANGE, parseMarkets, watchlistProblems } from '../lib/watchlist-paste.ts';
import { FieldErrorList } from './field-error-list.tsx';
import { CONTROL } from './form-controls.tsx';

export const WATCHLIST_PATH = 'watchlist';

/**
 * The Custom Monitor's markets (issue 30 item 3): stocks and crypto pairs on their exchanges,
 * mixed, up to WATCHLIST_MAX; one at a time or many pasted at once. A refused entry is marked
 * where it is, with the contract's message as it is typed or the server's after a save.
 */
export function WatchlistEditor({ value, onChange, errors }: { value: TWatchedMarket[]; onChange(next: TWatchedMarket[]): void; errors: TFieldErrors }) {
  const id = useId();
  const [pasted, setPasted] = useState('');
  const [pasteNote, setPasteNote] = useState<string | null>(null);
  const local = useMemo(() => watchlistProblems(value), [value]);
  const shown = { ...local, ...errors };
  const full = value.length >= WATCHLIST_MAX;
  const update = (index: number, next: TWatchedMarket) => onChange(value.map((m, i) => (i === index ? next : m)));
  const add = () => {
    const { markets, unreadable } = parseMarkets(pasted);
    const { list, duplicates, overLimit } = addMarkets(value, markets);
    onChange(list);
    const added = list.length - value.length;
    const notes = [
      `${added} market${added === 1 ? '' : 's'} added.`,
      duplicates ? `${duplicates} already listed.` : null,
      overLimit ? `${overLimit} left out: a watchlist may have at most ${WATCHLIST_MAX} markets.` : null,
      unreadable.length ? `Not understood: ${unreadable.join(', ')} (write a stock as AAPL, a pair as BTC/USDT on binance).` : null,
    ];
    setPasteNote(notes.filter(Boolean).join(' '));
    // What could not be read stays in the box to be fixed.
    setPasted(unreadable.join(', '));
  };
  const listErrors = errorsUnder(shown, WATCHLIST_PATH).filter(([path]) => path === WATCHLIST_PATH);
  return (
    <fieldset aria-describedby={`${id}-about`} className="space-y-3">
      <legend className="text-sm font-semibold text-slate-900">Watchlist</legend>
      <p id={`${id}-about`} className="text-sm text-slate-600">
        {`The markets this agent watches, each evaluated and notified on its own: stocks (Yahoo Finance) and crypto pairs on their exchanges, up to ${WATCHLIST_MAX}. ${value.length} of ${WATCHLIST_MAX}.`}
      </p>
      <FieldErrorList label="Watchlist problems" errors={listErrors} />
      <ol className="space-y-2">
        {value.map((market, index) => {
          const n = index + 1;
          const path = `${WATCHLIST_PATH}.${index}`;
          const entryErrors = errorsUnder(shown, path);
          const errorId = `${id}-${index}-error`;
          const marked = (field?: string) =>
            (field ? shown[`${path}.${field}`] : shown[path]) ? { 'aria-invalid': true as const, 'aria-describedby': errorId } : {};
          return (
            <li key={index} className="rounded-md border border-slate-200 p-2">
              <div className="flex flex-wrap items-center gap-2">
                <select
                  aria-label={`Market ${n}: kind`}
                  {...marked('kind')}
                  value={market.kind}
                  onChange={(event) =>
                    update(index, event.target.value === 'stock' ? { kind: 'stock', symbol: market.symbol } : { kind: 'crypto', symbol: market.symbol, exchange: DEFAULT_EXCHANGE })
                  }
                  className={`${CONTROL} w-auto`}
                >
                  <option value="stock">Stock</option>
                  <option value="crypto">Crypto pair</option>
                </select>
                <input
                  type="text"
                  aria-label={`Market ${n}: symbol`}
                  {...(shown[`${path}.symbol`] || shown[path] ? { 'aria-invalid': true as const, 'aria-describedby': errorId } : {})}
                  placeholder={market.kind === 'stock' ? 'AAPL' : 'BTC/USDT'}
                  value={market.symbol}
                  onChange={(event) => update(index, { ...market, symbol: event.target.value.toUpperCase() })}
                  className={`${CONTROL} w-36 min-w-0`}
                />
                {market.kind === 'crypto' && (
                  <>
                    <span className="text-sm text-slate-600">on</span>
                    <select
                      aria-label={`Market ${n}: exchange`}
                      {...marked('exchange')}
                      value={market.exchange}
                      onChange={(event) => update(index, { ...market, exchange: event.target.value as TWatchlistExchange })}
                      className={`${CONTROL} w-auto`}
                    >
                      {WATCHLIST_EXCHANGES.map((e) => (
                        <option key={e} value={e}>
                          {WATCHLIST_EXCHANGE_LABELS[e]}
                        </option>
                      ))}
                    </select>
                  </>
                )}
                <Button variant="ghost" size="icon" className="ml-auto" aria-label={`Remove market ${n}`} onClick={() => onChange(value.filter((_, i) => i !== index))}>
                  <Trash2 aria-hidden="true" />
                </Button>
              </div>
              {entryErrors.length > 0 && (
                <p id={errorId} className="mt-1 text-sm font-medium text-red-700">
                  {entryErrors.map(([, message]) => message).join(' ')}
                </p>
              )}
            </li>
          );
        })}
      </ol>
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="outline" size="sm" disabled={full} onClick={() => onChange([...value, { kind: 'stock', symbol: '' }])}>
          <Plus aria-hidden="true" /> Add market
        </Button>
        {full && <p className="text-sm text-slate-600">{`A watchlist may have at most ${WATCHLIST_MAX} markets.`}</p>}
      </div>
      <div>
        <label htmlFor={`${id}-paste`} className="block text-sm font-medium text-slate-900">
          Add several at once
        </label>
        <textarea
          id={`${id}-paste`}
          rows={2}
          aria-describedby={`${id}-paste-hint`}
          value={pasted}
          onChange={(event) => setPasted(event.target.value)}
          className={`${CONTROL} mt-1`}
        />
        <p id={`${id}-paste-hint`} className="mt-1 text-xs text-slate-600">
          Separated by commas or lines, e.g. AAPL, MSFT, BTC/USDT on binance. A pair without an exchange is on Binance.
        </p>
        <Button variant="outline" size="sm" className="mt-2" disabled={pasted.trim() === '' || full} onClick={add}>
          Add these markets
        </Button>
        {pasteNote && (
          <p role="status" className="mt-2 text-sm text-slate-700">
            {pasteNote}
          </p>
        )}
      </div>
    </fieldset>
  );
}
