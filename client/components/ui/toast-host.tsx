import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { registerToastHost } from '../../lib/notify.ts';

const Toaster = lazy(() => import('./toaster.tsx'));

/** Mounts the Toaster on the first toast and lets that toast wait until it listens. */
export function ToastHost() {
  const [requested, setRequested] = useState(false);
  const ready = useRef(false);
  const waiting = useRef<Array<() => void>>([]);

  useEffect(() => {
    registerToastHost(
      () =>
        new Promise<void>((resolve) => {
          if (ready.current) return resolve();
          waiting.current.push(resolve);
          setRequested(true);
        }),
    );
    return () => registerToastHost(null);
  }, []);

  const onMounted = useCallback(() => {
    ready.current = true;
    for (const resolve of waiting.current.splice(0)) resolve();
  }, []);

  if (!requested) return null;
  // On the body, beside the app: an open modal dialog hides the app from assistive technology
  // (aria-hidden), so a Toaster first mounted inside it while a dialog is open was never read.
  return createPortal(
    <Suspense fallback={null}>
      <Toaster onMounted={onMounted} />
    </Suspense>,
    document.body,
  );
}
