import { DOCUMENT_TYPE_NAMES, type TDocumentType } from '../../../contracts/documents.ts';
import { readZipDirectory, type ZipDirectory } from './zip-directory.ts';

/**
 * What a file is, read from its bytes (docs/decisions/0081): `%PDF-`, a zip holding
 * `word/document.xml` (DOCX) or `xl/workbook.xml` (XLSX), else text that decodes as UTF-8, told
 * apart as HTML, CSV or Markdown by its name and content. A name is shown, never trusted: one
 * that says another type than the bytes is a lie and refused.
 */
export type SniffedDocument =
  | { ok: true; type: TDocumentType; text: string | null; zip: ZipDirectory | null }
  | { ok: false; field: 'name' | 'body'; message: string; status: 400 | 415 };

const EXTENSION_TYPES: Record<string, TDocumentType> = {
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  csv: 'csv',
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  text: 'text',
  html: 'html',
  htm: 'html',
};
const TEXT_TYPES = new Set<TDocumentType>(['csv', 'markdown', 'text', 'html']);
/** Formats a file may be that we do not read, so the refusal can name them. */
const KNOWN_BINARIES: Array<{ magic: number[]; name: string }> = [
  { magic: [0x89, 0x50, 0x4e, 0x47], name: 'a PNG image' },
  { magic: [0xff, 0xd8, 0xff], name: 'a JPEG image' },
  { magic: [0x47, 0x49, 0x46, 0x38], name: 'a GIF image' },
  { magic: [0xd0, 0xcf, 0x11, 0xe0], name: 'an old Office (DOC/XLS) file' },
  { magic: [0x7f, 0x45, 0x4c, 0x46], name: 'a program' },
  { magic: [0x4d, 0x5a], name: 'a program' },
  { magic: [0x1f, 0x8b], name: 'a gzip archive' },
  { magic: [0x52, 0x61, 0x72, 0x21], name: 'a RAR archive' },
];
export const UNSUPPORTED = 'must be a PDF, Word (DOCX), Excel (XLSX), CSV, Markdown, plain text or HTML file';

const startsWith = (bytes: Uint8Array, magic: readonly number[], at = 0) => magic.every((b, i) => bytes[at + i] === b);
const extensionOf = (name: string) => /\.([a-z0-9]{1,10})$/i.exec(name)?.[1]?.toLowerCase() ?? '';
const article = (type: TDocumentType) => (['html', 'xlsx'].includes(type) ? 'an' : 'a');

/** The type of the bytes, the name's claim checked against it. */
export function sniffDocument(bytes: Uint8Array, name: string): SniffedDocument {
  const bytesType = typeOfBytes(bytes);
  if (!bytesType.ok) return bytesType;
  const claimed = EXTENSION_TYPES[extensionOf(name)];
  if (!claimed || claimed === bytesType.type) return bytesType;
  // Text is text: a .md, .csv, .txt or .html name decides how its UTF-8 text is read.
  if (TEXT_TYPES.has(claimed) && TEXT_TYPES.has(bytesType.type)) return { ...bytesType, type: claimed };
  const type = bytesType.type;
  return {
    ok: false,
    field: 'name',
    status: 400,
    message: `the file is ${article(type)} ${DOCUMENT_TYPE_NAMES[type]} file, not ${article(claimed)} ${DOCUMENT_TYPE_NAMES[claimed]} file as its name says`,
  };
}

function typeOfBytes(bytes: Uint8Array): SniffedDocument {
  if (bytes.length === 0) return { ok: false, field: 'body', status: 400, message: 'the file is empty' };
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return { ok: true, type: 'pdf', text: null, zip: null };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])) {
    const zip = readZipDirectory(bytes);
    if (!zip.ok) return { ok: false, field: 'body', status: 400, message: zip.message };
    const names = new Set(zip.entries.map((e) => e.name));
    if (names.has('word/document.xml')) return { ok: true, type: 'docx', text: null, zip };
    if (names.has('xl/workbook.xml')) return { ok: true, type: 'xlsx', text: null, zip };
    return { ok: false, field: 'body', status: 415, message: `the file is a zip archive that is not a DOCX or XLSX document; it ${UNSUPPORTED}` };
  }
  const binary = KNOWN_BINARIES.find((b) => startsWith(bytes, b.magic));
  if (binary) return { ok: false, field: 'body', status: 415, message: `the file is ${binary.name}; it ${UNSUPPORTED}` };
  const text = decodeUtf8(bytes);
  if (text === null) return { ok: false, field: 'body', status: 415, message: `the file is not text in UTF-8 nor a document we read; it ${UNSUPPORTED}` };
  return { ok: true, type: textTypeOf(text), text, zip: null };
}

/** The text, or null for bytes that are not UTF-8 text (invalid sequences, NUL or other control bytes of binary files). */
function decodeUtf8(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
  // Binary files decode now and then; text has no NUL and few control characters.
  const sample = text.slice(0, 64 * 1024);
  if (sample.includes('\u0000')) return null;
  let controls = 0;
  for (let i = 0; i < sample.length; i++) {
    const code = sample.charCodeAt(i);
    if ((code >= 0x01 && code <= 0x08) || (code >= 0x0e && code <= 0x1f)) controls++;
  }
  return controls > sample.length / 100 ? null : text;
}

/** Text as HTML (a document's markup), CSV (rows of commas), Markdown (headings, lists) or plain. */
function textTypeOf(text: string): TDocumentType {
  const head = text.slice(0, 4096).trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html') || /^<(head|body)[\s>]/.test(head)) return 'html';
  const lines = text.slice(0, 16 * 1024).split(/\r?\n/).filter((l) => l.trim() !== '').slice(0, 20);
  const commas = lines.map((l) => l.split(',').length - 1);
  if (lines.length >= 2 && commas[0]! > 0 && commas.every((c) => c === commas[0])) return 'csv';
  if (lines.some((l) => /^#{1,6}\s+\S/.test(l))) return 'markdown';
  return 'text';
}
