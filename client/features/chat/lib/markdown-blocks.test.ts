import { describe, expect, it } from 'vitest';
import { markdownBlocks } from './markdown-blocks.ts';

describe('markdownBlocks', () => {
  it('splits at blank lines, never inside a fenced code block', () => {
    const text = 'Intro line one\nline two\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n- item\n- item two\n\nTail';
    expect(markdownBlocks(text)).toEqual(['Intro line one\nline two', '```ts\nconst a = 1;\n\nconst b = 2;\n```', '- item\n- item two', 'Tail']);
  });

  it('keeps an open fence (still streaming) as the last block, with its blank lines', () => {
    expect(markdownBlocks('Text\n\n~~~\ncode\n\nmore')).toEqual(['Text', '~~~\ncode\n\nmore']);
    expect(markdownBlocks('````\n```\nstill inside\n````\n\nafter')).toEqual(['````\n```\nstill inside\n````', 'after']);
  });

  it('gives one block for text without blank lines, and an empty one for nothing', () => {
    expect(markdownBlocks('Just words')).toEqual(['Just words']);
    expect(markdownBlocks('')).toEqual(['']);
    expect(markdownBlocks('\n\nA\n\n\n')).toEqual(['A']);
  });
});
