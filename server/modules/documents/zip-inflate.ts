import { Inflate } from 'fflate';
import { ExtractionLimitError } from './extraction-error.ts';
import type { ZipDirectory } from './zip-directory.ts';

const LOCAL_SIGNATURE = 0x04034b50;
/** Compressed bytes fed at a time: at deflate's utmost ratio (about 1,000) the output of one push stays near 16 MB. */
const FEED_BYTES = 16 * 1024;

const lied = (name: string) =>
  new ExtractionLimitError(`the file looks like a zip bomb: the entry ${JSON.stringify(name.slice(0, 100))} expands past the size its directory declares`);

/**
 * Holds every entry of a DOCX or XLSX to the size its central directory declared (which
 * zip-directory.ts bounded): each is inflated in small steps, its output counted and dropped,
 * and the first byte past its declared size refuses the file. Only then do mammoth or exceljs,
 * which trust the archive, inflate it themselves.
 */
export function checkZipInflates(bytes: Uint8Array, zip: ZipDirectory): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const entry of zip.entries) {
    const at = entry.localOffset;
    if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL_SIGNATURE) throw new ExtractionLimitError('the file is a damaged zip archive (an entry cannot be found)');
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    const end = start + entry.compressedSize;
    if (end > bytes.length) throw new ExtractionLimitError('the file is a damaged zip archive (an entry runs past its end)');
    if (entry.method === 0) {
      if (entry.compressedSize !== entry.size) throw lied(entry.name);
      continue;
    }
    let produced = 0;
    const inflate = new Inflate((chunk) => {
      produced += chunk.length;
    });
    for (let i = start; i < end; i += FEED_BYTES) {
      const last = i + FEED_BYTES >= end;
      try {
        inflate.push(bytes.subarray(i, Math.min(end, i + FEED_BYTES)), last);
      } catch {
        throw new ExtractionLimitError(`the file is a damaged zip archive (the entry ${JSON.stringify(entry.name.slice(0, 100))} does not inflate)`);
      }
      if (produced > entry.size) throw lied(entry.name);
    }
  }
}
