/** Where a cited [n] links to in an answer's Markdown; the answer's view turns such links into buttons that open the source. */
export const CITATION_HREF_PREFIX = '#source-';

/**
 * An answer's text with each [n] it cites (n among its sources, issue 32) made a link to that
 * source, so the answer's Markdown shows it as a button. Code (fenced blocks and inline code) is
 * left as written, and so is a [n] that is already a link's text ([1](...)) or a footnote ([^1]).
 */
export function linkCitations(text: string, count: number): string {
  if (count === 0 || !text.includes('[')) return text;
  const link = (plain: string) =>
    plain.replace(/\[(\d{1,3})\](?![(:])/g, (whole, digits: string) => {
      const n = Number(digits);
      return n >= 1 && n <= count ? `[\\[${n}\\]](${CITATION_HREF_PREFIX}${n})` : whole;
    });
  // Odd pieces are code: a fenced block, or an inline code span.
  return text
    .split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/g)
    .map((piece, i) => (i % 2 === 1 ? piece : link(piece)))
    .join('');
}

/** The source number a citation link points at, or null for any other link. */
export function citationNumber(href: string | undefined): number | null {
  if (!href?.startsWith(CITATION_HREF_PREFIX)) return null;
  const n = Number(href.slice(CITATION_HREF_PREFIX.length));
  return Number.isInteger(n) && n >= 1 ? n : null;
}
