import { z } from 'zod';
import { DEFAULT_READ_TIME } from './constants.ts';
import { ARTICLE_IMAGE_LIMITS, ZArticleCover } from './article-images.ts';

export type { TArticleCover } from './article-images.ts';

/**
 * SPEC section 5 "Article form": the same rules and messages on the form and the server. SPEC's
 * 'Title too long', 'Excerpt too long' and 'Category too long' state their limit instead (issue
 * 29 item 11, decision 0065): 'Title must be at most 200 characters'.
 */
export const ARTICLE_LIMITS = {
  title: { min: 5, max: 200 },
  excerpt: { min: 10, max: 500 },
  content: { min: 50, max: 100_000 },
  category: { min: 2, max: 50 },
  readTime: { max: 30 },
  /** Search and social (decision 0096): about what search results show before cutting. */
  metaTitle: { max: 70 },
  metaDescription: { max: 160 },
  canonicalUrl: { max: 2_000 },
  /** Tags (decision 0100): each named like the category; at most this many in all, the category's included. */
  tags: { max: 10 },
} as const;

const atMost = (label: string, max: number) => `${label} must be at most ${max.toLocaleString('en-US')} characters`;

/** An optional text: blank or null means none (the fallback), stored as null. */
const optionalText = (label: string, max: number) =>
  z
    .string()
    .trim()
    .max(max, atMost(label, max))
    .nullable()
    .transform((value) => value || null);

/** An absolute http(s) URL, or none. */
const canonicalUrl = z
  .string()
  .trim()
  .max(ARTICLE_LIMITS.canonicalUrl.max, atMost('Canonical URL', ARTICLE_LIMITS.canonicalUrl.max))
  .refine((value) => value === '' || isAbsoluteHttpUrl(value), 'Canonical URL must be an absolute http:// or https:// address')
  .nullable()
  .transform((value) => value || null);

function isAbsoluteHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Search and social fields (decision 0096): none is required; each has a fallback. */
const seoFields = {
  metaTitle: optionalText('Meta title', ARTICLE_LIMITS.metaTitle.max),
  metaDescription: optionalText('Meta description', ARTICLE_LIMITS.metaDescription.max),
  canonicalUrl,
};

/**
 * Drafts, scheduling and preview links (issue 34 item 2, docs/decisions/0098). An article is a
 * draft, scheduled (public from `publishAt`) or published; SPEC's `published` stays, true iff
 * published. Sending `published` publishes or unpublishes now (and drops a schedule); sending
 * `publishAt` schedules a draft (or moves its time); `publishAt: null` makes it a draft again.
 */
export const ARTICLE_STATUSES = ['draft', 'scheduled', 'published'] as const;
export type TArticleStatus = (typeof ARTICLE_STATUSES)[number];
/** The furthest ahead an article may be scheduled. */
export const PUBLISH_AT_MAX_DAYS = 3660;

/** A time to publish at: an ISO date-time with its offset, in the future (checked again when saved). */
export const ZPublishAt = z
  .string()
  .refine((value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value)), {
    message: 'Publish time must be a date and time with its offset (ISO 8601)',
    abort: true,
  })
  .refine((value) => Date.parse(value) > Date.now(), 'Publish time must be in the future')
  .refine((value) => Date.parse(value) <= Date.now() + PUBLISH_AT_MAX_DAYS * 86_400_000, `Publish time must be within ${PUBLISH_AT_MAX_DAYS} days`)
  .nullable();

/**
 * Tags (issue 34 item 4, docs/decisions/0100): the category is the primary tag; `tags` names the
 * further ones, each with the category's length rule. Duplicates (in any case, or the category
 * again) are merged; at most ARTICLE_LIMITS.tags.max in all.
 */
export const TAGS_AT_MOST = `At most ${ARTICLE_LIMITS.tags.max} tags in all, the category included`;
const tagName = z
  .string()
  .trim()
  .min(ARTICLE_LIMITS.category.min, `Each tag must be at least ${ARTICLE_LIMITS.category.min} characters`)
  .max(ARTICLE_LIMITS.category.max, atMost('Each tag', ARTICLE_LIMITS.category.max));
const furtherTags = z
  .array(tagName)
  // A bound on what one request may send, before duplicates are merged and the real limit applies.
  .max(100, 'At most 100 tag names may be sent')
  .transform((names) => names.filter((name, i) => names.findIndex((other) => other.toLowerCase() === name.toLowerCase()) === i))
  .refine((names) => names.length <= ARTICLE_LIMITS.tags.max, TAGS_AT_MOST);

/** The cover (issue 34 item 3, docs/decisions/0099): an uploaded image and its alt text, which
 * is required when a cover is set. */
export const COVER_ALT_REQUIRED = 'Cover alt text is required when a cover image is set';
const coverFields = {
  coverImageId: z.uuid('Cover image id must be a UUID').nullable(),
  coverAlt: optionalText('Cover alt text', ARTICLE_IMAGE_LIMITS.coverAlt.max),
};
const coverAltWithCover = {
  check: (article: { coverImageId?: string | null | undefined; coverAlt?: string | null | undefined }) => !(typeof article.coverImageId === 'string' && !article.coverAlt),
  issue: { message: COVER_ALT_REQUIRED, path: ['coverAlt'] },
};

/** Each field's rule once; create adds the defaults, update takes any subset without them. */
const articleFields = {
  title: z
    .string()
    .trim()
    .min(ARTICLE_LIMITS.title.min, 'Title must be at least 5 characters')
    .max(ARTICLE_LIMITS.title.max, atMost('Title', ARTICLE_LIMITS.title.max)),
  category: z
    .string()
    .trim()
    // SPEC's 'Category is required' when empty; one letter is not empty, so it gets the limit.
    .min(1, { message: 'Category is required', abort: true })
    .min(ARTICLE_LIMITS.category.min, `Category must be at least ${ARTICLE_LIMITS.category.min} characters`)
    .max(ARTICLE_LIMITS.category.max, atMost('Category', ARTICLE_LIMITS.category.max)),
  readTime: z
    .string()
    .trim()
    .max(ARTICLE_LIMITS.readTime.max, atMost('Read time', ARTICLE_LIMITS.readTime.max))
    .transform((value) => value || DEFAULT_READ_TIME),
  excerpt: z
    .string()
    .trim()
    .min(ARTICLE_LIMITS.excerpt.min, 'Excerpt must be at least 10 characters')
    .max(ARTICLE_LIMITS.excerpt.max, atMost('Excerpt', ARTICLE_LIMITS.excerpt.max)),
  content: z
    .string()
    .min(ARTICLE_LIMITS.content.min, 'Content must be at least 50 characters')
    .max(ARTICLE_LIMITS.content.max, atMost('Content', ARTICLE_LIMITS.content.max)),
  published: z.boolean(),
  publishAt: ZPublishAt,
  ...seoFields,
  tags: furtherTags,
  ...coverFields,
};

/** Publishing now and at a time are two different choices: one at a time. */
const oneWayToPublish = {
  check: (article: { published?: boolean | undefined; publishAt?: string | null | undefined }) => !(article.published === true && typeof article.publishAt === 'string'),
  issue: { message: 'Choose to publish now or at a time, not both', path: ['publishAt'] },
};

export const ZArticleInput = z
  .object({
    ...articleFields,
    readTime: articleFields.readTime.default(DEFAULT_READ_TIME),
    published: articleFields.published.default(false),
    publishAt: articleFields.publishAt.optional(),
    metaTitle: seoFields.metaTitle.optional().transform((value) => value ?? null),
    metaDescription: seoFields.metaDescription.optional().transform((value) => value ?? null),
    canonicalUrl: seoFields.canonicalUrl.optional().transform((value) => value ?? null),
    tags: furtherTags.default([]),
    coverImageId: coverFields.coverImageId.optional().transform((value) => value ?? null),
    coverAlt: coverFields.coverAlt.optional().transform((value) => value ?? null),
  })
  .refine(oneWayToPublish.check, oneWayToPublish.issue)
  .refine(coverAltWithCover.check, coverAltWithCover.issue);
/** What the form holds (before defaults). */
export type TArticleInput = z.input<typeof ZArticleInput>;

/** POST /api/articles: SPEC's client also sends authorId; the server takes the author from the
 * session, so the field is accepted and dropped. */
export const ZCreateArticle = ZArticleInput.safeExtend({ authorId: z.unknown().optional() }).transform(({ authorId: _ignored, ...article }) => article);

/** PATCH /api/articles/:id: any subset of the fields, at least one; a missing field stays as
 * it is (no defaults here, or an edit would quietly unpublish). `publishAt: null` unschedules. */
export const ZUpdateArticle = z
  .object(articleFields)
  .partial()
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, 'Send at least one field to change')
  .refine(oneWayToPublish.check, oneWayToPublish.issue)
  .refine(coverAltWithCover.check, coverAltWithCover.issue);

export const ZArticleIdParams = z.object({ id: z.uuid('Article id must be a UUID') });
export const ZArticleSlugParams = z.object({ slug: z.string().min(1).max(200) });

/** An article as GET /api/articles lists it (published articles only, newest first). */
export const ZArticleSummary = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  category: z.string(),
  excerpt: z.string(),
  createdAt: z.string(),
  /** When it went public (the date the public pages show); the creation date before 0098. */
  publishedAt: z.string(),
  readTime: z.string(),
  /** Its cover with its size and alt text, or null (docs/decisions/0099). */
  cover: ZArticleCover.nullable(),
});
export type TArticleSummary = z.infer<typeof ZArticleSummary>;

/** A tag as an article shows it (decision 0100): its page is /insights/tag/<slug>. */
export const ZArticleTag = z.object({ name: z.string(), slug: z.string() });
export type TArticleTag = z.infer<typeof ZArticleTag>;
/** Who wrote an article, as its page shows them: `picture` an https address, or null (initials). */
export const ZArticleAuthor = z.object({ name: z.string(), picture: z.string().nullable() });
export type TArticleAuthor = z.infer<typeof ZArticleAuthor>;
/** An article sharing tags with the one shown (its page's "Related articles"). */
export const ZRelatedArticle = ZArticleSummary.pick({ slug: true, title: true, excerpt: true, category: true, publishedAt: true });
export type TRelatedArticle = z.infer<typeof ZRelatedArticle>;

/** GET /api/articles/tag/:slug (decision 0100): a page of a tag's published articles, newest
 * first, with the tag and how many there are in all. */
export type TArticleTagPage = { tag: TArticleTag; items: TArticleSummary[]; total: number };
export const ZTagPageParams = z.object({ slug: z.string().min(1).max(200) });

/** A published article as its public page shows it, and nothing more (no author id); its meta
 * title and description are the page's title and description (decision 0096). */
export const ZPublicArticle = ZArticleSummary.extend({ content: z.string(), metaTitle: z.string().nullable(), metaDescription: z.string().nullable() }).extend({
  /** Every tag, the primary (the category's) first (decision 0100). */
  tags: z.array(ZArticleTag),
  /** The public page's reads only: its author (null when the account is gone: "Unknown author")
   * and up to 3 published articles sharing the most tags with it. */
  author: ZArticleAuthor.nullable().optional(),
  related: z.array(ZRelatedArticle).optional(),
});
export type TPublicArticle = z.infer<typeof ZPublicArticle>;

/** A whole article: the admin's editor and list, and an admin's preview of its page. */
export const ZArticle = ZPublicArticle.extend({
  published: z.boolean(),
  status: z.enum(ARTICLE_STATUSES),
  /** When a scheduled article goes public; null unless scheduled. */
  publishAt: z.string().nullable(),
  authorId: z.string().nullable(),
  updatedAt: z.string(),
  canonicalUrl: z.string().nullable(),
  coverImageId: z.string().nullable(),
  coverAlt: z.string().nullable(),
});
export type TArticle = z.infer<typeof ZArticle>;

export const ZArticleListQuery = z.object({
  limit: z.coerce.number().int('Limit must be a whole number').min(1, 'Limit must be at least 1').max(100, 'Limit must be at most 100').optional(),
  offset: z.coerce.number().int('Offset must be a whole number').min(0, 'Offset must be at least 0').max(100_000, 'Offset must be at most 100,000').optional(),
});

/**
 * Revisions (issue 34 item 6, docs/decisions/0097): every save that changes what an admin writes
 * keeps the article's text as it was saved; the newest ARTICLE_REVISIONS_KEPT of each article
 * are kept. The publication state is not part of a revision: restoring one changes the text only.
 */
export const ARTICLE_REVISIONS_KEPT = 20;

/** The fields a revision keeps. */
export const ZArticleRevisionFields = z.object({
  title: z.string(),
  category: z.string(),
  excerpt: z.string(),
  content: z.string(),
  readTime: z.string(),
  /** The further tags' names (decision 0100); absent in revisions saved before tags existed. */
  tags: z.array(z.string()).optional(),
  /** The cover (docs/decisions/0099); absent in revisions kept before covers: restoring one leaves the cover as it is. */
  coverImageId: z.string().nullable().optional(),
  coverAlt: z.string().nullable().optional(),
});
export type TArticleRevisionFields = z.infer<typeof ZArticleRevisionFields>;
export const ARTICLE_REVISION_FIELDS = Object.keys(ZArticleRevisionFields.shape) as Array<keyof TArticleRevisionFields>;

/** A revision as the list shows it: when, and who saved it (null when that account is gone). */
export const ZArticleRevisionSummary = z.object({
  id: z.string(),
  /** 1 for the article as created, then one more for each save that changed its text. */
  number: z.number().int(),
  createdAt: z.string(),
  author: z.object({ id: z.string(), name: z.string() }).nullable(),
});
export type TArticleRevisionSummary = z.infer<typeof ZArticleRevisionSummary>;

/** GET /api/admin/articles/:id/revisions: newest first. */
export const ZArticleRevisionList = z.object({ revisions: z.array(ZArticleRevisionSummary) });
export type TArticleRevisionList = z.infer<typeof ZArticleRevisionList>;

/** GET /api/admin/articles/:id/revisions/:revisionId: one revision with its text, to compare. */
export const ZArticleRevision = ZArticleRevisionSummary.extend({ fields: ZArticleRevisionFields });
export type TArticleRevision = z.infer<typeof ZArticleRevision>;

export const ZArticleRevisionParams = z.object({
  id: z.uuid('Article id must be a UUID'),
  revisionId: z.uuid('Revision id must be a UUID'),
});

/** A preview link as the editor lists it (the token is shown once, when it is created). */
export const ZPreviewLink = z.object({
  id: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  /** Who created it (null when that account is gone). */
  createdBy: z.object({ id: z.string(), name: z.string() }).nullable(),
});
export type TPreviewLink = z.infer<typeof ZPreviewLink>;

/** POST /api/admin/articles/:id/preview-links: the new link with its address, shown once. */
export const ZCreatedPreviewLink = ZPreviewLink.extend({ url: z.string() });
export type TCreatedPreviewLink = z.infer<typeof ZCreatedPreviewLink>;

/** GET /api/admin/articles/:id/preview-links: the links that still work, newest first. */
export const ZPreviewLinkList = z.object({ links: z.array(ZPreviewLink) });
export type TPreviewLinkList = z.infer<typeof ZPreviewLinkList>;

export const ZPreviewLinkParams = z.object({
  id: z.uuid('Article id must be a UUID'),
  linkId: z.uuid('Preview link id must be a UUID'),
});

/** GET /api/preview/:token: the article as its page shows it, and whether it is a draft or
 * scheduled (and when), for the page's "Preview" banner. */
export const ZPreviewArticle = ZPublicArticle.extend({ status: z.enum(ARTICLE_STATUSES), publishAt: z.string().nullable() });
export type TPreviewArticle = z.infer<typeof ZPreviewArticle>;

/** A preview link's token: 32 random bytes, base64url. */
export const ZPreviewTokenParams = z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'Preview token must be 43 base64url characters') });

