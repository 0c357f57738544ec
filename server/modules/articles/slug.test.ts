import { describe, expect, it } from 'vitest';
import { slugCandidate, slugify } from './slug.ts';

describe('slugify', () => {
  it.each([
    ['Automate Your Business Success', 'automate-your-business-success'],
    ['  AI/ML: the 2026 playbook!  ', 'ai-ml-the-2026-playbook'],
    ['Café déjà vu', 'cafe-deja-vu'],
    ['<script>alert(1)</script>', 'script-alert-1-script'],
    ['日本語のタイトル', 'article'],
    ['---', 'article'],
  ])('%j -> %j', (title, slug) => {
    expect(slugify(title)).toBe(slug);
  });

  it('stays within 80 characters without a trailing hyphen', () => {
    const slug = slugify(`${'word '.repeat(40)}`);
    expect(slug.length).toBeLessThanOrEqual(80);
    expect(slug.endsWith('-')).toBe(false);
  });

  it('numbers the candidates after the first', () => {
    expect([0, 1, 2].map((n) => slugCandidate('post', n))).toEqual(['post', 'post-2', 'post-3']);
  });
});
