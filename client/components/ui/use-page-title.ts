import { useEffect } from 'react';
import { appConfig } from '../../lib/app-config.ts';

/** Sets document.title to '{title} · {site}' (or to `title` as it is, for a title written for
 * search results: an article's meta title) while the page is shown and puts the previous title
 * back when it goes (the landing page keeps index.html's title). */
export function usePageTitle(title: string, { asWritten = false }: { asWritten?: boolean } = {}): void {
  useEffect(() => {
    const previous = document.title;
    document.title = asWritten ? title : `${title} · ${appConfig().siteName}`;
    return () => {
      document.title = previous;
    };
  }, [title, asWritten]);
}
