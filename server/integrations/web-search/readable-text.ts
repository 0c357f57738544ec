import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

/**
 * A page reduced to its readable text (docs/decisions/0081): Readability (Firefox's reader view)
 * on a linkedom DOM, which runs no script and loads nothing; the page's own title when
 * Readability finds no article, and its body's text. Whitespace collapsed, cut to `maxChars`.
 */
export function readableText(page: { contentType: string; body: string }, maxChars: number): { title: string; text: string } {
  if (page.contentType === 'text/plain') return { title: '', text: tidy(page.body, maxChars) };
  const { document } = parseHTML(page.body);
  const pageTitle = document.title ?? '';
  let article: { title?: string | null; textContent?: string | null } | null = null;
  try {
    article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { charThreshold: 200 }).parse();
  } catch {
    // A page Readability cannot read: its body's text below.
  }
  const text = article?.textContent?.trim() ? article.textContent : (document.body?.textContent ?? '');
  return { title: (article?.title || pageTitle).trim(), text: tidy(text, maxChars) };
}

function tidy(text: string, maxChars: number): string {
  const collapsed = text
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/\s*\n\s*(\n\s*)+/g, '\n\n')
    .trim();
  return collapsed.length > maxChars ? `${collapsed.slice(0, maxChars - 1).trimEnd()}…` : collapsed;
}
