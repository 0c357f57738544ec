import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TConditionState } from '../../../../contracts/conditions.ts';
import type { TNotification, TNotificationList } from '../../../../contracts/notifications.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { notify } from '../../../lib/notify.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import NotificationBell from './notification-bell.tsx';

const AGENT = '00000000-0000-4000-8000-0000000000a1';
const CONDITION = '00000000-0000-4000-8000-0000000000c1';
const SNOOZE_URL = `POST /api/agents/${AGENT}/conditions/${CONDITION}/snooze`;
const TITLE = 'RSI (14) on 1 hour crosses below 30';

const met: TNotification = {
  id: '00000000-0000-4000-8000-000000000001',
  kind: 'alerts',
  agentId: AGENT,
  agentName: 'Watch',
  runId: 41,
  market: 'AAPL',
  thresholdType: null,
  alerts: [],
  conditions: [{ conditionId: CONDITION, market: 'AAPL', title: TITLE, text: 'AAPL: RSI (14) on 1 hour crossed below 30 (29.4, before 31.2)' }],
  title: `Watch: ${TITLE} on AAPL`,
  message: 'AAPL: RSI (14) on 1 hour crossed below 30 (29.4, before 31.2)',
  createdAt: new Date().toISOString(),
  readAt: null,
  emailStatus: 'none',
  heldUntil: null,
  deliveries: [],
  brief: null,
};

function stubApi(snooze: (body: unknown) => Response) {
  const list: TNotificationList = { notifications: [met], unread: 1 };
  return stubFetch({ 'GET /api/notifications?limit=20': () => jsonResponse(list), [SNOOZE_URL]: (request) => snooze(request.body) });
}
const state = (snoozedUntil: string): TConditionState => ({ conditionId: CONDITION, disarmed: false, snoozedUntil, lastNotifiedAt: null });

async function openBell() {
  renderWithProviders(<NotificationBell />);
  await userEvent.click(await screen.findByRole('button', { name: 'Notifications, 1 unread' }));
  return screen.getByRole('dialog', { name: 'Notifications' });
}

afterEach(() => setSettingsTimeZone(null));

/** Issue 30 item 2: snooze a condition from its notification. */
describe('Snooze in the bell', () => {
  it("shows the condition's plain words, and snoozes it from the keyboard for a preset, the toast naming until when in the owner's zone", async () => {
    setSettingsTimeZone('Asia/Tokyo');
    const { requests } = stubApi(() => jsonResponse(state('2026-11-28T04:00:00.000Z')));
    const panel = await openBell();
    expect(within(panel).getByRole('list', { name: 'Alerts' })).toHaveTextContent('AAPL: RSI (14) on 1 hour crossed below 30 (29.4, before 31.2)');

    within(panel).getByRole('button', { name: `Snooze: ${TITLE}` }).focus();
    await userEvent.keyboard('{Enter}');
    const menu = await screen.findByRole('menu');
    expect(within(menu).getAllByRole('menuitem').map((item) => item.textContent)).toEqual(['1 hour', '4 hours', 'Until tomorrow 09:00', 'Choose a time…']);
    await userEvent.keyboard('{ArrowDown}');
    await vi.waitFor(() => expect(within(menu).getByRole('menuitem', { name: '4 hours' })).toHaveFocus());
    await userEvent.keyboard('{Enter}');

    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Snoozed until Nov 28, 2026 13:00 GMT+9', TITLE));
    expect(requests).toContainEqual({ method: 'POST', url: SNOOZE_URL.slice(5), body: { preset: '4h' } });
  });

  it('snoozes until tomorrow 09:00 by a click', async () => {
    const { requests } = stubApi(() => jsonResponse(state('2026-11-29T09:00:00.000Z')));
    setSettingsTimeZone('UTC');
    const panel = await openBell();
    await userEvent.click(within(panel).getByRole('button', { name: `Snooze: ${TITLE}` }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Until tomorrow 09:00' }));
    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Snoozed until Nov 29, 2026 09:00 UTC', TITLE));
    expect(requests).toContainEqual({ method: 'POST', url: SNOOZE_URL.slice(5), body: { preset: 'tomorrow' } });
  });

  it('takes a chosen time in the owner’s zone, and shows the server’s refusal on the field', async () => {
    setSettingsTimeZone('Europe/Paris');
    const bodies: unknown[] = [];
    stubApi((body) => {
      bodies.push(body);
      return bodies.length === 1
        ? jsonResponse({ error: 'Bad Request', message: 'Invalid request', details: [{ path: 'until', message: 'Snooze until must be at most 30 days ahead' }] }, 400)
        : jsonResponse(state('2026-12-01T17:30:00.000Z'));
    });
    const panel = await openBell();
    await userEvent.click(within(panel).getByRole('button', { name: `Snooze: ${TITLE}` }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Choose a time…' }));

    const field = await within(panel).findByLabelText('Snooze until (Europe/Paris)');
    await vi.waitFor(() => expect(field).toHaveFocus());
    await userEvent.clear(field);
    await userEvent.type(field, '2027-06-01T18:30');
    await userEvent.click(within(panel).getByRole('button', { name: 'Snooze' }));
    // 18:30 in Paris in June is 16:30 UTC.
    await vi.waitFor(() => expect(bodies).toEqual([{ until: '2027-06-01T16:30:00.000Z' }]));
    expect(await within(panel).findByRole('alert')).toHaveTextContent('Snooze until must be at most 30 days ahead');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(notify.success).not.toHaveBeenCalled();

    await userEvent.clear(field);
    await userEvent.type(field, '2026-12-01T18:30');
    await userEvent.keyboard('{Enter}');
    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Snoozed until Dec 1, 2026 18:30 GMT+1', TITLE));
    expect(bodies[1]).toEqual({ until: '2026-12-01T17:30:00.000Z' });
    expect(within(panel).queryByLabelText('Snooze until (Europe/Paris)')).not.toBeInTheDocument();
  });

  it('a notification without conditions has no Snooze', async () => {
    stubFetch({ 'GET /api/notifications?limit=20': () => jsonResponse({ notifications: [{ ...met, conditions: [] }], unread: 1 }) });
    const panel = await openBell();
    expect(within(panel).queryByRole('button', { name: /^Snooze/ })).not.toBeInTheDocument();
  });
});
