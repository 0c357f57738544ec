import { createHash } from 'node:crypto';

/** A readable URL slug from a title: lower-case ASCII words joined by hyphens, at most 80
 * characters, never empty. Accents are folded ("Café" -> "cafe"). */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug || 'article';
}

/** The candidates tried in turn when a slug is taken: base, base-2, base-3, ... */
export function slugCandidate(base: string, attempt: number): string {
  return attempt === 0 ? base : `${base}-${attempt + 1}`;
}

/**
 * A tag's slug (docs/decisions/0100): slugify's rules, so names that differ only in case or
 * punctuation are one tag; a name with no ASCII letter or digit ("日本") gets "tag-" and 8 hex
 * digits of its MD5 instead. Migration 0031 makes the same slugs in SQL.
 */
export function tagSlug(name: string): string {
  const slug = slugify(name);
  return slug === 'article' && !/[a-z0-9]/i.test(name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '')) ? `tag-${createHash('md5').update(name).digest('hex').slice(0, 8)}` : slug;
}
