import { type PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagSlug } from '../modules/articles/slug.ts';
import { databaseBefore, type PreviousRelease } from '../test/previous-release.ts';

/** The migration that adds tags (0031); the one before it is the previous release's last. */
const ARTICLE_TAGS = /_article_tags$/;

/**
 * Issue 34 item 4 (docs/decisions/0100): a database of the previous release, with its articles,
 * takes the tags migration, and each article's category becomes its first (primary) tag: the
 * slug as the articles service makes it, names that differ only in case one tag named as the
 * oldest article spells it.
 */
describe('the article tags migration on a database of the previous release', () => {
  let client: PGlite;
  let previous: PreviousRelease;

  beforeAll(async () => {
    previous = await databaseBefore(ARTICLE_TAGS);
    client = previous.client;
  });
  afterAll(async () => previous?.close());

  it("makes each article's category its primary tag, one tag per slug", async () => {
    const before = await client.query<{ exists: boolean }>(`select to_regclass('tags') is not null as exists`);
    expect(before.rows[0]!.exists).toBe(false);
    const categories = ['Automation', 'automation', 'Café Société', '日本', 'AI & ML', 'AI / ML'];
    for (const [i, category] of categories.entries()) {
      await client.query(`insert into articles (slug, title, category, excerpt, content, status, created_at) values ($1, $2, $3, 'An excerpt here', $4, 'published', $5)`, [
        `a-${i}`,
        `Article ${i}`,
        category,
        'x'.repeat(60),
        new Date(Date.UTC(2026, 0, i + 1)),
      ]);
    }

    await previous.upgrade();

    const { rows } = await client.query<{ slug: string; name: string; article: string; position: number }>(
      `select t.slug, t.name, a.slug as article, at.position from article_tags at join tags t on t.id = at.tag_id join articles a on a.id = at.article_id order by a.slug`,
    );
    expect(rows).toEqual([
      { article: 'a-0', slug: 'automation', name: 'Automation', position: 0 },
      { article: 'a-1', slug: 'automation', name: 'Automation', position: 0 },
      { article: 'a-2', slug: 'cafe-societe', name: 'Café Société', position: 0 },
      { article: 'a-3', slug: tagSlug('日本'), name: '日本', position: 0 },
      { article: 'a-4', slug: 'ai-ml', name: 'AI & ML', position: 0 },
      { article: 'a-5', slug: 'ai-ml', name: 'AI & ML', position: 0 },
    ]);
    // The SQL made the slugs the service makes, so a later save finds the same tag.
    for (const category of categories) expect(rows.some((row) => row.slug === tagSlug(category)), category).toBe(true);
    expect(tagSlug('日本')).toMatch(/^tag-[0-9a-f]{8}$/);
    expect((await client.query(`select count(*)::int as n from tags`)).rows).toEqual([{ n: 4 }]);
  });
});
