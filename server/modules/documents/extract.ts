import { DOCUMENT_LIMITS, type TDocumentType } from '../../../contracts/documents.ts';
import type { Section } from './chunk.ts';
import { ExtractionLimitError } from './extraction-error.ts';
import { htmlSections, readableHtmlSections } from './html-text.ts';
import { checkZipInflates } from './zip-inflate.ts';
import type { ZipDirectory } from './zip-directory.ts';

/**
 * A document's text, per page (PDF), sheet (XLSX) or heading (DOCX, HTML, Markdown), with
 * maintained pure-JS libraries (docs/decisions/0081). Bounds: pages, sheet cells, the zip's
 * expanded size (checked before: zip-directory.ts) and the characters kept. Long work yields to
 * the event loop between pages and sheets, so one big file does not hold every other request.
 */
export type Extracted = { sections: Section[]; pages: number | null };

export type ExtractInput = { type: TDocumentType; bytes: Uint8Array; text: string | null; zip: ZipDirectory | null };

export async function extractDocument({ type, bytes, text, zip }: ExtractInput): Promise<Extracted> {
  switch (type) {
    case 'pdf':
      return extractPdf(bytes);
    case 'docx':
      checkZipInflates(bytes, zip!);
      return extractDocx(bytes);
    case 'xlsx':
      checkZipInflates(bytes, zip!);
      return extractXlsx(bytes);
    case 'html':
      return { sections: bounded(readableHtmlSections(text ?? '')), pages: null };
    case 'markdown':
      return { sections: bounded(markdownSections(text ?? '')), pages: null };
    case 'csv':
    case 'text':
      return { sections: bounded([{ page: null, sheet: null, heading: null, text: text ?? '' }]), pages: null };
  }
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Keeps the first DOCUMENT_LIMITS.maxTextChars characters of a document's text. */
function bounded(sections: Section[]): Section[] {
  let left = DOCUMENT_LIMITS.maxTextChars;
  const kept: Section[] = [];
  for (const section of sections) {
    if (left <= 0) break;
    const text = section.text.length > left ? section.text.slice(0, left) : section.text;
    left -= text.length;
    kept.push({ ...section, text });
  }
  return kept;
}

async function extractPdf(bytes: Uint8Array): Promise<Extracted> {
  const { getDocumentProxy } = await import('unpdf');
  // pdf.js takes the buffer over; it gets a copy so the caller's stays whole.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { stopAtErrors: false, maxImageSize: 0 });
  try {
    if (pdf.numPages > DOCUMENT_LIMITS.maxPages) {
      throw new ExtractionLimitError(`the PDF has ${pdf.numPages} pages; at most ${DOCUMENT_LIMITS.maxPages} are accepted`);
    }
    const sections: Section[] = [];
    let chars = 0;
    for (let n = 1; n <= pdf.numPages && chars < DOCUMENT_LIMITS.maxTextChars; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      let pageText = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        pageText += item.str + (item.hasEOL ? '\n' : '');
      }
      page.cleanup();
      pageText = pageText.replace(/[ \t]+\n/g, '\n').trim();
      chars += pageText.length;
      if (pageText) sections.push({ page: n, sheet: null, heading: null, text: pageText });
      await yieldToLoop();
    }
    return { sections: bounded(sections), pages: pdf.numPages };
  } finally {
    await pdf.loadingTask.destroy();
  }
}

async function extractDocx(bytes: Uint8Array): Promise<Extracted> {
  const mammoth = (await import('mammoth')).default;
  const { value: html } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
  await yieldToLoop();
  return { sections: bounded(htmlSections(html)), pages: null };
}

async function extractXlsx(bytes: Uint8Array): Promise<Extracted> {
  const ExcelJS = (await import('exceljs')).default;
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer);
  const sections: Section[] = [];
  let cells = 0;
  for (const sheet of workbook.worksheets) {
    cells += sheet.actualRowCount * Math.max(1, sheet.actualColumnCount);
    if (cells > DOCUMENT_LIMITS.maxSheetCells) {
      throw new ExtractionLimitError(`the workbook has more than ${DOCUMENT_LIMITS.maxSheetCells.toLocaleString('en-US')} cells; at most that many are accepted`);
    }
    const rows: string[] = [];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const values: string[] = [];
      row.eachCell({ includeEmpty: true }, (cell) => values.push(cell.text.replace(/\s+/g, ' ').trim()));
      while (values.length > 0 && values.at(-1) === '') values.pop();
      if (values.length > 0) rows.push(values.join(' | '));
    });
    // Rows one per line: a passage breaks between rows, never inside one.
    if (rows.length > 0) sections.push({ page: null, sheet: sheet.name.slice(0, 100), heading: null, text: rows.join('\n\n') });
    await yieldToLoop();
  }
  return { sections: bounded(sections), pages: workbook.worksheets.length };
}

/** Markdown by its ATX headings (`#` to `######`); the text is kept as written. */
export function markdownSections(text: string): Section[] {
  const sections: Section[] = [];
  let heading: string | null = null;
  let lines: string[] = [];
  let fenced = false;
  const flush = () => {
    const body = lines.join('\n').trim();
    if (body) sections.push({ page: null, sheet: null, heading, text: body });
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (match) {
      flush();
      heading = match[1]!.slice(0, 300);
    } else lines.push(line);
  }
  flush();
  return sections;
}
