import { createContext, useContext, type AnchorHTMLAttributes, type ComponentType, type MouseEvent } from 'react';

export type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

/**
 * How the screens shared by the landing page and the app move between pages. The app provides
 * it from its router (client/app/router-navigation.tsx); the landing page, which loads without
 * the router, from the document (client/app/document-navigation.tsx), where leaving `/`
 * hands over to the whole app.
 */
export type Navigation = {
  pathname: string;
  search: string;
  navigate(to: string): void;
  Link: ComponentType<LinkProps>;
};

export const NavigationContext = createContext<Navigation | null>(null);

export function useNavigation(): Navigation {
  const value = useContext(NavigationContext);
  if (!value) throw new Error('useNavigation must be used within a navigation provider');
  return value;
}

/** NavLink's rule: a link is the current page at its path and below it. */
export const isCurrentPath = (to: string, pathname: string): boolean =>
  pathname === to || (to !== '/' && pathname.startsWith(`${to}/`));

/** A plain click on a link: no modifier key, main button, same tab (anything else is the
 * browser's: a new tab, a download, ...). */
export const isPlainClick = (event: MouseEvent<HTMLAnchorElement>): boolean =>
  event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey && !event.currentTarget.target;
