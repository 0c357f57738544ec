import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import type { TNotifications } from '../../../../contracts/agents.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import type { TFieldErrors } from '../lib/field-errors.ts';
import { NotificationsFields } from './config-fields.tsx';

const RULE = 'A whole number from 1 to 1,000; 12 when left empty.';

function Harness({ initial, errors = {}, seen }: { initial: TNotifications; errors?: TFieldErrors; seen?: (next: TNotifications) => void }) {
  const [value, setValue] = useState(initial);
  return (
    <NotificationsFields
      value={value}
      errors={errors}
      onChange={(next) => {
        seen?.(next);
        setValue(next);
      }}
    />
  );
}

const field = () => screen.getByRole('spinbutton', { name: 'Notifications per hour' });
const BASE: TNotifications = { email: true, inApp: true, thresholds: [] };

describe('Notifications per hour', () => {
  it('is empty for the default, which its placeholder shows, and states its rule', () => {
    renderWithProviders(<Harness initial={BASE} />);
    expect(field()).toHaveValue(null);
    expect(field()).toHaveAttribute('placeholder', '12');
    expect(field()).toHaveAttribute('min', '1');
    expect(field()).toHaveAttribute('max', '1000');
    expect(field()).toHaveAccessibleDescription(expect.stringContaining(RULE));
    expect(field()).toHaveAccessibleDescription(expect.stringContaining('one alert storm notice'));
  });

  it('sets the agent’s own cap, and clearing it goes back to the default', async () => {
    const changes: TNotifications[] = [];
    renderWithProviders(<Harness initial={{ ...BASE, maxPerHour: 12 }} seen={(next) => changes.push(next)} />);
    await userEvent.clear(field());
    expect(changes.at(-1)!.maxPerHour).toBeUndefined();
    await userEvent.type(field(), '30');
    expect(field()).toHaveValue(30);
    expect(changes.at(-1)).toEqual({ ...BASE, maxPerHour: 30 });
  });

  it("shows the server's refusal on the field, not in the thresholds' list", () => {
    renderWithProviders(<Harness initial={{ ...BASE, maxPerHour: 0 }} errors={{ 'notifications.maxPerHour': 'Notifications per hour must be at least 1' }} />);
    expect(field()).toHaveAttribute('aria-invalid', 'true');
    expect(field()).toHaveAccessibleDescription(`Notifications per hour must be at least 1 ${screen.getByText(/alert storm notice/).textContent}`);
    expect(screen.queryByRole('list', { name: 'Notification problems' })).not.toBeInTheDocument();
  });
});
