import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { openDatabase } from '../../../server/db/client.ts';
import { articles } from '../../../server/db/schema.ts';

/** An article to put straight into a database (there is no article-creation API yet). */
export type SeedArticle = {
  title: string;
  category: string;
  excerpt: string;
  content?: string;
  readTime?: string;
  published?: boolean;
  /** ISO timestamp; decides the order (newest first). */
  createdAt: string;
};

/** Opens the PGlite data directory (migrating it), inserts the articles and closes it. The
 * directory must not be open in a running server. */
export async function seedArticles(dataDir: string, list: SeedArticle[]): Promise<void> {
  const database = await openDatabase({ kind: 'pglite', dataDir }, pino({ level: 'silent' }));
  try {
    if (list.length === 0) return;
    await database.db.insert(articles).values(
      list.map((a, i) => ({
        slug: `${a.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-${i}`,
        title: a.title,
        category: a.category,
        excerpt: a.excerpt,
        content: a.content ?? `# ${a.title}\n\n${a.excerpt}`,
        readTime: a.readTime ?? '5 min read',
        status: (a.published ?? true) ? ('published' as const) : ('draft' as const),
        createdAt: new Date(a.createdAt),
        updatedAt: new Date(a.createdAt),
      })),
    );
  } finally {
    await database.close();
  }
}

// `node tests/e2e/support/seed-articles.ts <dataDir> <articles.json>`: the helpers that start
// extra servers seed through this, so no test process loads the database itself.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dataDir, file] = process.argv.slice(2);
  if (!dataDir || !file) {
    console.error('usage: node tests/e2e/support/seed-articles.ts <dataDir> <articles.json>');
    process.exit(2);
  }
  await seedArticles(dataDir, JSON.parse(readFileSync(file, 'utf8')) as SeedArticle[]);
}
