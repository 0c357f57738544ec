import ExcelJS from 'exceljs';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * Documents the tests and the bench make (issue 32): real PDFs (pdf-lib), DOCX as the minimal
 * WordprocessingML a word processor writes (styles naming the headings, as mammoth reads them),
 * XLSX from exceljs, and hostile zips (a bomb, a directory that lies about a size).
 */

/** A PDF whose pages hold these lines of text (Helvetica, one line each). */
export async function makePdf(pages: ReadonlyArray<readonly string[]>): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = pdf.addPage([612, 792]);
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 740 - i * 14, size: 10, font }));
  }
  return pdf.save({ useObjectStreams: false });
}

/** A PDF of pages with no text layer (a drawn shape, as a scan's image would be). */
export async function makePdfWithoutText(pageCount = 2): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (let i = 0; i < pageCount; i++) pdf.addPage([612, 792]).drawRectangle({ x: 50, y: 50, width: 400, height: 600 });
  return pdf.save();
}

const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A DOCX of headings (level 1-2) and paragraphs, in order. */
export function makeDocx(blocks: ReadonlyArray<{ heading?: string; level?: 1 | 2; text?: string }>): Uint8Array {
  const paragraph = (text: string, style?: string) =>
    `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${xmlEscape(text)}</w:t></w:r></w:p>`;
  const body = blocks.map((b) => (b.heading !== undefined ? paragraph(b.heading, `Heading${b.level ?? 1}`) : paragraph(b.text ?? ''))).join('');
  const files: Zippable = {
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>',
    ),
    '_rels/.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    'word/_rels/document.xml.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
    ),
    'word/styles.xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style><w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style></w:styles>',
    ),
    'word/document.xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
    ),
  };
  return zipSync(files);
}

/** An XLSX with these sheets, each a grid of rows. */
export async function makeXlsx(sheets: Record<string, ReadonlyArray<ReadonlyArray<string | number>>>): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) workbook.addWorksheet(name).addRows(rows.map((r) => [...r]));
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

/** A DOCX-shaped zip whose document.xml expands `megabytes` of zeros: its ratio (about 1,000) is a bomb's. */
export function makeZipBomb(megabytes = 20): Uint8Array {
  return zipSync({ 'word/document.xml': new Uint8Array(megabytes * 1024 * 1024) }, { level: 9 });
}

/**
 * A DOCX whose directory says its document.xml is smaller than it inflates to (the ratio then
 * looks harmless): caught as it inflates, before mammoth reads it.
 */
export function makeLyingZip(): Uint8Array {
  const zip = makeDocx([{ text: 'word '.repeat(200_000) }]);
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  // Every central directory record (and local header) of word/document.xml: uncompressed size 1,000.
  const name = strToU8('word/document.xml');
  for (let at = 0; at + 46 < zip.length; at++) {
    const signature = view.getUint32(at, true);
    const nameAt = signature === 0x02014b50 ? at + 46 : signature === 0x04034b50 ? at + 30 : -1;
    if (nameAt < 0 || !name.every((b, i) => zip[nameAt + i] === b)) continue;
    view.setUint32(signature === 0x02014b50 ? at + 24 : at + 22, 1_000, true);
  }
  return zip;
}
