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
