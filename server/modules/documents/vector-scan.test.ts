import { readFileSync } from 'node:fs';
import wabtInit from 'wabt';
import { describe, expect, it } from 'vitest';
import { createScanner, strideFor, VECTOR_SCAN_WASM_BASE64 } from './vector-scan.ts';

/** The WebAssembly scan gives exactly the integer dot products JavaScript computes. */
describe('the vector scan', () => {
  it('runs the committed bytes of vector-scan.wat: assembled again here, they are the same', async () => {
    const wabt = await wabtInit();
    const source = readFileSync(new URL('./vector-scan.wat', import.meta.url), 'utf8');
    const assembled = wabt.parseWat('vector-scan.wat', source, { simd: true });
    try {
      expect(Buffer.from(assembled.toBinary({}).buffer).toString('base64')).toBe(VECTOR_SCAN_WASM_BASE64);
    } finally {
      assembled.destroy();
    }
  });

  it('scores every row exactly, at dimensions that are not a multiple of 16 and at the int8 extremes', () => {
    let s = 7;
    const code = () => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      return (s % 255) - 127;
    };
    for (const dims of [1, 15, 16, 100, 512]) {
      const rows = 37;
      const stride = strideFor(dims);
      const scanner = createScanner(rows, stride);
      const expected: number[] = [];
      const query = new Int8Array(stride);
      for (let j = 0; j < dims; j++) query[j] = j % 3 === 0 ? -127 : code();
      for (let r = 0; r < rows; r++) {
        let sum = 0;
        for (let j = 0; j < dims; j++) {
          const c = r === 0 ? -127 : code();
          scanner.codes[r * stride + j] = c;
          sum += c * query[j]!;
        }
        expected.push(sum);
      }
      expect(Array.from(scanner.scores(query))).toEqual(expected);
    }
  });

  it('an empty index scores nothing', () => {
    expect(Array.from(createScanner(0, 16).scores(new Int8Array(16)))).toEqual([]);
  });
});
