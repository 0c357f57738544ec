import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
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
  return (
    <Suspense fallback={null}>
      <Toaster onMounted={onMounted} />
    </Suspense>
  );
}
