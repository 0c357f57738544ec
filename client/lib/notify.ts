/**
 * Toasts without putting the toast library on the landing page's critical path: sonner and
 * its Toaster load on the first toast. The ToastHost registers how to mount the Toaster.
 */
type Kind = 'success' | 'error' | 'info';

let mountToaster: (() => Promise<void>) | null = null;

export function registerToastHost(mount: (() => Promise<void>) | null): void {
  mountToaster = mount;
}

async function show(kind: Kind, title: string, description?: string): Promise<void> {
  try {
    const [{ toast }] = await Promise.all([import('sonner'), mountToaster?.()]);
    toast[kind](title, description ? { description } : undefined);
  } catch (err) {
    console.error('Could not show a notification:', title, err);
  }
}

/** How an Undo toast (docs/decisions/0070) ends: Undo pressed, or it went otherwise (its time ran out, it was closed or replaced). */
export type UndoToastEvents = { onUndo(): void; onGone(): void };

/**
 * A toast with **Undo** for the toast's time (sonner pauses it while the pointer is on it or the
 * toasts have keyboard focus: Alt+T). Resolves with a function that closes it early (a close
 * counts as gone), or null when no toast could be shown: then nobody can press Undo.
 */
async function undoable(title: string, description: string | undefined, events: UndoToastEvents): Promise<(() => void) | null> {
  if (!mountToaster) return null;
  try {
    const [{ toast }] = await Promise.all([import('sonner'), mountToaster()]);
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

export const notify = {
  success: (title: string, description?: string) => void show('success', title, description),
  error: (title: string, description?: string) => void show('error', title, description),
  info: (title: string, description?: string) => void show('info', title, description),
  undoable,
};
