/**
 * The vector index's scan in WebAssembly SIMD (vector-scan.wat, docs/decisions/0087): each index
 * owns an instance whose memory holds its int8 rows, the question's codes and one int32 score a
 * row. The JavaScript scan it replaces, four codes a 32-bit word, took about 15 ms for 50,000
 * rows of 512 codes on a quiet machine (35 ms under load); this one takes a few.
 */
/** vector-scan.wat assembled (wabt's wat2wasm with SIMD), as base64; vector-scan.test.ts checks it is. */
export const VECTOR_SCAN_WASM_BASE64 =
  'AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcTAgZtZW1vcnkCAAZzY29yZXMAAAquAQGrAQIEfwJ7IAEhBgJAA0AgBSACTw0B/QwAAAAAAAAAAAAAAAAAAAAAIQkgBiADaiEHIAAhCANAIAb9AAQAIQogCSAK/YcBIAj9AAQA/boB/a4BIQkgCSAK/YgBIAj9AAQQ/boB/a4BIQkgBkEQaiEGIAhBIGohCCAGIAdJDQALIAQgBUECdGogCf0bACAJ/RsBaiAJ/RsCIAn9GwNqajYCACAFQQFqIQUMAAsLCw==';
const WASM = Buffer.from(VECTOR_SCAN_WASM_BASE64, 'base64');
/** The WebAssembly calls used here, typed (the server's TypeScript has no DOM lib, which types the global). */
type WasmMemory = { buffer: ArrayBuffer; grow(pages: number): number };
type WasmApi = {
  Module: new (code: Uint8Array) => object;
  Instance: new (module: object, imports?: object) => { exports: object };
};
const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: WasmApi };
const module = new wasm.Module(WASM);
const PAGE = 65_536;
/** Bytes a row's codes take: whole 16-byte lanes. */
export const strideFor = (dims: number) => Math.max(16, Math.ceil(dims / 16) * 16);

type ScanExports = { memory: WasmMemory; scores(q: number, codes: number, rows: number, stride: number, out: number): void };

export type Scanner = {
  /** The rows' codes, `stride` bytes each (zero past the dimensions): written while building. */
  codes: Int8Array;
  /** The exact integer dot product of `query` (int8 values, `stride` of them) with every row. */
  scores(query: Int8Array): Int32Array;
};

export function createScanner(rows: number, stride: number): Scanner {
  if (stride % 16 !== 0 || stride <= 0) throw new Error(`a stride of ${stride} bytes: a multiple of 16 is needed`);
  const codesBytes = rows * stride;
  const queryAt = codesBytes; // a multiple of 16
  const outAt = queryAt + stride * 2;
  const total = outAt + rows * 4;
  const { memory, scores } = new wasm.Instance(module).exports as ScanExports;
  const pages = Math.ceil(total / PAGE);
  if (pages > 1) memory.grow(pages - 1);
  // Views made after the one growth: a grown memory detaches the views made before it.
  const codes = new Int8Array(memory.buffer, 0, codesBytes);
  const query = new Int16Array(memory.buffer, queryAt, stride);
  const out = new Int32Array(memory.buffer, outAt, rows);
  return {
    codes,
    scores(q) {
      query.fill(0);
      query.set(q.subarray(0, stride));
      scores(queryAt, 0, rows, stride, outAt);
      return out;
    },
  };
}
