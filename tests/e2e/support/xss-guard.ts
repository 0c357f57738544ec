import { readFileSync } from 'node:fs';
import { expect, type BrowserContext, type Frame, type Page } from '@playwright/test';
import { XSS_MARKER } from './xss-corpus.ts';

/**
 * What the rendering-safety journey watches for, beyond the fixture's uncaught errors and CSP
 * violations: a payload that ran (it calls the marker), a dialog (a payload written with
 * alert()), and markup that could run script or navigate to one even if nothing ran yet: an
 * event-handler attribute, a javascript:/data:/vbscript: URL, a frame, an object, a script
 * that is not the app's own.
 */
export type XssWatch = { hits: string[]; dialogs: string[] };

/** Exposes the marker in every page and frame of the context (surviving navigations) and
 * records every dialog, dismissing it. Call before opening pages. */
export async function watchForXss(context: BrowserContext): Promise<XssWatch> {
  const watch: XssWatch = { hits: [], dialogs: [] };
  await context.exposeBinding(XSS_MARKER, ({ frame }, id: unknown) => {
    watch.hits.push(`${String(id)} ran in ${frame.url()}`);
  });
  const onPage = (page: Page) =>
    page.on('dialog', (dialog) => {
      watch.dialogs.push(`${dialog.type()} "${dialog.message()}" on ${page.url()}`);
      dialog.dismiss().catch(() => undefined); // the page may be closing; the record is what counts
    });
  context.pages().forEach(onPage);
  context.on('page', onPage);
  return watch;
}

/** An element as the page has it: tag, attributes, and the text of scripts and styles. */
export type ElementDump = { tag: string; attrs: Array<[string, string]>; text: string | null };

/** The little of the DOM the dump reads (the tests' tsconfig has no DOM lib). */
type DomElement = {
  localName: string;
  attributes: ArrayLike<{ name: string; value: string }>;
  textContent: string | null;
  shadowRoot: DomRoot | null;
};
type DomRoot = { querySelectorAll(selector: string): ArrayLike<DomElement> };

/** Every element of the frame's document, open shadow roots included, and its base URL. */
async function dumpFrame(frame: Frame): Promise<{ baseUrl: string; elements: ElementDump[] }> {
  return frame.evaluate(() => {
    const doc = (globalThis as unknown as { document: DomRoot & { baseURI: string } }).document;
    const elements: ElementDump[] = [];
    const walk = (root: DomRoot) => {
      for (const el of Array.from(root.querySelectorAll('*'))) {
        const executableText = el.localName === 'script' || el.localName === 'style';
        elements.push({ tag: el.localName, attrs: Array.from(el.attributes, (a): [string, string] => [a.name, a.value]), text: executableText ? el.textContent : null });
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(doc);
    return { baseUrl: doc.baseURI, elements };
  });
}

/** Attributes whose value the browser loads or navigates to. */
const URL_ATTRIBUTES = new Set(['href', 'xlink:href', 'src', 'action', 'formaction', 'data', 'poster', 'background', 'codebase', 'cite', 'ping', 'longdesc', 'manifest', 'icon', 'lowsrc', 'dynsrc']);
const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);
/** The app shows generated chat images as data: URLs of these types (server/integrations/ai). */
const APP_DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp)[;,]/i;
/** Elements that embed another document or plugin, or rebase every URL: none is the app's. */
const FORBIDDEN_ELEMENTS = new Set(['iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'portal', 'base', 'fencedframe']);

const describe = (el: ElementDump) => `<${el.tag} ${el.attrs.map(([n, v]) => `${n}="${v}"`).join(' ')}>`.slice(0, 300);

/** The protocol the browser would use for the value (it strips spaces, tabs and newlines
 * exactly as the WHATWG URL parser in Node does), or null when it is not a URL at all. */
function protocolOf(value: string, baseUrl: string): string | null {
  try {
    return new URL(value, baseUrl).protocol;
  } catch {
    return null;
  }
}

/**
 * Everything in the elements that could run script or load a document of the attacker's:
 * event-handler attributes, URL attributes with a scheme other than http(s)/mailto (data:
 * raster images on <img src> excepted: the app's own), srcdoc, frames and plugins, <base>,
 * meta refreshes, scripts other than the app's bundle and config, and styles that mention the
 * marker.
 */
export function findDangerousMarkup(elements: readonly ElementDump[], baseUrl: string): string[] {
  const appOrigin = new URL(baseUrl).origin;
  const findings: string[] = [];
  for (const el of elements) {
    const flag = (why: string) => findings.push(`${why}: ${describe(el)}`);
    if (FORBIDDEN_ELEMENTS.has(el.tag)) flag(`a <${el.tag}> element`);
    if (el.tag === 'meta' && el.attrs.some(([name]) => name === 'http-equiv')) flag('a meta http-equiv');
    if (el.tag === 'script' && !isAppScript(el, baseUrl, appOrigin)) flag('a script that is not the app\'s');
    if (el.tag === 'style' && el.text?.includes(XSS_MARKER)) flag('a style element with corpus text');
    for (const [name, value] of el.attrs) {
      const attr = name.toLowerCase();
      if (attr.startsWith('on')) flag(`an event-handler attribute ${attr}`);
      else if (attr === 'srcdoc') flag('a srcdoc attribute');
      else if (attr === 'style' && value.includes(XSS_MARKER)) flag('a style attribute with corpus text');
      else if (URL_ATTRIBUTES.has(attr) || attr === 'srcset') {
        const urls = attr === 'srcset' ? value.split(',').map((candidate) => candidate.trim().split(/\s+/)[0] ?? '') : [value];
        for (const url of urls) {
          const protocol = protocolOf(url, baseUrl);
          if (protocol === null || SAFE_PROTOCOLS.has(protocol)) continue;
          if (protocol === 'data:' && el.tag === 'img' && attr === 'src' && APP_DATA_IMAGE.test(url.trim())) continue;
          if (protocol === 'data:' && el.tag === 'link' && attr === 'href' && url === builtSitePage().icon) continue;
          flag(`a ${protocol} URL in ${attr}`);
        }
      }
    }
  }
  return findings;
}

/** What the built public pages carry in themselves (vite.config.ts): the script that loads
 * their scripts once they have painted, and their icon as a data: URL. Read from the build the
 * journeys drive, so only those exact texts pass. */
let sitePage: { script: string | null; icon: string | null } | undefined;
function builtSitePage(): { script: string | null; icon: string | null } {
  if (!sitePage) {
    const html = readFileSync(new URL('../../../dist/client/site.html', import.meta.url), 'utf8');
    sitePage = {
      script: /<script type="module" data-hydrate="[^"]*">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? null,
      icon: /<link rel="icon" href="(data:[^"]+)"/.exec(html)?.[1] ?? null,
    };
  }
  return sitePage;
}

/** The built app's module scripts (same origin, /assets/), a public page's own script, its JSON
 * config and the data a server-rendered public page was rendered from (JSON, never executed;
 * escaped by the server). */
function isStructuredData(text: string): boolean {
  try {
    const data = JSON.parse(text) as { '@context'?: unknown };
    return data['@context'] === 'https://schema.org';
  } catch {
    return false;
  }
}

function isAppScript(el: ElementDump, baseUrl: string, appOrigin: string): boolean {
  const attrs = new Map(el.attrs);
  if (attrs.get('type') === 'application/json' && ['app-config', 'site-page'].includes(attrs.get('id') ?? '')) return true;
  // An article page's structured data (decision 0096): a data block the browser never runs, and
  // only when its whole text is the schema.org object (a payload that closed it early would
  // leave it unparsable and add a script of its own).
  if (attrs.get('type') === 'application/ld+json' && !attrs.has('src') && el.text !== null && isStructuredData(el.text)) return true;
  if (attrs.get('type') === 'module' && attrs.has('data-hydrate') && !attrs.has('src') && el.text !== null && el.text === builtSitePage().script) return true;
  const src = attrs.get('src');
  if (attrs.get('type') !== 'module' || !src) return false;
  const url = new URL(src, baseUrl);
  return url.origin === appOrigin && url.pathname.startsWith('/assets/');
}

/** Dangerous markup in every frame of the page; any frame but the main one is itself a finding. */
export async function dangerousMarkupIn(page: Page): Promise<string[]> {
  const findings: string[] = [];
  for (const frame of page.frames()) {
    if (frame !== page.mainFrame()) findings.push(`a child frame (${frame.url() || 'no URL'})`);
    const { baseUrl, elements } = await dumpFrame(frame);
    findings.push(...findDangerousMarkup(elements, baseUrl));
  }
  return findings;
}

/** Fails when anything ran, any dialog opened, or the page holds dangerous markup. */
export async function expectNoXss(page: Page, watch: XssWatch, screen: string): Promise<void> {
  expect(await dangerousMarkupIn(page), `dangerous markup on ${screen}`).toEqual([]);
  expect(watch.hits, `payloads that ran (up to ${screen})`).toEqual([]);
  expect(watch.dialogs, `dialogs opened (up to ${screen})`).toEqual([]);
}
