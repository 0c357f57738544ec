/** Order statistics for a test on history's summaries, which pool tens of thousands of changes. */

/** The k-th smallest of `values` (0-based), reordering them: Hoare's selection, no full sort. */
function select(values: Float64Array, k: number): number {
  let left = 0;
  let right = values.length - 1;
  while (left < right) {
    const pivot = values[(left + right) >> 1]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swapped = values[i]!;
        values[i++] = values[j]!;
        values[j--] = swapped;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return values[k]!;
  }
  return values[k]!;
}

/** The median of a non-empty list; the summary of many markets pools tens of thousands of changes. */
export function median(changes: readonly number[]): number {
  const values = Float64Array.from(changes);
  const middle = values.length >> 1;
  const upper = select(values, middle);
  if (values.length % 2 === 1) return upper;
  // The lower middle is the largest of what selection left below the upper one.
  let lower = -Infinity;
  for (let i = 0; i < middle; i++) if (values[i]! > lower) lower = values[i]!;
  return (lower + upper) / 2;
}
