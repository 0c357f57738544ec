/**
 * The vector side of retrieval without an extension (docs/decisions/0081): one user's passage
 * vectors as a matrix of int8 rows, each with its own scale (the row's largest magnitude / 127),
 * a quarter of float32's memory. A question is scored against every row in scope by a dot
 * product (the vectors are unit length: the dot product is the cosine, up to the quantization's
 * error); the best `candidates` are returned for re-scoring with their stored float32.
 */
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
  // Rows padded to whole 32-bit words: the scan reads four codes a word (below).
  const stride = Math.ceil(dims / 4) * 4;
  const codes = new Int8Array(size * stride);
  const words = new Int32Array(codes.buffer);
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
      if (row.vector.length !== dims) throw new Error(`vector of ${row.vector.length} dimensions in an index of ${dims}`);
      let max = 0;
      for (const x of row.vector) max = Math.max(max, Math.abs(x));
      const scale = max > 0 ? max / 127 : 1;
      for (let j = 0; j < dims; j++) codes[offset + j] = Math.round(row.vector[j]! / scale);
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
  const bytes = codes.byteLength + scales.byteLength + documentOf.byteLength + size * 150;

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
    if (!any || k <= 0) return [];
    // The best k so far, kept sorted best first; `floor` is the k-th score once full.
    const bestRows = new Int32Array(k);
    const bestScores = new Float64Array(k).fill(-Infinity);
    let filled = 0;
    let floor = -Infinity;
    // The question quantized like a row: the scan is then integer arithmetic on 32-bit words,
    // four codes each (sign-extended by shifts; typed arrays are little-endian on every platform
    // Node runs on), about four times faster than float multiplies per code. 512 x 127 x 127
    // stays far inside an int32. The order it gives is approximate; the caller re-scores exactly.
    let queryMax = 0;
    for (const x of query) queryMax = Math.max(queryMax, Math.abs(x));
    const queryScale = queryMax > 0 ? queryMax / 127 : 1;
    const q = new Int32Array(stride);
    for (let j = 0; j < dims; j++) q[j] = Math.round(query[j]! / queryScale);
    const wordsPerRow = stride >> 2;
    for (let r = 0; r < size; r++) {
      if (allowed[documentOf[r]!] === 0) continue;
      const offset = r * wordsPerRow;
      let sum = 0;
      for (let w = 0; w < wordsPerRow; w++) {
        const word = words[offset + w]!;
        const k = w << 2;
        sum = (sum + ((word << 24) >> 24) * q[k]! + ((word << 16) >> 24) * q[k + 1]! + ((word << 8) >> 24) * q[k + 2]! + (word >> 24) * q[k + 3]!) | 0;
      }
      const score = sum * scales[r]! * queryScale;
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

/** A vector as the bytes stored (float32, little-endian), and back. */
export function vectorToBytes(vector: Float32Array): Uint8Array {
  const out = new Uint8Array(vector.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i]!, true);
  return out;
}

export function bytesToVector(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
