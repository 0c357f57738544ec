import { useSyncExternalStore } from 'react';
import { loadToaster } from './notify.ts';

/** A delete that waits for Undo (docs/decisions/0070). */
export type UndoableDelete = {
  /** Names the item across the app, e.g. `chat:<id>`: lists leave out what `useHiddenByUndo` holds. */
  key: string;
  /** The toast's title ('Chat deleted') and what it names (the chat's title). */
  title: string;
  description?: string;
  /**
   * The delete itself, once nobody pressed Undo; `keepalive` when the page is closing. It takes
   * the item out of the lists it shows in before it resolves (the item is no longer held hidden
   * then: an item of that key made again, say by another device, is listed), and throws when the
   * delete failed.
   */
  commit(options: { keepalive: boolean }): Promise<void>;
  /** After Undo: the item is listed again. */
  onUndo?(): void;
  /** The delete failed: the item is listed again; say so. */
  onError?(err: unknown): void;
};

type Pending = UndoableDelete & { state: 'waiting' | 'undone' | 'committing' | 'done'; close: (() => void) | null };

/** Keys of items hidden now: waiting for Undo, or being deleted. */
let hidden: ReadonlySet<string> = new Set();
const listeners = new Set<() => void>();
const waiting = new Set<Pending>();

function setHidden(key: string, on: boolean): void {
  const next = new Set(hidden);
  if (on) next.add(key);
  else next.delete(key);
  hidden = next;
  for (const listener of listeners) listener();
}

/**
 * Deletes with a few seconds to undo (docs/decisions/0070): the item leaves its list at once and a
 * toast says so with **Undo**; the delete is made when the toast goes (its time ran out, or it was
 * closed), or at once when the page is left (with a request that outlives the page). A second
 * delete makes the first one final (one toast at a time, SPEC). If the page dies before any of
 * that, nothing was deleted, and the item is listed again next time. Without a toast to show
 * Undo, the delete is made at once.
 */
export function deleteWithUndo(request: UndoableDelete): void {
  for (const earlier of [...waiting]) finish(earlier, false);
  const pending: Pending = { ...request, state: 'waiting', close: null };
  waiting.add(pending);
  setHidden(pending.key, true);
  void showUndo(request.title, request.description, {
    onUndo: () => undo(pending),
    onGone: () => finish(pending, false),
  }).then((close) => {
    if (!close) return finish(pending, false);
    if (pending.state === 'waiting') pending.close = close;
    else close();
  });
}

/**
 * A toast with **Undo** for the toast's time (sonner pauses it while the pointer is on it or the
 * toasts have keyboard focus: Alt+T). `onGone` when it goes otherwise (its time ran out, it was
 * closed or replaced). Resolves with a function that closes it early, or null when no toast could
 * be shown: then nobody can press Undo.
 */
async function showUndo(title: string, description: string | undefined, events: { onUndo(): void; onGone(): void }): Promise<(() => void) | null> {
  try {
    const toast = await loadToaster();
    if (!toast) return null;
    const id = toast(title, {
      ...(description ? { description } : {}),
      action: { label: 'Undo', onClick: events.onUndo },
      onAutoClose: events.onGone,
      onDismiss: events.onGone,
    });
    return () => void toast.dismiss(id);
  } catch (err) {
    console.error('Could not show a notification:', title, err);
    return null;
  }
}

function undo(pending: Pending): void {
  if (pending.state !== 'waiting') return;
  pending.state = 'undone';
  waiting.delete(pending);
  setHidden(pending.key, false);
  pending.onUndo?.();
}

function finish(pending: Pending, keepalive: boolean): void {
  if (pending.state !== 'waiting') return;
  pending.state = 'committing';
  waiting.delete(pending);
  pending.close?.();
  pending.commit({ keepalive }).then(
    () => {
      pending.state = 'done';
      setHidden(pending.key, false);
    },
    (err: unknown) => {
      pending.state = 'done';
      setHidden(pending.key, false);
      pending.onError?.(err);
    },
  );
}

// Leaving the page (closing the tab, reloading, following a link out) makes what waits final:
// the person deleted it and did not undo. pagehide is the last event a closing page is sure to get.
if (typeof window !== 'undefined') {
  window.addEventListener('pagehide', () => {
    for (const pending of [...waiting]) finish(pending, true);
  });
}

/** The keys of the items deleted here that lists must leave out (waiting for Undo, or being deleted). */
export function useHiddenByUndo(): ReadonlySet<string> {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => hidden,
    () => hidden,
  );
}
