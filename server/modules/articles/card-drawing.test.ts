import { describe, expect, it } from 'vitest';
import { createCardDrawer } from './card-drawing.ts';

describe('the card drawer', () => {
  it('draws a card once per content, shares a drawing between concurrent requests and keeps a bounded number', async () => {
    const drawer = createCardDrawer({ keep: 1 });
    const first = { title: 'One title', category: 'Automation', siteName: 'Acme' };
    const [a, b] = await Promise.all([drawer.draw(first), drawer.draw(first)]);
    expect(a).toBe(b);
    expect(drawer.drawn()).toBe(1);
    expect(await drawer.draw(first)).toBe(a);
    expect(drawer.drawn()).toBe(1);
    // Another card pushes the first out of a one-card memory: drawn again when asked for.
    const other = await drawer.draw({ ...first, title: 'Another title' });
    expect(other.equals(a)).toBe(false);
    await drawer.draw(first);
    expect(drawer.drawn()).toBe(3);
  });
});

describe('the card drawer beside another copy of its module', () => {
  // resvg's WebAssembly is started once per process and refuses a second start; a test runner
  // that loads this module again (vi.resetModules in a worker shared by test files) gets a copy
  // whose own memo is empty while resvg is already started.
  it('draws with resvg already started by the other copy', async () => {
    const card = { title: 'Drawn twice over', category: 'Automation', siteName: 'Acme' };
    expect((await createCardDrawer().draw(card)).length).toBeGreaterThan(0);
    // The query makes it another module to the runner: evaluated again, with memos of its own.
    const specifier: string = './card-drawing.ts?another-copy';
    const copy: { createCardDrawer: typeof createCardDrawer } = await import(/* @vite-ignore */ specifier);
    expect(copy.createCardDrawer).not.toBe(createCardDrawer);
    expect((await copy.createCardDrawer().draw(card)).length).toBeGreaterThan(0);
  });
});
