import { randomUUID } from 'node:crypto';
import type { TArticle } from '../../contracts/articles.ts';
import { expect, gotoPublicPage, test, toasts } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 34 item 4 (docs/decisions/0100): an admin tags an article in the form; a reader sees its
// author and tags, opens a tag's page (with its feed) from the article, and finds the related
// articles at the article's end.

const TEXT = { excerpt: 'An article about tags and who wrote it.', content: `# Tagged\n\n${'A paragraph about tagging articles well. '.repeat(3)}` };

test('an admin tags an article; a reader sees its author and tags, opens a tag page from it and finds related articles', async ({ page, login, admin, baseURL, openPage }, testInfo) => {
  await login(page, admin);
  const headers = { origin: new URL(baseURL!).origin };
  const id = randomUUID().slice(0, 6);
  const tag = `Journey tag ${id}`;
  const tagSlug = `journey-tag-${id}`;
  // Another published article sharing the tag: related to the one written below.
  const other = await page.request.post('/api/articles', { headers, data: { title: `Related journey ${id}`, category: `Other ${id}`, tags: [tag], published: true, ...TEXT } });
  expect(other.status()).toBe(201);
  const related = (await other.json()) as TArticle;
  let article: TArticle | undefined;
  try {
    await page.goto('/create-article');
    const title = `Tagged journey ${id}`;
    await page.getByLabel('Title', { exact: true }).fill(title);
    await page.getByLabel('Category').fill(`Primary ${id}`);
    const tags = page.getByRole('textbox', { name: 'Tags' });
    await tags.fill(tag);
    await tags.press('Enter');
    await tags.fill('Second tag');
    await tags.press(',');
    await tags.fill('Dropped');
    await tags.press('Enter');
    await tags.press('Backspace'); // the last chip off, from the keyboard
    await expect(page.getByRole('list', { name: 'Tags added' }).getByRole('listitem')).toHaveText([tag, 'Second tag']);
    await expectNoSeriousViolations(page, testInfo, 'the tags field', 'form');
    await page.getByLabel('Excerpt').fill(TEXT.excerpt);
    await page.getByLabel('Content', { exact: true }).fill(TEXT.content);
    await page.getByRole('switch', { name: 'Publish Article' }).click();
    const created = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/articles' && res.request().method() === 'POST');
    await page.getByRole('button', { name: 'Create Article' }).click();
    article = (await (await created).json()) as TArticle;
    expect(article.tags.map((t) => t.name)).toEqual([`Primary ${id}`, tag, 'Second tag']);
    await expect(toasts(page).getByText('Article created successfully')).toBeVisible();

    // A signed-out reader gets the page the server rendered.
    const reader = await openPage();
    await gotoPublicPage(reader, `/insights/${article.slug}`);
    const shown = reader.getByRole('article');
    await expect(shown.getByText(`By ${admin.name}`)).toBeVisible();
    const tagLinks = shown.getByRole('navigation', { name: 'Tags' }).getByRole('link');
    await expect(tagLinks).toHaveText([`Primary ${id}`, tag, 'Second tag']);
    const relatedSection = reader.getByRole('region', { name: 'Related articles' });
    await expect(relatedSection.getByRole('link', { name: related.title })).toHaveAttribute('href', `/insights/${related.slug}`);
    await expectNoSeriousViolations(reader, testInfo, 'an article with tags, author and related articles', 'article');

    await tagLinks.filter({ hasText: tag }).click();
    await expect(reader).toHaveURL(new RegExp(`/insights/tag/${tagSlug}$`));
    await expect(reader.getByRole('heading', { level: 1, name: `Articles tagged ${tag}` })).toBeVisible();
    await expect(reader.getByRole('heading', { level: 2 })).toHaveText([title, related.title]);
    await expect(reader.locator('link[rel="alternate"][type="application/rss+xml"]')).toHaveAttribute('href', new RegExp(`/insights/tag/${tagSlug}/rss.xml$`));
    await expectNoSeriousViolations(reader, testInfo, 'a tag page', 'main');
    const feed = await reader.request.get(`/insights/tag/${tagSlug}/rss.xml`);
    expect(feed.headers()['content-type']).toBe('application/rss+xml; charset=utf-8');
    expect(await feed.text()).toContain(`/insights/${article.slug}</link>`);

    // The admin, signed in, sees the same in the app.
    await page.goto(`/insights/${article.slug}`);
    await expect(page.getByRole('article').getByRole('navigation', { name: 'Tags' }).getByRole('link')).toHaveText([`Primary ${id}`, tag, 'Second tag']);
    await expect(page.getByRole('region', { name: 'Related articles' }).getByRole('link', { name: related.title })).toBeVisible();
  } finally {
    await page.request.delete(`/api/articles/${related.id}`, { headers });
    if (article) await page.request.delete(`/api/articles/${article.id}`, { headers });
  }
});
