import { fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { defaultValue, type TParameterDefinition, type TParameterValue } from '../../../../contracts/agent-parameters.ts';
import { AGENT_TEMPLATES, defaultAgentName } from '../../../../contracts/agents.ts';
import { ParameterField } from './parameter-field.tsx';

const [STOCK, CRYPTO] = AGENT_TEMPLATES as [(typeof AGENT_TEMPLATES)[number], (typeof AGENT_TEMPLATES)[number]];

function Harness({ name, definition }: { name: string; definition: TParameterDefinition }) {
  const [value, setValue] = useState<TParameterValue>(() => defaultValue(definition));
  return (
    <>
      <ParameterField name={name} definition={definition} value={value} onChange={setValue} />
      <output data-testid="value">{JSON.stringify(value)}</output>
    </>
  );
}
const valueOf = () => JSON.parse(screen.getByTestId('value').textContent ?? 'null') as unknown;
const def = (overrides: Partial<TParameterDefinition>): TParameterDefinition => ({ type: 'string', label: 'Field', description: 'A field.', default: '', required: false, ...overrides });

describe('defaultAgentName', () => {
  it('adds the suffix for stock, crypto and other templates', () => {
    expect(defaultAgentName(STOCK)).toBe('Stock Market Scanner - S&P 500');
    expect(defaultAgentName(CRYPTO)).toBe('Crypto Market Monitor - BTC/ETH');
    expect(defaultAgentName({ name: 'Custom', type: 'other' })).toBe('Custom - New');
  });
});

describe('ParameterField', () => {
  it('number: the template min, max and step, step 1 by default; required marked with an asterisk', async () => {
    render(<Harness name="movingAveragePeriod" definition={STOCK.defaultConfig.parameters.movingAveragePeriod!} />);
    const input = screen.getByRole('spinbutton', { name: /Moving average period/ });
    expect(input).toHaveAttribute('min', '5');
    expect(input).toHaveAttribute('max', '200');
    expect(input).toHaveAttribute('step', '1');
    expect(screen.getByText('*')).toBeInTheDocument();
    fireEvent.change(input, { target: { value: '50' } });
    expect(valueOf()).toBe(50);
  });

  it("number: the template's own step", () => {
    render(<Harness name="priceChangeThreshold" definition={CRYPTO.defaultConfig.parameters.priceChangeThreshold!} />);
    expect(screen.getByRole('spinbutton')).toHaveAttribute('step', '0.1');
  });

  it('slider: defaults to 0-100 step 1 and shows its value; arrow keys move it', async () => {
    render(<Harness name="level" definition={def({ type: 'slider', label: 'Level', default: 40 })} />);
    const thumb = screen.getByRole('slider', { name: 'Level' });
    expect(thumb).toHaveAttribute('aria-valuemin', '0');
    expect(thumb).toHaveAttribute('aria-valuemax', '100');
    expect(thumb).toHaveAttribute('aria-valuenow', '40');
    expect(screen.getByText('40', { selector: 'output:not([data-testid])' })).toBeInTheDocument();
    thumb.focus();
    await userEvent.keyboard('{ArrowRight}');
    expect(valueOf()).toBe(41);
  });

  it("slider: the template's range", () => {
    render(<Harness name="volatilityThreshold" definition={CRYPTO.defaultConfig.parameters.volatilityThreshold!} />);
    const thumb = screen.getByRole('slider', { name: /Volatility threshold/ });
    expect(thumb).toHaveAttribute('aria-valuemin', '1');
    expect(thumb).toHaveAttribute('aria-valuemax', '5');
  });

  it('multi-select: offers only options not chosen, adds and removes; FTX disabled, Huobi labelled HTX', async () => {
    render(<Harness name="exchanges" definition={CRYPTO.defaultConfig.parameters.exchanges!} />);
    const add = screen.getByRole('combobox', { name: /Exchanges/ });
    const offered = () => within(add).getAllByRole('option').map((o) => o.textContent);
    expect(offered()).toEqual(['Add an option…', 'FTX (Closed since 2022)', 'HTX (Huobi)', 'KuCoin']);
    expect(within(add).getByRole('option', { name: 'FTX (Closed since 2022)' })).toBeDisabled();

    await userEvent.selectOptions(add, 'Huobi');
    expect(valueOf()).toEqual(['Binance', 'Coinbase', 'Kraken', 'Huobi']);
    expect(offered()).toEqual(['Add an option…', 'FTX (Closed since 2022)', 'KuCoin']);
    expect(within(screen.getByRole('list', { name: 'Selected exchanges' })).getByText('HTX (Huobi)')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Remove Coinbase' }));
    expect(valueOf()).toEqual(['Binance', 'Kraken', 'Huobi']);
    expect(offered()).toContain('Coinbase');
  });

  it('select: the options, with the chosen one', async () => {
    render(<Harness name="timeframe" definition={CRYPTO.defaultConfig.parameters.timeframe!} />);
    const select = screen.getByRole('combobox', { name: /Timeframe/ });
    expect(select).toHaveValue('15min');
    await userEvent.selectOptions(select, '1h');
    expect(valueOf()).toBe('1h');
  });

  it('boolean: a switch', async () => {
    render(<Harness name="walletTracking" definition={CRYPTO.defaultConfig.parameters.walletTracking!} />);
    const toggle = screen.getByRole('switch', { name: /Wallet tracking/ });
    expect(toggle).not.toBeChecked();
    await userEvent.click(toggle);
    expect(valueOf()).toBe(true);
  });

  it('string: the token placeholder; textarea', async () => {
    render(<Harness name="token" definition={CRYPTO.defaultConfig.parameters.token!} />);
    expect(screen.getByPlaceholderText('Enter token symbol (e.g. BTC, ETH)')).toHaveValue('BTC');
    render(<Harness name="symbols" definition={STOCK.defaultConfig.parameters.symbols!} />);
    expect(screen.getByRole('textbox', { name: /Symbols/ })).toHaveValue('AAPL, MSFT, GOOGL, AMZN, META');
  });

  it("an unknown type says so", () => {
    render(<Harness name="odd" definition={def({ type: 'colour' as TParameterDefinition['type'], label: 'Odd' })} />);
    expect(screen.getByText('Unsupported parameter type')).toBeInTheDocument();
  });
});

describe('ParameterField rule and error', () => {
  it("the hint states the rule; the server's message marks the field invalid and describes it", () => {
    const token = CRYPTO.defaultConfig.parameters.token!;
    const { rerender } = render(<ParameterField name="token" definition={token} value="btc" onChange={() => {}} />);
    const input = screen.getByRole('textbox', { name: /Token/ });
    expect(input).toHaveAccessibleDescription('The coin symbol to watch, e.g. BTC or ETH. Required, must be 2 to 10 capital letters (e.g. BTC).');
    expect(input).not.toHaveAttribute('aria-invalid');

    rerender(<ParameterField name="token" definition={token} value="btc" onChange={() => {}} error="must be 2 to 10 capital letters (e.g. BTC)" />);
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveAccessibleDescription(/^must be 2 to 10 capital letters \(e\.g\. BTC\) The coin symbol/);
  });

  it('a slider carries its error too', () => {
    render(<ParameterField name="rsiThreshold" definition={STOCK.defaultConfig.parameters.rsiThreshold!} value={70} onChange={() => {}} error="must be between 0 and 100" />);
    const thumb = screen.getByRole('slider', { name: /RSI threshold/ });
    expect(thumb).toHaveAttribute('aria-invalid', 'true');
    expect(thumb).toHaveAccessibleDescription(/^must be between 0 and 100 .*Must be between 0 and 100, a whole number\.$/);
  });
});
