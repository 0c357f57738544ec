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
