import type { TArticle } from '../../contracts/articles.ts';

/** An article as the admin's API answers it, for client tests: a draft unless told. */
export function sampleArticle(overrides: Partial<TArticle> = {}): TArticle {
  return {
    id: '00000000-0000-4000-8000-0000000000a1',
    slug: 'automating-invoices',
    title: 'Automating invoices',
    category: 'Automation',
    excerpt: 'How we automated invoice processing.',
    content: 'B'.repeat(80),
    readTime: '7 min read',
    published: false,
    status: 'draft',
    publishAt: null,
    authorId: null,
    createdAt: '2025-05-01T10:00:00.000Z',
    publishedAt: '2025-05-01T10:00:00.000Z',
    updatedAt: '2025-05-01T10:00:00.000Z',
    metaTitle: null,
    metaDescription: null,
    canonicalUrl: null,
    tags: [{ name: 'Automation', slug: 'automation' }],
    coverImageId: null,
    coverAlt: null,
    cover: null,
    ...overrides,
  };
}
