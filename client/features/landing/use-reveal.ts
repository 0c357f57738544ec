import { useEffect, useRef, useState, type CSSProperties } from 'react';

const prefersReducedMotion = () =>
  typeof window !== 'undefined' && (window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false);

/**
 * Reveal-on-scroll, once: `shown` turns true the first time the element scrolls into view
 * (IntersectionObserver, no animation library). It starts true, so nothing is ever hidden,
 * when the visitor prefers reduced motion or the browser has no IntersectionObserver.
 */
export function useReveal<T extends Element>() {
  const ref = useRef<T>(null);
  const [shown, setShown] = useState(() => typeof IntersectionObserver === 'undefined' || prefersReducedMotion());

  useEffect(() => {
    const element = ref.current;
    if (shown || !element) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        observer.disconnect();
        setShown(true);
      },
      { threshold: 0.1 },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [shown]);

  return { ref, shown };
}

/**
 * Classes and style for one revealed item: fades and slides up over 0.5 s, `index` items of
 * a group start 0.1 s apart. The hidden state applies only under `motion-safe`, so with reduced
 * motion the content is visible from the first paint and never moves.
 */
export function revealStyle(shown: boolean, index = 0): { className: string; style?: CSSProperties } {
  return {
    className: `transition duration-500 ease-out motion-reduce:transition-none ${shown ? '' : 'motion-safe:translate-y-6 motion-safe:opacity-0'}`,
    style: index > 0 ? { transitionDelay: `${index * 100}ms` } : undefined,
  };
}
