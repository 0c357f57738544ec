import { DOCUMENT_LIMITS } from '../../../contracts/documents.ts';

/**
 * A zip's central directory, read before anything is inflated (docs/decisions/0081): DOCX and
 * XLSX are zips, and a zip bomb (a few kilobytes that expand to gigabytes) is judged here, from
 * the sizes the directory declares: too many entries, too many expanded bytes in all, or an entry
 * whose expansion ratio no document has. The inflater then holds each entry to its declared size
 * (zip-inflate.ts), so a directory that lies about a size is caught as it inflates.
 */
export type ZipEntry = { name: string; method: number; compressedSize: number; size: number; localOffset: number };
export type ZipDirectory = { ok: true; entries: ZipEntry[]; expandedBytes: number };
type ZipRefusal = { ok: false; message: string };

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
/** The end record is 22 bytes, and may be followed by a comment of up to 65,535. */
const EOCD_SEARCH = 22 + 0xffff;
const ZIP64_MARK = 0xffffffff;
/** An entry this small is not judged by its ratio (a page of zeros compresses past any bound). */
const RATIO_FLOOR_BYTES = 1024 * 1024;

const DAMAGED: ZipRefusal = { ok: false, message: 'the file is a damaged zip archive (its directory cannot be read)' };
const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

export function readZipDirectory(bytes: Uint8Array): ZipDirectory | ZipRefusal {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - EOCD_SEARCH); i--) {
    if (view.getUint32(i, true) === EOCD_SIGNATURE) {
      end = i;
      break;
    }
  }
  if (end < 0) return DAMAGED;
  const count = view.getUint16(end + 10, true);
  const directorySize = view.getUint32(end + 12, true);
  const directoryOffset = view.getUint32(end + 16, true);
  if (count === 0xffff || directoryOffset === ZIP64_MARK) {
    return { ok: false, message: 'the file is a ZIP64 archive, which no document of the accepted size needs' };
  }
  if (count > DOCUMENT_LIMITS.maxZipEntries) {
    return { ok: false, message: `the file holds ${count} zip entries; at most ${DOCUMENT_LIMITS.maxZipEntries} are accepted` };
  }
  if (directoryOffset + directorySize > end) return DAMAGED;

  const entries: ZipEntry[] = [];
  let expandedBytes = 0;
  let at = directoryOffset;
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL_SIGNATURE) return DAMAGED;
    const method = view.getUint16(at + 10, true);
    const compressedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const localOffset = view.getUint32(at + 42, true);
    if (at + 46 + nameLength > end) return DAMAGED;
    const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (compressedSize === ZIP64_MARK || size === ZIP64_MARK || localOffset === ZIP64_MARK) {
      return { ok: false, message: 'the file is a ZIP64 archive, which no document of the accepted size needs' };
    }
    if (method !== 0 && method !== 8) return { ok: false, message: `the zip entry ${JSON.stringify(name.slice(0, 100))} uses a compression method documents do not use` };
    if (size > RATIO_FLOOR_BYTES && size / Math.max(1, compressedSize) > DOCUMENT_LIMITS.maxCompressionRatio) {
      return {
        ok: false,
        message: `the file looks like a zip bomb: an entry expands ${Math.round(size / Math.max(1, compressedSize))} times (at most ${DOCUMENT_LIMITS.maxCompressionRatio} is accepted)`,
      };
    }
    expandedBytes += size;
    if (expandedBytes > DOCUMENT_LIMITS.maxExpandedBytes) {
      return { ok: false, message: `the file looks like a zip bomb: it expands past ${mb(DOCUMENT_LIMITS.maxExpandedBytes)} (the most accepted)` };
    }
    entries.push({ name, method, compressedSize, size, localOffset });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return { ok: true, entries, expandedBytes };
}
