import type { toast as SonnerToast } from 'sonner';

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

/** Sonner's `toast` once the Toaster listens, for toasts of their own (Undo: docs/decisions/0070); null without a ToastHost. */
export async function loadToaster(): Promise<typeof SonnerToast | null> {
  if (!mountToaster) return null;
  const [{ toast }] = await Promise.all([import('sonner'), mountToaster()]);
  return toast;
}

export const notify = {
  success: (title: string, description?: string) => void show('success', title, description),
  error: (title: string, description?: string) => void show('error', title, description),
  info: (title: string, description?: string) => void show('info', title, description),
};
