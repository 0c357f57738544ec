/**
 * Splits Markdown into its top-level blocks at blank lines outside fenced code, for an answer
 * still streaming: the blocks before the last are finished and render once; only the last one,
 * still growing, is parsed again for each new word. (A loose list or a reference link that
 * spans blocks renders in parts until the answer ends, then as one.)
 */
export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let fence: string | null = null;
  let current: string[] = [];
  for (const line of text.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) fence = marker;
    else if (fence !== null && marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
    if (fence === null && line.trim() === '' && current.length > 0) {
      blocks.push(current.join('\n'));
      current = [];
    } else if (fence !== null || line.trim() !== '' || current.length > 0) {
      current.push(line);
    }
  }
  if (current.length > 0 || blocks.length === 0) blocks.push(current.join('\n'));
  return blocks;
}
