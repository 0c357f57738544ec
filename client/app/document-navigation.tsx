import { useMemo, type ReactNode } from 'react';
import { isPlainClick, NavigationContext, type LinkProps, type Navigation } from '../lib/navigation.ts';

/**
 * Navigation for the landing page, which has no router: it is always at `location` (`/`), and
 * going anywhere else puts the new URL in the history and calls `leave`, which opens the whole
 * app there. Links are real links, so new tabs and crawlers work as usual.
 */
export function DocumentNavigation({ location, leave, children }: { location: string; leave(): void; children: ReactNode }) {
  const value = useMemo<Navigation>(() => {
    const url = new URL(location, 'http://placeholder');
    const navigate = (to: string) => {
      window.history.pushState(null, '', to);
      leave();
    };
    function Link({ to, onClick, ...props }: LinkProps) {
      return (
        <a
          href={to}
          {...props}
          onClick={(event) => {
            onClick?.(event);
            if (event.defaultPrevented || !isPlainClick(event)) return;
            event.preventDefault();
            navigate(to);
          }}
        />
      );
    }
    return { pathname: url.pathname, search: url.search, navigate, Link };
  }, [location, leave]);
  return <NavigationContext.Provider value={value}>{children}</NavigationContext.Provider>;
}
