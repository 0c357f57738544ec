import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type { Section } from './chunk.ts';

/**
 * HTML's text by its headings (docs/decisions/0081). A page goes through Readability first (its
 * article, without navigation and footers); DOCX arrives here as mammoth's HTML. Markup is
 * read, never run: linkedom builds a DOM without scripts or a network.
 */
const BLOCKS = 'h1,h2,h3,h4,h5,h6,p,li,pre,blockquote,tr,caption,dt,dd,figcaption';
const HEADING = /^H[1-6]$/;

/** A web page's readable text: Readability's article, or the whole body when it finds none. */
export function readableHtmlSections(html: string): Section[] {
  const { document } = parseHTML(html);
  let article: { content?: string | null } | null;
  try {
    // linkedom's document is not the DOM lib's type (the server has none); Readability reads it as one.
    article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
  } catch {
    article = null;
  }
  return article?.content ? htmlSections(article.content) : htmlSections(html);
}

/** The text of an HTML fragment or page, a section per heading; table rows as `a | b | c`. */
export function htmlSections(html: string): Section[] {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const body = document.body;
  for (const el of body.querySelectorAll('script,style,template,noscript')) el.remove();
  const sections: Section[] = [];
  let heading: string | null = null;
  let paragraphs: string[] = [];
  const flush = () => {
    const text = paragraphs.join('\n\n').trim();
    if (text) sections.push({ page: null, sheet: null, heading, text });
    paragraphs = [];
  };
  const blocks = [...body.querySelectorAll(BLOCKS)];
  for (const el of blocks) {
    // A block inside another block is read with it (a paragraph in a list item, a cell's paragraph).
    if (el.parentElement?.closest(BLOCKS)) continue;
    if (HEADING.test(el.tagName)) {
      flush();
      heading = squash(el.textContent ?? '').slice(0, 300) || null;
      continue;
    }
    const text =
      el.tagName === 'TR'
        ? [...el.querySelectorAll('th,td')].map((cell) => squash(cell.textContent ?? '')).join(' | ')
        : el.tagName === 'PRE'
          ? (el.textContent ?? '').trim()
          : squash(el.textContent ?? '');
    if (text) paragraphs.push(el.tagName === 'LI' ? `- ${text}` : text);
  }
  if (blocks.length === 0) paragraphs.push(squash(body.textContent ?? ''));
  flush();
  return sections;
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
