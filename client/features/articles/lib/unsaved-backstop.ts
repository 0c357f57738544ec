import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * The article form's unsaved work, kept in the browser's local storage as a backstop against a
 * crash or a closed tab: one entry per user and article ('new' for an article not yet created),
 * holding the form's values and when they were written. Storage failures (disabled storage,
 * quota, a corrupt entry) are logged and otherwise ignored: the backstop is a convenience.
 */

export type FormValues = Record<string, unknown>;
export type UnsavedWork = { savedAt: string; values: FormValues };

/** How long typing pauses before the values are written. */
export const BACKSTOP_DELAY_MS = 500;

export const unsavedWorkKey = (userId: string | undefined, articleId: string | undefined): string =>
  `article-unsaved:${userId ?? 'anonymous'}:${articleId ?? 'new'}`;

/** The stored values that match the form's own fields and types; anything else is dropped. */
function readWork(key: string, saved: FormValues): UnsavedWork | null {
  try {
    const raw = window.localStorage.getItem(key);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as unknown;
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
    const { savedAt, values } = parsed as Record<string, unknown>;
    if (typeof savedAt !== 'string' || Number.isNaN(Date.parse(savedAt)) || typeof values !== 'object' || values === null) throw new Error('no time or values');
    const kept = Object.fromEntries(Object.entries(values).filter(([name, value]) => name in saved && typeof value === typeof saved[name]));
    return { savedAt, values: kept };
  } catch (err) {
    console.error(`Could not read unsaved article changes (${key}):`, err);
    return null;
  }
}

function writeWork(key: string, work: UnsavedWork | null): void {
  try {
    if (work) window.localStorage.setItem(key, JSON.stringify(work));
    else window.localStorage.removeItem(key);
  } catch (err) {
    console.error(`Could not keep unsaved article changes (${key}):`, err);
  }
}

/** True when `values` says nothing that `saved` does not (fields missing from `values` count as unchanged). */
const sameAsSaved = (values: FormValues, saved: FormValues): boolean => Object.entries(values).every(([name, value]) => Object.is(value, saved[name]));

type Backstop = {
  /** Unsaved work found when the form opened, until it is restored or discarded. */
  offer: UnsavedWork | null;
  /** Call with the form's values as they change: written after a pause in typing. */
  record(values: FormValues): void;
  /** The offered values (over the saved ones), and the offer goes. */
  restore(): FormValues | null;
  /** Forgets the offer and the stored entry. */
  discard(): void;
  /** After a successful save: nothing is kept or pending. */
  clear(): void;
};

/** Keeps the form's values under `key` as they change, and offers back what an earlier visit left. */
export function useUnsavedBackstop(key: string, saved: FormValues): Backstop {
  const savedRef = useRef(saved);
  const [offer, setOffer] = useState<UnsavedWork | null>(() => {
    const work = readWork(key, saved);
    if (work && sameAsSaved(work.values, saved)) {
      // What was kept is what is saved (saved elsewhere, or saved just before the tab closed).
      writeWork(key, null);
      return null;
    }
    return work;
  });
  const pending = useRef<{ timer: ReturnType<typeof setTimeout>; values: FormValues } | null>(null);

  const flush = useCallback(() => {
    const next = pending.current;
    if (!next) return;
    clearTimeout(next.timer);
    pending.current = null;
    writeWork(key, sameAsSaved(next.values, savedRef.current) ? null : { savedAt: new Date().toISOString(), values: next.values });
  }, [key]);

  const cancel = useCallback(() => {
    if (pending.current) clearTimeout(pending.current.timer);
    pending.current = null;
  }, []);

  // A tab closing (or the form leaving the screen) writes what the pause had not written yet.
  useEffect(() => {
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      flush();
    };
  }, [flush]);

  const record = useCallback(
    (values: FormValues) => {
      if (pending.current) clearTimeout(pending.current.timer);
      pending.current = { timer: setTimeout(flush, BACKSTOP_DELAY_MS), values: { ...values } };
    },
    [flush],
  );

  const restore = useCallback((): FormValues | null => {
    if (!offer) return null;
    setOffer(null);
    return { ...savedRef.current, ...offer.values };
  }, [offer]);

  const discard = useCallback(() => {
    // Only the offered work goes: what was typed since it was offered stays kept.
    if (offer && readWork(key, savedRef.current)?.savedAt === offer.savedAt) writeWork(key, null);
    setOffer(null);
  }, [key, offer]);

  const clear = useCallback(() => {
    cancel();
    writeWork(key, null);
  }, [cancel, key]);

  return { offer, record, restore, discard, clear };
}
