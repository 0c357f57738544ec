import { useEffect, useRef, useState, type CSSProperties } from 'react';

const prefersReducedMotion = () =>
  typeof window !== 'undefined' && (window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false);

/**
 * Reveal-on-scroll, once. Content starts shown, so the prerendered landing page paints it
 * before any JavaScript runs and hydration matches that HTML. Once running, an element that is
 * still below the fold is hidden (unseen, so nothing visibly moves) and `shown` turns true again
 * the first time it scrolls into view, which plays the animation. With reduced motion, or no
 * IntersectionObserver, nothing is ever hidden.
 */
export function useReveal<T extends Element>() {
  const ref = useRef<T>(null);
  const [shown, setShown] = useState(true);

  useEffect(() => {
    const element = ref.current;
    if (!element || typeof IntersectionObserver === 'undefined' || prefersReducedMotion()) return;
    let first = true;
    const observer = new IntersectionObserver(
      (entries) => {
        const inView = entries.some((entry) => entry.isIntersecting);
        if (first && !inView) setShown(false);
        first = false;
        if (!inView) return;
        observer.disconnect();
        setShown(true);
      },
      { threshold: 0.1 },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  return { ref, shown };
}

/**
 * Classes (client/styles.css) and style for one revealed item: fades and slides up over 0.5 s, `index` items of
 * a group start 0.1 s apart. The hidden state applies only under `motion-safe`, so with reduced
 * motion the content is visible from the first paint and never moves.
 */
export function revealStyle(shown: boolean, index = 0): { className: string; style?: CSSProperties } {
  return {
    className: shown ? 'reveal' : 'reveal reveal-hidden',
    style: index > 0 ? { transitionDelay: `${index * 100}ms` } : undefined,
  };
}
