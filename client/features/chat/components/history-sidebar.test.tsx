import { render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import type { ChatHistoryEntry } from '../lib/chat-storage.ts';
import { HistorySidebar } from './history-sidebar.tsx';

const entry = (id: string, timestamp: string): ChatHistoryEntry => ({ id, title: `Chat ${id}`, timestamp, model: 'gpt-4o', aiService: 'openai' });

function renderSidebar(entries: ChatHistoryEntry[]) {
  const list = { entries, offline: false, loading: false, searching: false, hasMore: false, loadingMore: false, loadMore: vi.fn(), answering: null, settled: true };
  render(
    <HistorySidebar
      id="history"
      list={list}
      search=""
      onSearch={vi.fn()}
      currentId=""
      drawerOpen={false}
      pinned
      onClose={vi.fn()}
      onNewChat={vi.fn()}
      onSelect={vi.fn()}
      onDelete={vi.fn()}
      onRename={vi.fn(async () => true)}
    />,
  );
  return (id: string) => within(screen.getByRole('button', { name: new RegExp(`^Chat ${id}`) })).getByText((_, el) => el?.tagName === 'TIME');
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

// Issue 29 item 7 (docs/decisions/0066): the sidebar's dates are days and times of the zone every
// time is shown in (Settings', else the browser's), a time of day named; the clock is fixed.
describe('HistorySidebar dates', () => {
  it("reads today, yesterday and the full date on the zone's calendar, a time 24-hour and named", () => {
    vi.useFakeTimers({ now: new Date('2025-06-10T06:30:00.000Z'), toFake: ['Date'] }); // 15:30 in Tokyo
    setSettingsTimeZone('Asia/Tokyo');
    const dateOf = renderSidebar([
      entry('a', '2025-06-10T00:05:00.000Z'), // 09:05 today in Tokyo (yesterday in New York)
      entry('b', '2025-06-09T14:59:00.000Z'), // 23:59 yesterday in Tokyo
      entry('c', '2025-06-03T03:00:00.000Z'),
    ]);
    expect(dateOf('a')).toHaveTextContent(/^09:05 GMT\+9$/);
    expect(dateOf('b')).toHaveTextContent(/^Yesterday$/);
    expect(dateOf('c')).toHaveTextContent(/^Jun 3, 2025$/);
  });

  it("uses the browser's zone when Settings has none", () => {
    vi.useFakeTimers({ now: new Date('2025-06-10T06:30:00.000Z'), toFake: ['Date'] });
    vi.spyOn(Intl.DateTimeFormat.prototype, 'resolvedOptions').mockReturnValue({ ...new Intl.DateTimeFormat().resolvedOptions(), timeZone: 'America/New_York' });
    const dateOf = renderSidebar([entry('a', '2025-06-10T06:05:00.000Z')]);
    expect(dateOf('a')).toHaveTextContent(/^02:05 EDT$/);
  });
});
