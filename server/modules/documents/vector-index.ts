/**
 * The vector side of retrieval without an extension (docs/decisions/0081): one user's passage
 * vectors as a matrix of int8 rows, each with its own scale (the row's largest magnitude / 127),
 * a quarter of float32's memory. A question is scored against every row in scope by a dot
 * product (the vectors are unit length: the dot product is the cosine, up to the quantization's
 * error); the best `candidates` are returned for re-scoring with their stored float32. The scan's
 * arithmetic runs in WebAssembly SIMD (vector-scan.ts, docs/decisions/0087).
 */
import { createScanner, strideFor } from './vector-scan.ts';

export type VectorRow = { passageId: string; documentId: string; vector: Float32Array };

export type QuantizedIndex = {
  dims: number;
  size: number;
  /** The bytes it holds (codes, scales, ids), for the cache's bound. */
  bytes: number;
  /** A row's quantized vector, to carry it into the next index without reading it again. */
  row(passageId: string): { codes: Int8Array; scale: number } | null;
  /** The best `k` rows whose document is in `documents`, best first, with their approximate scores. */
  search(query: Float32Array, documents: ReadonlySet<string>, k: number): { passageId: string; score: number }[];
};

/** A row already quantized (carried from the index before), or a vector to quantize. */
export type IndexRow = VectorRow | { passageId: string; documentId: string; codes: Int8Array; scale: number };

export function buildQuantizedIndex(rows: readonly IndexRow[], dims: number): QuantizedIndex {
  const size = rows.length;
  // Rows padded to whole 16-byte lanes, the codes in the scanner's own memory.
  const stride = strideFor(dims);
  const scanner = createScanner(size, stride);
  const codes = scanner.codes;
  const scales = new Float32Array(size);
  const ids = new Array<string>(size);
  const documentNames: string[] = [];
  const documentOrdinal = new Map<string, number>();
  const documentOf = new Int32Array(size);
  for (const [r, row] of rows.entries()) {
    const offset = r * stride;
    if ('codes' in row) {
      if (row.codes.length !== dims) throw new Error(`a row of ${row.codes.length} dimensions in an index of ${dims}`);
      codes.set(row.codes, offset);
      scales[r] = row.scale;
    } else {
      const vector = row.vector;
      if (vector.length !== dims) throw new Error(`vector of ${vector.length} dimensions in an index of ${dims}`);
      let max = 0;
      for (let j = 0; j < dims; j++) {
        const x = vector[j]!;
        if (x > max) max = x;
        else if (-x > max) max = -x;
      }
      const scale = max > 0 ? max / 127 : 1;
      const inverse = 1 / scale;
      // Math.round(x) as ((x + 128.5) | 0) - 128 (x lies within ±127: the same integer, half up),
      // ten times faster over 50,000 rows of 512.
      for (let j = 0; j < dims; j++) codes[offset + j] = ((vector[j]! * inverse + 128.5) | 0) - 128;
      scales[r] = scale;
    }
    ids[r] = row.passageId;
    let ordinal = documentOrdinal.get(row.documentId);
    if (ordinal === undefined) {
      ordinal = documentNames.length;
      documentNames.push(row.documentId);
      documentOrdinal.set(row.documentId, ordinal);
    }
    documentOf[r] = ordinal;
  }
  // Ids are ~36 characters, held in the array and the id-to-row map: about 150 bytes a row.
  const bytes = codes.byteLength + size * 4 + scales.byteLength + documentOf.byteLength + size * 150;

  function search(query: Float32Array, documents: ReadonlySet<string>, k: number) {
    if (query.length !== dims) throw new Error(`a question of ${query.length} dimensions against vectors of ${dims}`);
    const allowed = new Uint8Array(documentNames.length);
    let any = false;
    for (const [ordinal, id] of documentNames.entries()) {
      if (documents.has(id)) {
        allowed[ordinal] = 1;
        any = true;
      }
    }
    if (!any || k <= 0 || size === 0) return [];
    // The question quantized like a row: the scan is then integer arithmetic (exact, in the
    // scanner), and the order it gives approximate only by the quantization; the caller re-scores
    // the best exactly.
    let queryMax = 0;
    for (const x of query) queryMax = Math.max(queryMax, Math.abs(x));
    const queryScale = queryMax > 0 ? queryMax / 127 : 1;
    const q = new Int8Array(stride);
    for (let j = 0; j < dims; j++) q[j] = Math.round(query[j]! / queryScale);
    const sums = scanner.scores(q);
    // The best k so far, kept sorted best first; `floor` is the k-th score once full.
    const bestRows = new Int32Array(k);
    const bestScores = new Float64Array(k).fill(-Infinity);
    let filled = 0;
    let floor = -Infinity;
    for (let r = 0; r < size; r++) {
      if (allowed[documentOf[r]!] === 0) continue;
      const score = sums[r]! * scales[r]! * queryScale;
      if (filled === k && score <= floor) continue;
      let at = filled < k ? filled++ : k - 1;
      while (at > 0 && bestScores[at - 1]! < score) {
        bestScores[at] = bestScores[at - 1]!;
        bestRows[at] = bestRows[at - 1]!;
        at--;
      }
      bestScores[at] = score;
      bestRows[at] = r;
      if (filled === k) floor = bestScores[k - 1]!;
    }
    return Array.from({ length: filled }, (_, i) => ({ passageId: ids[bestRows[i]!]!, score: bestScores[i]! }));
  }

  const rowOf = new Map(ids.map((id, r) => [id, r]));
  function row(passageId: string) {
    const r = rowOf.get(passageId);
    return r === undefined ? null : { codes: codes.subarray(r * stride, r * stride + dims), scale: scales[r]! };
  }

  return { dims, size, bytes, row, search };
}

/** The dot product of two float32 vectors (the cosine of unit vectors): the re-scoring's exact score. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** A vector as the bytes stored (float32, little-endian), and back (sharing the bytes' memory where it can: change neither after). */
export function vectorToBytes(vector: Float32Array): Uint8Array {
  const out = new Uint8Array(vector.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i]!, true);
  return out;
}

/** True where typed arrays are little-endian (every platform Node runs on but s390x). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export function bytesToVector(bytes: Uint8Array): Float32Array {
  // The stored bytes as they are: a view when aligned, else one copy (reading each float through
  // a DataView took a second for 50,000 vectors of 512).
  if (LITTLE_ENDIAN) {
    if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
