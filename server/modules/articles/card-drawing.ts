import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import { CARD_HEIGHT, CARD_WIDTH, cardHash, type CardContent } from './social-card.ts';

const require = createRequire(import.meta.url);
/** Titles are at most 200 characters; a card shows what fits in four lines at the smallest size. */
const TITLE_SHOWN = 140;

/** The part of satori's API used here. Its own types import React's, whose global stand-ins for
 * the DOM's HTMLElement and SVGElement would replace the real ones in the server's type-check
 * (it has no DOM library), so the module is loaded untyped and described here. */
type SatoriElement = { type: string; props: { style: Record<string, unknown>; children: SatoriElement | SatoriElement[] | string } };
type SatoriFont = { name: string; data: Buffer; weight: 400 | 700; style: 'normal' };
type Satori = (element: SatoriElement, options: { width: number; height: number; fonts: SatoriFont[] }) => Promise<string>;
const SATORI: string = 'satori';

/** satori, the WebAssembly renderer and the fonts, read from node_modules on the first drawing
 * (nothing downloads), once per process. */
let ready: Promise<{ satori: Satori; fonts: SatoriFont[] }> | null = null;
function prepare(): Promise<{ satori: Satori; fonts: SatoriFont[] }> {
  ready ??= (async () => {
    const satori = ((await import(SATORI)) as { default: Satori }).default;
    await initWasm(readFileSync(require.resolve('@resvg/resvg-wasm/index_bg.wasm'))).catch((err: unknown) => {
      // resvg starts once per process and refuses a second start: another copy of this module (a
      // test runner loading it again) may have started it, which is as good as starting it here.
      if (!(err instanceof Error && err.message.startsWith('Already initialized'))) throw err;
    });
    // satori reads woff, not woff2; latin-ext covers accented names beyond latin's.
    const font = (subset: string, weight: 400 | 700): SatoriFont => ({
      name: 'Inter',
      data: readFileSync(require.resolve(`@fontsource/inter/files/inter-${subset}-${weight}-normal.woff`)),
      weight,
      style: 'normal',
    });
    return { satori, fonts: [font('latin', 400), font('latin', 700), font('latin-ext', 400), font('latin-ext', 700)] };
  })();
  ready.catch(() => (ready = null)); // a failed start is tried again by the next drawing
  return ready;
}

const el = (type: string, style: Record<string, unknown>, children: SatoriElement | SatoriElement[] | string): SatoriElement => ({ type, props: { style, children } });

function titleSize(title: string): number {
  if (title.length <= 40) return 76;
  if (title.length <= 80) return 62;
  return 50;
}

/** The card's layout: the site's name, the category as a badge, the title large. Text is text
 * to satori (never markup), so a title cannot add elements. */
function cardElement({ title, category, siteName }: CardContent): SatoriElement {
  const shown = title.length > TITLE_SHOWN ? `${title.slice(0, TITLE_SHOWN - 1).trimEnd()}…` : title;
  return el(
    'div',
    {
      width: CARD_WIDTH,
      height: CARD_HEIGHT,
      display: 'flex',
      flexDirection: 'column',
      justifyContent: 'space-between',
      padding: 72,
      backgroundColor: '#14285c',
      backgroundImage: 'linear-gradient(135deg, #14285c 0%, #1f57d1 100%)',
      color: '#ffffff',
      fontFamily: 'Inter',
    },
    [
      el('div', { display: 'flex', fontSize: 30, fontWeight: 700, color: '#d9eaff' }, siteName),
      el('div', { display: 'flex', flexDirection: 'column' }, [
        el('div', { display: 'flex', marginBottom: 28 }, [
          el('div', { display: 'flex', fontSize: 26, fontWeight: 700, color: '#14285c', backgroundColor: '#d9eaff', borderRadius: 999, padding: '8px 22px' }, category),
        ]),
        el('div', { display: 'flex', fontSize: titleSize(shown), fontWeight: 700, lineHeight: 1.15 }, shown),
      ]),
      el('div', { display: 'flex', fontSize: 24, color: '#d9eaff' }, 'Insights'),
    ],
  );
}

async function drawPng(content: CardContent): Promise<Buffer> {
  const { satori, fonts } = await prepare();
  const svg = await satori(cardElement(content), { width: CARD_WIDTH, height: CARD_HEIGHT, fonts });
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: CARD_WIDTH } }).render();
  try {
    return Buffer.from(image.asPng());
  } finally {
    image.free();
  }
}

/**
 * Draws social cards (1200x630 PNG) and keeps the last `keep` in memory, by hash: a card is
 * drawn once per change of what it shows. One drawing at a time per process (it is CPU work on
 * the request path), and concurrent requests for the same card share its drawing.
 */
export function createCardDrawer({ keep = 64 }: { keep?: number } = {}) {
  const cards = new Map<string, Promise<Buffer>>(); // insertion order = least recently used first
  let queue: Promise<unknown> = Promise.resolve();
  let drawn = 0;

  function draw(content: CardContent): Promise<Buffer> {
    const hash = cardHash(content);
    const known = cards.get(hash);
    if (known) {
      cards.delete(hash);
      cards.set(hash, known);
      return known;
    }
    const png = queue.then(() => {
      drawn++;
      return drawPng(content);
    });
    queue = png.catch(() => undefined);
    cards.set(hash, png);
    png.catch(() => cards.delete(hash)); // a failed drawing is not kept
    while (cards.size > keep) cards.delete(cards.keys().next().value!);
    return png;
  }

  return {
    draw,
    /** How many drawings this drawer has started (tests read it to see a card drawn once). */
    drawn: () => drawn,
  };
}

export type CardDrawer = ReturnType<typeof createCardDrawer>;
