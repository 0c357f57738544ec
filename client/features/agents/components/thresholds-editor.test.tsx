import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import type { TThreshold } from '../../../../contracts/agents.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { ThresholdsEditor } from './thresholds-editor.tsx';

function Harness({ initial }: { initial: TThreshold[] }) {
  const [value, setValue] = useState(initial);
  return <ThresholdsEditor value={value} onChange={setValue} />;
}

const message = () => screen.getByRole('textbox', { name: 'Threshold 1 message' });
const value = () => screen.getByRole('spinbutton', { name: 'Threshold 1 value (%)' });

describe('ThresholdsEditor', () => {
  it('an untouched message follows the type and value, even one an earlier version wrote', async () => {
    renderWithProviders(<Harness initial={[{ type: 'priceChange', value: 3, message: 'Price moved more than 3%' }]} />);
    await userEvent.clear(value());
    await userEvent.type(value(), '0.1');
    expect(message()).toHaveValue('Price change above 0.1%');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Threshold 1 type' }), 'volumeAlert');
    expect(message()).toHaveValue('Volume above 0.1% of average');
    expect(screen.getByText('% of average volume')).toBeInTheDocument();
    expect(value()).toHaveAccessibleDescription(/^% of average volume The last candle's volume as a % of the average volume of the 20 candles before it/);
  });

  // Issue 29 item 5: '-1' then '2' left 'Price change above -1%', and '-5' then '0.1' saved an
  // agent whose alerts read 'Price change above -5% (… 0.61% > 0.1% …)'.
  it.each([
    ['-1', '2', 'Price change above 2%'],
    ['-5', '0.1', 'Price change above 0.1%'],
  ])('an untouched message follows %s then %s', async (first, second, expected) => {
    renderWithProviders(<Harness initial={[{ type: 'priceChange', value: 5, message: 'Price change above 5%' }]} />);
    await userEvent.clear(value());
    await userEvent.type(value(), first);
    expect(message()).toHaveValue(`Price change above ${first}%`);
    await userEvent.clear(value());
    await userEvent.type(value(), second);
    expect(message()).toHaveValue(expected);
    // Emptied, then another type: the message keeps the last value, in the new type's words.
    await userEvent.clear(value());
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Threshold 1 type' }), 'volumeSpike');
    expect(message()).toHaveValue(`Volume spike above ${second}% of average`);
  });

  it("keeps the user's own words when the value changes", async () => {
    renderWithProviders(<Harness initial={[{ type: 'priceChange', value: 5, message: 'Price change above 5%' }]} />);
    await userEvent.clear(message());
    await userEvent.type(message(), 'BTC is moving');
    await userEvent.clear(value());
    await userEvent.type(value(), '2');
    expect(message()).toHaveValue('BTC is moving');
  });

  it("states each field's rule, the schema's own limits, on the value and the message", () => {
    renderWithProviders(<Harness initial={[{ type: 'priceChange', value: 5, message: 'Price change above 5%' }]} />);
    const rule = 'Each value is from 0 to 10,000; each message is required, up to 200 characters.';
    expect(value()).toHaveAccessibleDescription(expect.stringContaining(rule));
    expect(message()).toHaveAccessibleDescription(rule);
  });
});
