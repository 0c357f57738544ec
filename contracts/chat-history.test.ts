import { describe, expect, it } from 'vitest';
import { branchOf, exportFileName, newestLeaf } from './chat-history.ts';

const m = (id: string, parentId: string | null) => ({ id, parentId });
// q1 ─ a1 ─ q2 ─ a2
//   └─ a1b          (a regenerated answer)
// q1b ─ a3          (an edited first question)
const tree = [m('q1', null), m('a1', 'q1'), m('q2', 'a1'), m('a2', 'q2'), m('a1b', 'q1'), m('q1b', null), m('a3', 'q1b')];

describe('the tree of versions', () => {
  it('follows the newest child from a message to the end of its branch', () => {
    expect(newestLeaf(tree, null)).toBe('a3');
    expect(newestLeaf(tree, 'q1')).toBe('a1b');
    expect(newestLeaf(tree, 'a1')).toBe('a2');
    expect(newestLeaf([], null)).toBeNull();
  });

  it('is the branch to the leaf, each message with its versions and place', () => {
    expect(branchOf(tree, 'a2').map(({ message, versions, index }) => [message.id, versions.length, index])).toEqual([
      ['q1', 2, 0],
      ['a1', 2, 0],
      ['q2', 1, 0],
      ['a2', 1, 0],
    ]);
    expect(branchOf(tree, 'a1b').map(({ message, index }) => [message.id, index])).toEqual([
      ['q1', 0],
      ['a1b', 1],
    ]);
    // An unknown leaf shows the newest branch; a cycle cannot loop.
    expect(branchOf(tree, 'nope').map((b) => b.message.id)).toEqual(['q1b', 'a3']);
    expect(branchOf([m('x', 'y'), m('y', 'x')], 'x').map((b) => b.message.id)).toEqual(['y', 'x']);
  });

  it('names an exported file after its title, in safe characters', () => {
    expect(exportFileName('Plan the Q3 offsite! (draft)', 'md')).toBe('plan-the-q3-offsite-draft.md');
    expect(exportFileName('日本語', 'json')).toBe('chat.json');
    expect(exportFileName('Café crème', 'md')).toBe('cafe-creme.md');
  });
});
