import { render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { preloadable } from './preloadable.ts';

const Screen = () => <p>the screen</p>;

describe('preloadable', () => {
  it('suspends like React.lazy until loaded', async () => {
    const Lazy = preloadable(async () => ({ default: Screen }));
    render(
      <Suspense fallback={<p>loading</p>}>
        <Lazy />
      </Suspense>,
    );
    expect(screen.getByText('loading')).toBeInTheDocument();
    expect(await screen.findByText('the screen')).toBeInTheDocument();
  });

  it('renders at once, with no fallback, once preloaded', async () => {
    const load = vi.fn(async () => ({ default: Screen }));
    const Lazy = preloadable(load);
    await Lazy.preload();
    render(
      <Suspense fallback={<p>loading</p>}>
        <Lazy />
      </Suspense>,
    );
    expect(screen.queryByText('loading')).not.toBeInTheDocument();
    expect(screen.getByText('the screen')).toBeInTheDocument();
  });
});
