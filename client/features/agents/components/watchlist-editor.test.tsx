import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { WATCHLIST_MAX, type TWatchedMarket } from '../../../../contracts/watchlist.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import type { TFieldErrors } from '../lib/field-errors.ts';
import { parseMarkets } from '../lib/watchlist-paste.ts';
import { WatchlistEditor } from './watchlist-editor.tsx';

function renderEditor(initial: TWatchedMarket[], errors: TFieldErrors = {}) {
  const latest = { value: initial };
  function Harness() {
    const [value, setValue] = useState(initial);
    return (
      <WatchlistEditor
        value={value}
        errors={errors}
        onChange={(next) => {
          latest.value = next;
          setValue(next);
        }}
      />
    );
  }
  renderWithProviders(<Harness />);
  return latest;
}

const paste = () => screen.getByRole('textbox', { name: 'Add several at once' });

describe('WatchlistEditor', () => {
  it('adds many markets pasted at once, skips the ones listed, and keeps what it could not read', async () => {
    const latest = renderEditor([{ kind: 'stock', symbol: 'AAPL' }]);
    await userEvent.type(paste(), 'aapl, MSFT, BTC/USDT on binance, eth/usdt kraken, SOL/USDT, DOGE/USDT on nowhere');
    await userEvent.click(screen.getByRole('button', { name: 'Add these markets' }));
    expect(latest.value).toEqual([
      { kind: 'stock', symbol: 'AAPL' },
      { kind: 'stock', symbol: 'MSFT' },
      { kind: 'crypto', symbol: 'BTC/USDT', exchange: 'binance' },
      { kind: 'crypto', symbol: 'ETH/USDT', exchange: 'kraken' },
      { kind: 'crypto', symbol: 'SOL/USDT', exchange: 'binance' },
    ]);
    expect(screen.getByRole('status')).toHaveTextContent('4 markets added. 1 already listed. Not understood: DOGE/USDT on nowhere');
    expect(paste()).toHaveValue('DOGE/USDT on nowhere');
    expect(screen.getByRole('combobox', { name: 'Market 4: exchange' })).toHaveDisplayValue('Kraken');
  });

  it('edits, switches kind and removes an entry; a bad symbol is marked on its entry as it is typed', async () => {
    const latest = renderEditor([{ kind: 'stock', symbol: 'AAPL' }]);
    await userEvent.click(screen.getByRole('button', { name: 'Add market' }));
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Market 2: kind' }), 'Crypto pair');
    const symbol = screen.getByRole('textbox', { name: 'Market 2: symbol' });
    await userEvent.type(symbol, 'btc');
    expect(symbol).toHaveValue('BTC');
    expect(symbol).toHaveAttribute('aria-invalid', 'true');
    expect(symbol).toHaveAccessibleDescription(/^A crypto pair must be two symbols/);
    await userEvent.type(symbol, '/usdt');
    expect(symbol).not.toHaveAttribute('aria-invalid');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Market 2: exchange' }), 'Coinbase');
    expect(latest.value[1]).toEqual({ kind: 'crypto', symbol: 'BTC/USDT', exchange: 'coinbase' });
    await userEvent.click(screen.getByRole('button', { name: 'Remove market 1' }));
    expect(latest.value).toEqual([{ kind: 'crypto', symbol: 'BTC/USDT', exchange: 'coinbase' }]);
    await userEvent.click(screen.getByRole('button', { name: 'Remove market 1' }));
    expect(screen.getByRole('list', { name: 'Watchlist problems' })).toHaveTextContent('Add at least one market to watch');
  });

  it("shows the server's message on its entry", () => {
    renderEditor([{ kind: 'stock', symbol: 'AAPL' }], { 'watchlist.0.symbol': 'AAPL is not a symbol Yahoo Finance knows' });
    expect(screen.getByRole('textbox', { name: 'Market 1: symbol' })).toHaveAccessibleDescription('AAPL is not a symbol Yahoo Finance knows');
  });

  it(`stops at ${WATCHLIST_MAX} markets and says how many were left out`, async () => {
    const many = Array.from({ length: WATCHLIST_MAX - 1 }, (_, i) => ({ kind: 'stock' as const, symbol: `S${i}` }));
    const latest = renderEditor(many);
    // Pasted at once, as the box is meant to be used: typed key by key, each key re-rendered 99
    // rows, which took more than the test's 5 s on a busy machine.
    await userEvent.click(paste());
    await userEvent.paste('X1, X2, X3');
    await userEvent.click(screen.getByRole('button', { name: 'Add these markets' }));
    expect(latest.value).toHaveLength(WATCHLIST_MAX);
    expect(screen.getByRole('status')).toHaveTextContent(`1 market added. 2 left out: a watchlist may have at most ${WATCHLIST_MAX} markets.`);
    expect(screen.getByRole('button', { name: 'Add market' })).toBeDisabled();
    expect(screen.getByText(`A watchlist may have at most ${WATCHLIST_MAX} markets.`)).toBeInTheDocument();
  });

  it('reads pasted lines and names', () => {
    expect(parseMarkets('BRK-B\nETH/BTC on KuCoin; XRP/USDT Huobi').markets).toEqual([
      { kind: 'stock', symbol: 'BRK-B' },
      { kind: 'crypto', symbol: 'ETH/BTC', exchange: 'kucoin' },
      { kind: 'crypto', symbol: 'XRP/USDT', exchange: 'htx' },
    ]);
    expect(parseMarkets('AAPL on nasdaq').unreadable).toEqual(['AAPL on nasdaq']);
  });
});
