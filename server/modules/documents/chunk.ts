import { DOCUMENT_LIMITS } from '../../../contracts/documents.ts';

/** A stretch of a document's text and where it sits: a page (PDF), a sheet (XLSX), under a heading. */
export type Section = { page: number | null; sheet: string | null; heading: string | null; text: string };
export type Passage = Section & { ord: number };

type ChunkOptions = { size?: number; overlap?: number };

/**
 * Splits sections into passages of about `size` characters (docs/decisions/0081): whole
 * paragraphs where they fit, else whole sentences, else words; a passage never spans two pages,
 * sheets or headings, so its citation says where it is. Each passage after the first of its
 * section opens with the end of the one before (`overlap` characters at most, from a sentence or
 * word start), so a fact cut at a boundary is whole in one of them.
 */
export function chunkSections(sections: readonly Section[], { size = DOCUMENT_LIMITS.passageChars, overlap = DOCUMENT_LIMITS.passageOverlapChars }: ChunkOptions = {}): Passage[] {
  const passages: Passage[] = [];
  for (const section of sections) {
    const pieces = piecesOf(section.text, size);
    let current = '';
    const flush = () => {
      const text = current.trim();
      if (text) passages.push({ page: section.page, sheet: section.sheet, heading: section.heading, text, ord: passages.length });
    };
    let carried = '';
    for (const piece of pieces) {
      const joiner = piece.paragraphStart ? '\n\n' : ' ';
      if (current && current.length + joiner.length + piece.text.length > size) {
        flush();
        carried = tailOf(current, overlap);
        current = carried ? carried + joiner + piece.text : piece.text;
      } else {
        current = current ? current + joiner + piece.text : piece.text;
      }
    }
    if (current.trim() && current !== carried) flush();
  }
  return passages;
}

type Piece = { text: string; paragraphStart: boolean };

/** The section's text as paragraphs, each too long cut into sentences, each too long cut into words. */
function piecesOf(text: string, size: number): Piece[] {
  const pieces: Piece[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const clean = paragraph.replace(/[ \t]+/g, ' ').trim();
    if (!clean) continue;
    if (clean.length <= size) {
      pieces.push({ text: clean, paragraphStart: true });
      continue;
    }
    let first = true;
    for (const sentence of sentencesOf(clean)) {
      for (const part of sentence.length <= size ? [sentence] : wordRuns(sentence, size)) {
        pieces.push({ text: part, paragraphStart: first });
        first = false;
      }
    }
  }
  return pieces;
}

const sentencesOf = (text: string) => text.split(/(?<=[.!?。])\s+(?=\S)|\n/).filter((s) => s.trim() !== '');

/** A sentence longer than a passage, in runs of whole words (a word longer than that is cut). */
function wordRuns(sentence: string, size: number): string[] {
  const runs: string[] = [];
  let run = '';
  for (const word of sentence.split(/\s+/)) {
    for (let i = 0; i < word.length; i += size) {
      const part = word.slice(i, i + size);
      if (run && run.length + 1 + part.length > size) {
        runs.push(run);
        run = part;
      } else run = run ? `${run} ${part}` : part;
    }
  }
  if (run) runs.push(run);
  return runs;
}

/** The end of a passage to open the next with: its last sentences within `overlap`, else its last words. */
function tailOf(text: string, overlap: number): string {
  if (overlap <= 0) return '';
  const sentences = sentencesOf(text);
  let tail = '';
  for (let i = sentences.length - 1; i >= 0; i--) {
    const next = tail ? `${sentences[i]} ${tail}` : sentences[i]!;
    if (next.length > overlap) break;
    tail = next;
  }
  if (tail) return tail;
  const end = text.slice(-overlap);
  const space = end.search(/\s/);
  return space >= 0 ? end.slice(space + 1).trim() : '';
}
