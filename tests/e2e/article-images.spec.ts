import { randomUUID } from 'node:crypto';
import type { Locator } from '@playwright/test';
import type { TArticle } from '../../contracts/articles.ts';
import { makePng } from '../fakes/sample-images.ts';
import { expect, test, toasts } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 34 item 3: an admin adds a cover with its alt text and an image in the text; readers see
// the cover first on the article's page and on its card, every image in the widths it needs.

type ImageElement = { complete: boolean; naturalWidth: number; currentSrc: string };
/**
 * An upload's processing (decoded, resized to each width, encoded as WebP and JPEG) is seconds of
 * CPU for these noisy test images, and several times that while the suite's other workers and the
 * container images' build share the machine's two cores (7 s were not enough in a whole run). The
 * server allows an image 60 s; the journey waits up to this long for each upload to be done.
 */
const UPLOAD = { timeout: 25_000 };
const loaded = (img: Locator) => img.evaluate((el) => (el as unknown as ImageElement).complete && (el as unknown as ImageElement).naturalWidth > 0);

test.describe('article images', () => {
  test('add a cover and its alt text and an image in the content, save, see them on the page and the /insights card', async ({ page, login, admin }, testInfo) => {
    test.slow(); // two uploads' processing: see UPLOAD
    const title = `Images journey ${randomUUID().slice(0, 6)}`;
    await login(page, admin);
    await page.goto('/create-article');
    await page.getByLabel('Title', { exact: true }).fill(title);
    await page.getByLabel('Category').fill('Automation');
    await page.getByLabel('Excerpt').fill('An article with a cover and a picture.');
    const content = page.getByRole('textbox', { name: 'Content' });
    await content.fill('Manual entry costs hours every week, and mistakes cost more.\n\n');

    // The cover: chosen, seen, its alt text required.
    await page.getByLabel('Cover image file').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: makePng(1280, 640) });
    const preview = page.getByRole('img', { name: 'Cover preview' });
    await expect(preview).toBeVisible(UPLOAD);
    await expect.poll(() => loaded(preview)).toBe(true);
    await page.getByRole('switch', { name: 'Publish Article' }).click();
    await page.getByRole('button', { name: 'Create Article' }).click();
    await expect(page.getByText('Cover alt text is required when a cover image is set')).toBeVisible();
    await page.getByLabel('Cover alt text').fill('A ledger with the invoices of a week');

    // An image in the text, at the cursor, its alt text selected to type over.
    await content.press('End');
    await page.getByLabel('Image file to insert').setInputFiles({ name: 'chart.png', mimeType: 'image/png', buffer: makePng(800, 400) });
    await expect(content).toHaveValue(/!\[Describe this image\]\(\/media\/articles\/[0-9a-f-]{36}\/720\.webp#800x400\)$/, UPLOAD);
    await page.keyboard.type('A chart of hours saved');
    await expect(content).toHaveValue(/!\[A chart of hours saved\]\(\/media\/articles\/[0-9a-f-]{36}\/720\.webp#800x400\)$/);
    const inPreview = page.getByRole('region', { name: 'Preview', exact: true }).getByRole('img', { name: 'A chart of hours saved' });
    await expect(inPreview).toHaveAttribute('srcset', /480\.webp 480w, .*720\.webp 720w, .*800\.webp 800w/);
    await expectNoSeriousViolations(page, testInfo, 'article-images-form');

    const created = page.waitForResponse((res) => res.request().method() === 'POST' && new URL(res.url()).pathname === '/api/articles');
    await page.getByRole('button', { name: 'Create Article' }).click();
    const article = (await (await created).json()) as TArticle;
    try {
      await expect(toasts(page).getByText('Article created successfully')).toBeVisible();
      expect(article.coverAlt).toBe('A ledger with the invoices of a week');

      // The page as a reader gets it from the server: the cover first, sized, every width.
      await page.context().clearCookies();
      await page.goto(`/insights/${article.slug}`);
      const cover = page.getByRole('img', { name: 'A ledger with the invoices of a week' });
      await expect(cover).toHaveAttribute('fetchpriority', 'high');
      await expect(cover).toHaveAttribute('width', '1280');
      await expect(cover).toHaveAttribute('height', '640');
      await expect(cover).toHaveAttribute('srcset', /480\.webp 480w, .*720\.webp 720w, .*960\.webp 960w, .*1280\.webp 1280w/);
      await expect.poll(() => loaded(cover)).toBe(true);
      const picture = page.getByRole('img', { name: 'A chart of hours saved' });
      await expect(picture).toHaveAttribute('loading', 'lazy');
      await picture.scrollIntoViewIfNeeded();
      await expect.poll(() => loaded(picture)).toBe(true);
      await expectNoSeriousViolations(page, testInfo, 'article-images-page');

      await page.goto('/insights');
      const card = page.getByRole('listitem').filter({ hasText: title }).getByRole('img', { name: 'A ledger with the invoices of a week' });
      await expect(card).toHaveAttribute('loading', 'lazy');
      await card.scrollIntoViewIfNeeded();
      await expect.poll(() => loaded(card)).toBe(true);
    } finally {
      await login(page, admin);
      await page.request.delete(`/api/articles/${article.id}`, { headers: { origin: new URL(page.url()).origin } });
    }
  });
});
