import { StrictMode, type ReactNode } from 'react';
import { ToastHost } from '../components/ui/toast-host.tsx';

/** The top of every page's React tree: the screens, with the toast host beside them rather than
 * inside, so a toast shown while the landing page hands over to the whole app stays up. */
export function AppRoot({ children }: { children: ReactNode }) {
  return (
    <StrictMode>
      {children}
      <ToastHost />
    </StrictMode>
  );
}
