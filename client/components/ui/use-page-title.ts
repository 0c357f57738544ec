import { useEffect } from 'react';
import { appConfig } from '../../lib/app-config.ts';

/** Sets document.title to '{title} · {site}' while the page is shown and puts the previous
 * title back when it goes (the landing page keeps index.html's title). */
export function usePageTitle(title: string): void {
  useEffect(() => {
    const previous = document.title;
    document.title = `${title} · ${appConfig().siteName}`;
    return () => {
      document.title = previous;
    };
  }, [title]);
}
