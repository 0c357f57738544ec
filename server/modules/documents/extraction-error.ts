/** A file past a bound on the work it asks (pages, cells, a zip that expands too far): refused with this sentence (422). */
export class ExtractionLimitError extends Error {
  override readonly name = 'ExtractionLimitError';
}
