// The public pages' one script before their first paint, written into the page itself
// (vite.config.ts `hydrateAfterPaint`, in place of client/site-main.tsx's script tag; the server
// allows it by its hash). Once the page has loaded and painted, it loads the page's scripts:
// site-main and every file it imports, named in its tag's `data-hydrate`. The page reads and its
// links work without them (its HTML is complete); fetched at once, their ~79 KB (gzip) took a
// phone's bandwidth from the stylesheet and the largest image before the first paint, and
// Lighthouse measured the pages' largest paint at up to 1.7x the same HTML without scripts
// (docs/decisions/0068). It imports nothing: nothing is fetched for it.

/** How long the page must go without a larger paint before its scripts load, and how long
 * after this script runs they load at the latest: an image that never finishes holds `load`
 * back, a visitor who scrolled or tapped stops the browser's reports, and the page's controls
 * need their scripts. */
const QUIET_MS = 100;
const LATEST_MS = 3000;

type LargestPaint = PerformanceEntry & { size: number; element: Element | null };

/** Whether an image on screen is larger than the largest paint the browser has reported and is
 * not that paint: loaded, then not yet painted. */
function imagePending(largest: LargestPaint | undefined): boolean {
  return [...document.images].some((img) => {
    const box = img.getBoundingClientRect();
    const width = Math.min(box.right, innerWidth) - Math.max(box.left, 0);
    const height = Math.min(box.bottom, innerHeight) - Math.max(box.top, 0);
    return img.complete && img.naturalWidth > 0 && width > 0 && height > 0 && width * height > (largest?.size ?? 0) && img !== largest?.element;
  });
}

/**
 * Resolves once the page has loaded (its stylesheet and images are in) and painted its largest
 * element: after `load`, when the browser has reported a largest paint, no image on screen
 * is larger and still unpainted, and nothing larger has been painted for QUIET_MS. A frame is
 * painted some time after the script that asked for it runs, so only the browser's own report
 * (largest-contentful-paint) says it has been; a browser without that report waits QUIET_MS
 * after `load`. A page in a background tab paints nothing: at once.
 */
function afterLargestPaint(): Promise<void> {
  return new Promise((resolve) => {
    const reported = PerformanceObserver.supportedEntryTypes?.includes('largest-contentful-paint') === true;
    if (document.visibilityState !== 'visible') return resolve();
    let largest: LargestPaint | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      observer?.disconnect();
      resolve();
    };
    const settle = () => {
      clearTimeout(timer);
      if (document.readyState !== 'complete' || (reported && !largest) || imagePending(largest)) return;
      timer = setTimeout(done, QUIET_MS);
    };
    const observer = reported
      ? new PerformanceObserver((list) => {
          largest = list.getEntries().at(-1) as LargestPaint;
          settle();
        })
      : null;
    observer?.observe({ type: 'largest-contentful-paint', buffered: true });
    setTimeout(done, LATEST_MS);
    if (document.readyState === 'complete') settle();
    else window.addEventListener('load', settle, { once: true });
  });
}

/** The page's entry first, then what it imports: all fetched side by side, not one after the
 * other as the browser would find them. */
function loadPageScripts(): void {
  const tag = document.querySelector<HTMLScriptElement>('script[data-hydrate]');
  const [entry, ...imports] = (tag?.dataset.hydrate ?? '').split(' ').filter(Boolean);
  if (!entry) return;
  for (const href of imports) {
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.crossOrigin = '';
    link.href = href;
    document.head.append(link);
  }
  import(/* @vite-ignore */ entry).catch((err: unknown) => {
    // A deploy replaced the files: the page still reads and its links still work.
    console.error("The page's scripts could not be loaded:", err);
  });
}

void afterLargestPaint().then(loadPageScripts);
