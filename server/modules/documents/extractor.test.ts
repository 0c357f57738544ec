import { afterEach, describe, expect, it } from 'vitest';
import { makePdf } from '../../../tests/fakes/sample-documents.ts';
import { AppError } from '../../lib/errors.ts';
import { ExtractionLimitError } from './extraction-error.ts';
import { createExtractor, type Extractor } from './extractor.ts';
import { sniffDocument } from './sniff.ts';

const inputOf = (bytes: Uint8Array, name: string) => {
  const sniffed = sniffDocument(bytes, name);
  if (!sniffed.ok) throw new Error(sniffed.message);
  return { type: sniffed.type, text: sniffed.text, zip: sniffed.zip, bytes };
};

describe('the extractor: each document read in a worker thread of its own', () => {
  let extractor: Extractor | null = null;
  afterEach(async () => extractor?.close());

  it('reads a PDF in a thread and answers its passages, the caller keeping its bytes', async () => {
    extractor = createExtractor();
    const pdf = await makePdf([['First page.'], ['Second page.']]);
    const read = await extractor.read(inputOf(pdf, 'a.pdf'));
    expect(read).toEqual({ pages: 2, passages: [expect.objectContaining({ page: 1, text: 'First page.' }), expect.objectContaining({ page: 2, text: 'Second page.' })] });
    expect(pdf.length).toBeGreaterThan(0);
  });

  it("passes a bound's refusal back as such", async () => {
    extractor = createExtractor();
    const input = inputOf(new TextEncoder().encode('x'), 'a.txt');
    // A DOCX whose directory was read, but whose bytes are not there: the inflate check refuses it in the thread.
    await expect(extractor.read({ ...input, type: 'docx', zip: { ok: true, entries: [{ name: 'word/document.xml', method: 8, compressedSize: 10, size: 10, localOffset: 0 }], expandedBytes: 10 } })).rejects.toBeInstanceOf(
      ExtractionLimitError,
    );
  });

  it('ends a thread that takes too long, and refuses at once past its queue (503, try again)', async () => {
    extractor = createExtractor({ timeoutMs: 1 });
    const pdf = await makePdf([['Slow.']]);
    const slow = await extractor.read(inputOf(pdf, 'a.pdf')).catch((err: unknown) => err);
    expect(slow).toBeInstanceOf(AppError);
    expect((slow as AppError).status).toBe(503);
    await extractor.close();

    extractor = createExtractor({ concurrency: 1, maxQueued: 0 });
    const first = extractor.read(inputOf(pdf, 'a.pdf'));
    await expect(extractor.read(inputOf(pdf, 'b.pdf'))).rejects.toMatchObject({ status: 503, message: 'Many documents are being read right now. Please try again in a few seconds.' });
    await first;
  });
});
