import { useSyncExternalStore } from 'react';

/**
 * Whether this tab's live event stream (GET /api/events, docs/decisions/0042) is open. While
 * it is, the views it updates (the bell, Run History) do not poll; while it is not (a proxy
 * that drops it, the server refusing it), they poll slowly as before.
 */
let live = false;
const listeners = new Set<() => void>();

export function setLive(value: boolean): void {
  if (value === live) return;
  live = value;
  for (const listener of listeners) listener();
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};

export const useLive = (): boolean => useSyncExternalStore(subscribe, () => live, () => false);
