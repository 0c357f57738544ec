import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TNotification, TNotificationList } from '../../../../contracts/notifications.ts';
import { NOTIFICATIONS_POLL_MS } from '../api/notifications-api.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import NotificationBell, { relativeTime } from './notification-bell.tsx';
import { notify } from '../../../lib/notify.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';


const LIST_URL = 'GET /api/notifications?limit=20';
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

function notification(overrides: Partial<TNotification>): TNotification {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    kind: 'alerts',
    agentId: '00000000-0000-4000-8000-0000000000a1',
    agentName: 'BTC watcher',
    runId: 41,
    market: 'BTC/USDT on binance',
    thresholdType: 'rsi_overbought',
    alerts: [],
    conditions: [],
    title: 'RSI overbought',
    message: 'RSI 78.2 is above 70.',
    createdAt: minutesAgo(5),
    readAt: null,
    emailStatus: 'none',
    heldUntil: null,
    deliveries: [],
    brief: null,
    ...overrides,
  };
}

const RSI = notification({});
const DROP = notification({ id: '00000000-0000-4000-8000-000000000002', title: 'Price drop', message: 'ETH fell 6.1 %.', market: 'ETH/USDT on kraken', createdAt: minutesAgo(120) });
const OLD = notification({ id: '00000000-0000-4000-8000-000000000003', title: 'Volume spike', readAt: minutesAgo(60), createdAt: minutesAgo(3 * 24 * 60), emailStatus: 'failed' });

/** A small fake of the notifications API: marking read changes what the next GET returns. */
function stubNotificationsApi(initial: TNotification[] = [RSI, DROP, OLD], overrides: Record<string, () => Response> = {}) {
  let items = initial;
  const list = (): TNotificationList => ({ notifications: items, unread: items.filter((n) => n.readAt === null).length });
  const read = (id: string) => {
    items = items.map((n) => (n.id === id && n.readAt === null ? { ...n, readAt: new Date().toISOString() } : n));
    return jsonResponse(items.find((n) => n.id === id));
  };
  return stubFetch({
    [LIST_URL]: () => jsonResponse(list()),
    ...Object.fromEntries(items.map((n) => [`POST /api/notifications/${n.id}/read`, () => read(n.id)])),
    'POST /api/notifications/read-all': () => {
      items = items.map((n) => (n.readAt === null ? { ...n, readAt: new Date().toISOString() } : n));
      return new Response(null, { status: 204 });
    },
    ...overrides,
  });
}

const bell = () => screen.getByRole('button', { name: /^Notifications/ });
const panel = () => screen.getByRole('dialog', { name: 'Notifications' });

beforeEach(() => vi.clearAllMocks());

describe('NotificationBell', () => {
  it('shows the unread count on an accessible button', async () => {
    stubNotificationsApi();
    renderWithProviders(<NotificationBell />);
    expect(bell()).toHaveAccessibleName('Notifications');
    await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications, 2 unread'));
    expect(bell()).toHaveTextContent('2');
  });

  it('opens the latest notifications with title, message, agent, market, time and unread styling', async () => {
    stubNotificationsApi();
    renderWithProviders(<NotificationBell />);
    await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications, 2 unread'));
    await userEvent.click(bell());

    const items = within(panel()).getAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(items[0]).toHaveTextContent('Unread: RSI overbought');
    expect(items[0]).toHaveTextContent('RSI 78.2 is above 70.');
    expect(items[0]).toHaveTextContent('BTC watcher · BTC/USDT on binance · 5 minutes ago');
    expect(items[1]).toHaveTextContent('2 hours ago');
    expect(items[2]).toHaveTextContent('Volume spike');
    expect(items[2]).not.toHaveTextContent('Unread');
    expect(items[2]).toHaveTextContent('3 days ago');
    // The email's delivery is a small mark, its story in the title.
    expect(items[2]).toHaveTextContent('Email failed');
    expect(within(items[2]!).getByTitle('The email could not be sent')).toBeInTheDocument();
    expect(within(items[2]!).queryByRole('button', { name: /Mark as read/ })).not.toBeInTheDocument();
  });

  it("lists every alert of a run, and its title opens the agent's Run History at that run and reads it", async () => {
    const run = notification({
      title: 'BTC watcher: 2 alerts on 2 markets',
      market: null,
      thresholdType: null,
      message: 'Price moved (BTC/USDT on binance: 3.10% > 3.00%)\nPrice moved (BTC/USD on kraken: 3.20% > 3.00%)',
      alerts: [
        { market: 'BTC/USDT on binance', threshold: 'priceChange', value: 3.1, limit: 3, message: 'Price moved (BTC/USDT on binance: 3.10% > 3.00%)' },
        { market: 'BTC/USD on kraken', threshold: 'priceChange', value: 3.2, limit: 3, message: 'Price moved (BTC/USD on kraken: 3.20% > 3.00%)' },
      ],
      emailStatus: 'sent',
    });
    const failing = notification({ id: '00000000-0000-4000-8000-000000000009', kind: 'failing', title: 'BTC watcher is failing: no fresh data from Kraken since 15:00 UTC', market: null, thresholdType: null, message: 'Its last 3 runs failed.', runId: 42 });
    const { requests } = stubNotificationsApi([run, failing]);
    renderWithProviders(<NotificationBell />);
    await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications, 2 unread'));
    await userEvent.click(bell());

    const alerts = within(panel()).getByRole('list', { name: 'Alerts' });
    expect(within(alerts).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Price moved (BTC/USDT on binance: 3.10% > 3.00%)',
      'Price moved (BTC/USD on kraken: 3.20% > 3.00%)',
    ]);
    expect(within(panel()).getByText('Emailed')).toBeInTheDocument();
    const failingLink = within(panel()).getByRole('link', { name: failing.title });
    expect(failingLink).toHaveAttribute('href', `/agents-console?agent=${failing.agentId}&run=42`);
    const link = within(panel()).getByRole('link', { name: run.title });
    expect(link).toHaveAttribute('href', `/agents-console?agent=${run.agentId}&run=41`);
    await userEvent.click(link);
    expect(requests).toContainEqual({ method: 'POST', url: `/api/notifications/${run.id}/read`, body: undefined });
    expect(screen.queryByRole('dialog', { name: 'Notifications' })).not.toBeInTheDocument();
  });

  it('shows an alert storm notice by its summary, not the list of held alerts, its times and its own in one zone, named', async () => {
    // The server writes the notice's times in the owner's Settings zone, named (docs/decisions/0066);
    // the bell's time of the notice is in the same zone.
    setSettingsTimeZone('Asia/Tokyo');
    const storm = notification({
      kind: 'alert-storm',
      title: 'BTC watcher: alert storm, notifications paused until 23:05 GMT+9',
      market: null,
      thresholdType: null,
      message: 'This agent reached its limit of 12 notifications per hour.\nHeld back since 22:20 GMT+9: 2 alerts on BTC/USDT on binance, BTC/USD on kraken (Price change).\nNotifications resume at 23:05 GMT+9. Run History records every firing.',
      createdAt: '2026-11-25T13:20:00.000Z',
      alerts: [
        { market: 'BTC/USDT on binance', threshold: 'priceChange', value: 3.1, limit: 3, message: 'Price moved (BTC/USDT on binance: 3.10% > 3.00%)' },
        { market: 'BTC/USD on kraken', threshold: 'priceChange', value: 3.2, limit: 3, message: 'Price moved (BTC/USD on kraken: 3.20% > 3.00%)' },
      ],
      heldUntil: '2026-11-25T14:05:00.000Z',
    });
    stubNotificationsApi([storm]);
    renderWithProviders(<NotificationBell />);
    await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications, 1 unread'));
    await userEvent.click(bell());

    expect(within(panel()).getByRole('link', { name: storm.title })).toHaveAttribute('href', `/agents-console?agent=${storm.agentId}&run=41`);
    expect(within(panel()).getByText(/Held back since 22:20 GMT\+9: 2 alerts on BTC\/USDT on binance, BTC\/USD on kraken/)).toBeInTheDocument();
    expect(within(panel()).getByText(/Notifications resume at 23:05 GMT\+9/)).toBeInTheDocument();
    expect(within(panel()).getByText((_, el) => el?.tagName === 'TIME')).toHaveAttribute('title', 'Nov 25, 2026 22:20 GMT+9');
    expect(within(panel()).queryByRole('list', { name: 'Alerts' })).not.toBeInTheDocument();
  });

  it("shows each channel's delivery, and why one failed", async () => {
    const delivered = notification({
      deliveries: [
        { channelId: 'c1', event: 'notification', kind: 'slack', channelName: 'Team', status: 'sent', attempts: 1, lastError: null },
        { channelId: 'c2', event: 'notification', kind: 'discord', channelName: 'Busy', status: 'failed', attempts: 3, lastError: 'The receiver is limiting requests; the delivery is retried later.' },
        { channelId: 'c1', event: 'notification.brief', kind: 'slack', channelName: 'Team', status: 'pending', attempts: 0, lastError: null },
      ],
    });
    stubNotificationsApi([delivered]);
    renderWithProviders(<NotificationBell />);
    await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications, 1 unread'));
    await userEvent.click(bell());
    const channels = within(panel()).getByRole('list', { name: 'Channels' });
    expect(within(channels).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Team: delivered',
      'Busy: not delivered. The receiver is limiting requests; the delivery is retried later.',
      'Team (brief): sending…',
    ]);
  });

  describe('the brief of an alert (Explain alerts)', () => {
    const brief = { provider: 'deepseek', model: 'deepseek-chat', text: null, error: null } as const;
    const open = async (n: TNotification) => {
      stubNotificationsApi([n]);
      renderWithProviders(<NotificationBell />);
      await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications, 1 unread'));
      await userEvent.click(bell());
      return within(panel()).getByRole('group', { name: 'Brief' });
    };

    it('says it is being written, and by which assistant and model', async () => {
      const shown = await open(notification({ brief: { ...brief, status: 'pending' } }));
      expect(shown).toHaveTextContent('Writing a brief…Brief by DeepSeek (DeepSeek V3)');
    });

    it('shows the written brief as plain text, attributed, under the alerts', async () => {
      const text = 'BTC rose 0.6%, twelve times its usual move; <b>two signals</b> agreed.';
      const item = await open(notification({ alerts: [{ market: 'BTC/USDT on binance', threshold: 'priceChange', value: 0.6, limit: 0.5, message: 'Price change above 0.5%' }], brief: { ...brief, status: 'ready', text } }));
      expect(item).toHaveTextContent(`${text}Brief by DeepSeek (DeepSeek V3)`);
      // Markup in the assistant's text is text, never elements.
      expect(item.querySelector('b')).toBeNull();
      const alerts = within(panel()).getByRole('list', { name: 'Alerts' });
      expect(alerts.compareDocumentPosition(item) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    });

    it('says why there is none when it failed', async () => {
      const item = await open(notification({ brief: { ...brief, status: 'failed', error: 'Your daily AI budget is used up, so no brief was written. It resets at 00:00 UTC.' } }));
      expect(item).toHaveTextContent('No brief: Your daily AI budget is used up, so no brief was written. It resets at 00:00 UTC.Brief by DeepSeek (DeepSeek V3)');
    });

    it('shows nothing for a notification without a brief', async () => {
      stubNotificationsApi([RSI]);
      renderWithProviders(<NotificationBell />);
      await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications, 1 unread'));
      await userEvent.click(bell());
      expect(within(panel()).queryByRole('group', { name: 'Brief' })).not.toBeInTheDocument();
    });
  });

  it('marks one as read with POST, and the count drops', async () => {
    const { requests } = stubNotificationsApi();
    renderWithProviders(<NotificationBell />);
    await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications, 2 unread'));
    await userEvent.click(bell());

    const markRsi = within(panel()).getByRole('button', { name: 'Mark as read: RSI overbought' });
    await userEvent.click(markRsi);

    expect(bell()).toHaveAccessibleName('Notifications, 1 unread');
    expect(requests).toContainEqual({ method: 'POST', url: `/api/notifications/${RSI.id}/read`, body: undefined });
    // Focus moves on to the next unread item's button rather than falling to the page.
    expect(within(panel()).getByRole('button', { name: 'Mark as read: Price drop' })).toHaveFocus();
    expect(within(panel()).queryByRole('button', { name: 'Mark as read: RSI overbought' })).not.toBeInTheDocument();
    await vi.waitFor(() => expect(requests.filter((r) => r.url === '/api/notifications?limit=20').length).toBeGreaterThanOrEqual(3));
    expect(bell()).toHaveAccessibleName('Notifications, 1 unread');
  });

  it('marks all as read from the keyboard', async () => {
    const { requests } = stubNotificationsApi();
    renderWithProviders(<NotificationBell />);
    await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications, 2 unread'));

    bell().focus();
    await userEvent.keyboard('{Enter}');
    const markAll = within(panel()).getByRole('button', { name: 'Mark all as read' });
    markAll.focus();
    await userEvent.keyboard('{Enter}');

    await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications'));
    expect(requests).toContainEqual({ method: 'POST', url: '/api/notifications/read-all', body: undefined });
    expect(within(panel()).getByRole('button', { name: 'Mark all as read' })).toBeDisabled();
    expect(within(panel()).queryByText(/^Unread/)).not.toBeInTheDocument();

    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(bell()).toHaveFocus();
  });

  it('puts the count back and says so when the server refuses', async () => {
    stubNotificationsApi(undefined, {
      [`POST /api/notifications/${RSI.id}/read`]: () => jsonResponse({ error: 'Not Found', message: 'Notification not found' }, 404),
    });
    renderWithProviders(<NotificationBell />);
    await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications, 2 unread'));
    await userEvent.click(bell());
    await userEvent.click(within(panel()).getByRole('button', { name: 'Mark as read: RSI overbought' }));

    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Could not mark the notification as read', 'Notification not found'));
    await vi.waitFor(() => expect(bell()).toHaveAccessibleName('Notifications, 2 unread'));
  });

  it('says when there are none yet', async () => {
    stubNotificationsApi([]);
    renderWithProviders(<NotificationBell />);
    await userEvent.click(bell());
    expect(await within(panel()).findByText('No notifications yet')).toBeInTheDocument();
    expect(within(panel()).getByRole('button', { name: 'Mark all as read' })).toBeDisabled();
  });

  it('offers a retry when the list cannot be loaded', async () => {
    stubFetch({ [LIST_URL]: { status: 500, body: { error: 'Internal Server Error' } } });
    vi.spyOn(console, 'error').mockImplementation(() => {});
    renderWithProviders(<NotificationBell />);
    await userEvent.click(bell());
    expect(await within(panel()).findByRole('alert')).toHaveTextContent('Notifications could not be loaded: 500: Internal Server Error');
    stubNotificationsApi();
    await userEvent.click(within(panel()).getByRole('button', { name: 'Try again' }));
    expect(await within(panel()).findByText('RSI overbought')).toBeInTheDocument();
  });

  it(`polls every ${NOTIFICATIONS_POLL_MS / 1000} s and when the window regains focus`, async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const { requests } = stubNotificationsApi();
      renderWithProviders(<NotificationBell />);
      const gets = () => requests.filter((r) => r.url === '/api/notifications?limit=20').length;
      await vi.waitFor(() => expect(gets()).toBe(1));
      await vi.advanceTimersByTimeAsync(NOTIFICATIONS_POLL_MS);
      await vi.waitFor(() => expect(gets()).toBe(2));
      window.dispatchEvent(new Event('visibilitychange'));
      window.dispatchEvent(new Event('focus'));
      await vi.waitFor(() => expect(gets()).toBe(3));
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('relativeTime', () => {
  const now = Date.parse('2026-03-04T12:00:00Z');
  it.each([
    ['2026-03-04T11:59:30Z', 'just now'],
    ['2026-03-04T11:58:00Z', '2 minutes ago'],
    ['2026-03-04T09:00:00Z', '3 hours ago'],
    ['2026-03-03T10:00:00Z', 'yesterday'],
    ['2026-02-18T12:00:00Z', '2 weeks ago'],
    ['2025-01-01T12:00:00Z', 'last year'],
  ])('%s is %s', (iso, text) => {
    expect(relativeTime(iso, now)).toBe(text);
  });
});
