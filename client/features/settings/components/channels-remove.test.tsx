import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { toast as sonner } from 'sonner';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TChannel } from '../../../../contracts/channels.ts';
import { ToastHost } from '../../../components/ui/toast-host.tsx';
import { jsonResponse, stubFetch, type StubRequest } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { ChannelsSection } from './channels-section.tsx';

// Removing a channel (issue 29, docs/decisions/0070): it leaves the list at once and a toast says
// 'Channel removed' with Undo; the server removes it when the toast goes. The real toasts.
vi.unmock('../../../lib/notify.ts');

const channel = (n: number, name: string): TChannel => ({ id: `00000000-0000-4000-8000-0000000000c${n}`, kind: 'slack', name, target: `hooks.slack.com/…/AbC${n}`, createdAt: '2026-11-25T07:00:00.000Z', movedFrom: null });

/** GET and DELETE /api/channels over an in-memory list. */
function channelsServer(channels: TChannel[]) {
  const list = [...channels];
  const handle = (request: StubRequest) => {
    if (request.method === 'GET' && request.url === '/api/channels') return jsonResponse({ channels: list });
    const id = /^\/api\/channels\/([^/]+)$/.exec(request.url)?.[1];
    if (request.method === 'DELETE' && id) {
      const at = list.findIndex((c) => c.id === id);
      if (at < 0) return jsonResponse({ error: 'Not Found', message: 'Channel not found' }, 404);
      list.splice(at, 1);
      return new Response(null, { status: 204 });
    }
    return undefined;
  };
  return { list, handle };
}

const renderSection = () =>
  renderWithProviders(
    <>
      <ChannelsSection />
      <ToastHost />
    </>,
    { path: '/settings', auth: signedInAs('admin') },
  );
const channels = () => screen.findByRole('list', { name: 'Your channels' });

afterEach(async () => {
  // Sonner keeps its toasts across tests: each test starts without one.
  act(() => void sonner.dismiss());
  await waitFor(() => expect(document.querySelector('[data-sonner-toast]')).toBeNull());
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('ChannelsSection: Remove, with Undo', () => {
  it('takes the channel off the list at once (by keyboard too, focus on the next one) and says so with Undo; Undo brings it back and nothing is removed', async () => {
    const server = channelsServer([channel(1, 'Team'), channel(2, 'Ops')]);
    const { requests } = stubFetch({}, server.handle);
    renderSection();
    const user = userEvent.setup();
    within(await channels()).getByRole('button', { name: 'Remove Team' }).focus();
    await user.keyboard('{Enter}');
    expect(within(await channels()).queryByText(/^Team/)).not.toBeInTheDocument();
    expect(await screen.findByText('Channel removed')).toBeInTheDocument();
    // Focus stays in the list, on the next channel.
    expect(within(await channels()).getByRole('button', { name: 'Send test to Ops' })).toHaveFocus();
    await user.click(screen.getByRole('button', { name: 'Undo' }));
    expect(await within(await channels()).findByRole('button', { name: 'Remove Team' })).toBeInTheDocument();
    expect(requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(server.list.map((c) => c.name)).toEqual(['Team', 'Ops']);
  });

  it('removes it on the server once the toast has gone, after its few seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = channelsServer([channel(1, 'Team'), channel(2, 'Ops')]);
    stubFetch({}, server.handle);
    renderSection();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.click(within(await channels()).getByRole('button', { name: 'Remove Team' }));
    await screen.findByText('Channel removed');
    expect(server.list).toHaveLength(2); // waits for Undo
    act(() => vi.advanceTimersByTime(6_000));
    await waitFor(() => expect(server.list.map((c) => c.name)).toEqual(['Ops']));
    expect(within(await channels()).queryByText(/^Team/)).not.toBeInTheDocument();
  });

  it('a removal the server refuses brings the channel back and says why', async () => {
    const server = channelsServer([channel(1, 'Team')]);
    stubFetch({ [`DELETE /api/channels/${channel(1, 'Team').id}`]: () => jsonResponse({ error: 'Service Unavailable', message: 'The database is unavailable. Please try again.' }, 503) }, server.handle);
    vi.spyOn(console, 'error').mockImplementation(() => {});
    renderSection();
    const user = userEvent.setup();
    await user.click(within(await channels()).getByRole('button', { name: 'Remove Team' }));
    expect(await screen.findByText('No channels yet.')).toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Close toast' }));
    expect(await screen.findByText('Could not remove the channel')).toBeInTheDocument();
    expect(await within(await channels()).findByRole('button', { name: 'Remove Team' })).toBeInTheDocument();
  });
});
