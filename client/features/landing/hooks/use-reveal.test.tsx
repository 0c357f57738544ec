import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { revealStyle, useReveal } from './use-reveal.ts';

function Revealed() {
  const { ref, shown } = useReveal<HTMLDivElement>();
  const first = revealStyle(shown, 0);
  const third = revealStyle(shown, 2);
  return (
    <div ref={ref} data-testid="group" data-shown={shown}>
      <p className={first.className} style={first.style}>
        first
      </p>
      <p className={third.className} style={third.style}>
        third
      </p>
    </div>
  );
}

type Callback = (entries: Array<Pick<IntersectionObserverEntry, 'isIntersecting'>>) => void;
let observers: Array<{ callback: Callback; observed: Element[]; disconnected: boolean }> = [];

function stubIntersectionObserver() {
  observers = [];
  vi.stubGlobal(
    'IntersectionObserver',
    class {
      record: (typeof observers)[number];
      constructor(callback: Callback) {
        this.record = { callback, observed: [], disconnected: false };
        observers.push(this.record);
      }
      observe(element: Element) {
        this.record.observed.push(element);
      }
      disconnect() {
        this.record.disconnected = true;
      }
    },
  );
}

const stubMotion = (reduce: boolean) =>
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: reduce && query.includes('reduce'), media: query }));

afterEach(() => {
  observers = [];
});

describe('useReveal', () => {
  it('renders shown (as prerendered), hides what is below the fold, and reveals it once when scrolled into view, staggered 0.1 s', () => {
    stubMotion(false);
    stubIntersectionObserver();
    render(<Revealed />);
    const group = screen.getByTestId('group');
    expect(group).toHaveAttribute('data-shown', 'true');
    expect(observers[0]!.observed).toEqual([group]);

    act(() => observers[0]!.callback([{ isIntersecting: false }]));
    expect(group).toHaveAttribute('data-shown', 'false');
    expect(screen.getByText('first')).toHaveClass('reveal', 'reveal-hidden');
    expect(screen.getByText('third')).toHaveStyle({ transitionDelay: '200ms' });
    act(() => observers[0]!.callback([{ isIntersecting: false }]));
    expect(group).toHaveAttribute('data-shown', 'false');

    act(() => observers[0]!.callback([{ isIntersecting: true }]));
    expect(group).toHaveAttribute('data-shown', 'true');
    expect(screen.getByText('first')).not.toHaveClass('reveal-hidden');
    expect(observers[0]!.disconnected).toBe(true);
    expect(observers).toHaveLength(1);
  });

  it('leaves content that is in view at load alone: never hidden, observing stops', () => {
    stubMotion(false);
    stubIntersectionObserver();
    render(<Revealed />);
    act(() => observers[0]!.callback([{ isIntersecting: true }]));
    expect(screen.getByTestId('group')).toHaveAttribute('data-shown', 'true');
    expect(screen.getByText('first')).not.toHaveClass('reveal-hidden');
    expect(observers[0]!.disconnected).toBe(true);
  });

  it('shows everything at once, observing nothing, when the visitor prefers reduced motion', () => {
    stubMotion(true);
    stubIntersectionObserver();
    render(<Revealed />);
    expect(screen.getByTestId('group')).toHaveAttribute('data-shown', 'true');
    expect(screen.getByText('first')).not.toHaveClass('reveal-hidden');
    expect(observers).toHaveLength(0);
  });

  it('shows everything when the browser has no IntersectionObserver', () => {
    stubMotion(false);
    vi.stubGlobal('IntersectionObserver', undefined);
    render(<Revealed />);
    expect(screen.getByTestId('group')).toHaveAttribute('data-shown', 'true');
  });
});
