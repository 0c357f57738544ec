import { useCallback, useMemo, type ReactNode } from 'react';
import { Link as RouterLink, useLocation, useNavigate } from 'react-router';
import { NavigationContext, type LinkProps, type Navigation } from '../lib/navigation.ts';

function Link({ to, ...props }: LinkProps) {
  return <RouterLink to={to} {...props} />;
}

/** Navigation through the app's router; inside it. */
export function RouterNavigation({ children }: { children: ReactNode }) {
  const { pathname, search } = useLocation();
  const routerNavigate = useNavigate();
  const navigate = useCallback((to: string) => void routerNavigate(to), [routerNavigate]);
  const value = useMemo<Navigation>(() => ({ pathname, search, navigate, Link }), [pathname, search, navigate]);
  return <NavigationContext.Provider value={value}>{children}</NavigationContext.Provider>;
}
