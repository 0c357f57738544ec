import { QueryClientProvider } from '@tanstack/react-query';
import { renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../../lib/query-client.ts';
import { useLiveEvents } from './use-live-events.ts';

/** An EventSource that the test drives: its listeners by event type. */
class FakeEventSource {
  static last: FakeEventSource | null = null;
  readonly listeners = new Map<string, Array<(message: MessageEvent<string>) => void>>();
  readyState = 1;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  readonly url: string;
  constructor(url: string) {
    this.url = url;
    FakeEventSource.last = this;
  }
  addEventListener(type: string, listener: (message: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close() {}
  send(type: string, data: unknown) {
    for (const listener of this.listeners.get(type) ?? []) listener(new MessageEvent(type, { data: JSON.stringify(data) }));
  }
}

describe('useLiveEvents', () => {
  it('a proposal event makes the proposals stale, and nothing else', () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    const queryClient = createQueryClient();
    for (const key of ['/api/agents/proposals?status=pending', '/api/agents', '/api/notifications']) queryClient.setQueryData([key], []);
    renderHook(() => useLiveEvents(), { wrapper: ({ children }: { children: ReactNode }) => <QueryClientProvider client={queryClient}>{children}</QueryClientProvider> });
    FakeEventSource.last!.send('proposal', { type: 'proposal', action: 'created', proposalId: '22222222-2222-4222-8222-222222222222' });
    const stale = (key: string) => queryClient.getQueryState([key])!.isInvalidated;
    expect(stale('/api/agents/proposals?status=pending')).toBe(true);
    expect(stale('/api/agents')).toBe(false);
    expect(stale('/api/notifications')).toBe(false);
  });
});
