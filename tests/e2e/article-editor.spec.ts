import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import type { TArticle } from '../../contracts/articles.ts';
import { expect, expectFitsViewport, PHONE_VIEWPORT, test, toasts } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 34 item 1: an admin writes an article in the Markdown editor with its toolbar and
// shortcuts, sees it rendered beside the text, loses the tab mid-edit and gets the work back.

/** What the journey reads in the page (tests have no DOM types). */
type EditorWindow = { localStorage: { length: number; key(i: number): string | null; getItem(key: string): string | null } };

/** The unsaved work kept in the page's local storage for a new article, or null. */
const keptWork = (page: Page) =>
  page.evaluate(() => {
    const storage = (globalThis as unknown as EditorWindow).localStorage;
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i);
      if (key?.startsWith('article-unsaved:') && key.endsWith(':new')) return JSON.parse(storage.getItem(key)!) as { values: { content?: string } };
    }
    return null;
  });

/** Selects `text` (its first occurrence) in a textarea, as a person dragging over it would. */
async function select(textarea: Locator, text: string): Promise<void> {
  await textarea.evaluate((el, wanted) => {
    const area = el as unknown as { value: string; focus(): void; setSelectionRange(a: number, b: number): void };
    const at = area.value.indexOf(wanted);
    if (at < 0) throw new Error(`"${wanted}" is not in the text`);
    area.focus();
    area.setSelectionRange(at, at + wanted.length);
  }, text);
}

test.describe('article editor', () => {
  test('write with the toolbar and a shortcut, see the preview, reload mid-edit and restore, then save', async ({ page, login, admin }, testInfo) => {
    const title = `Editor journey ${randomUUID().slice(0, 6)}`;
    await login(page, admin);
    await page.goto('/create-article');
    await page.getByLabel('Title', { exact: true }).fill(title);
    await page.getByLabel('Category').fill('Automation');
    await page.getByLabel('Excerpt').fill('Writing with a preview beside the text.');

    const content = page.getByRole('textbox', { name: 'Content' });
    const toolbar = page.getByRole('toolbar', { name: 'Formatting' });
    const preview = page.getByRole('region', { name: 'Preview', exact: true });
    await content.fill('Why we automate');
    await select(content, 'Why we automate');
    await toolbar.getByRole('button', { name: 'Heading' }).click();
    await expect(content).toHaveValue('## Why we automate');

    await content.press('End');
    await content.pressSequentially('\n\nManual entry costs hours every week, and mistakes cost more.\n\nCaptures the PDF\nPosts to the ledger');
    await select(content, 'hours');
    await content.press('Control+b');
    await expect(content).toHaveValue(/costs \*\*hours\*\* every/);
    // The edit went through the browser's own editing: undo takes it back, redo makes it again.
    await content.press('Control+z');
    await expect(content).toHaveValue(/costs hours every/);
    await content.press('Control+Shift+z');
    await expect(content).toHaveValue(/costs \*\*hours\*\* every/);

    await select(content, 'Captures the PDF\nPosts to the ledger');
    // The toolbar from the keyboard: one tab stop, arrows along it.
    await toolbar.getByRole('button', { name: 'Bold' }).focus();
    await page.keyboard.press('End');
    await expect(toolbar.getByRole('button', { name: 'Numbered list' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(content).toHaveValue(/\n1\. Captures the PDF\n2\. Posts to the ledger$/);

    // The preview, beside the text on a wide screen, draws it as the article page will.
    await expect(preview.getByRole('heading', { level: 2, name: 'Why we automate' })).toBeVisible();
    await expect(preview.locator('strong')).toHaveText('hours');
    await expect(preview.getByRole('listitem')).toHaveText(['Captures the PDF', 'Posts to the ledger']);
    const [textBox, previewBox] = [await content.boundingBox(), await preview.boundingBox()];
    expect(previewBox!.x, 'the preview is to the right of the text').toBeGreaterThan(textBox!.x + textBox!.width);
    await expectNoSeriousViolations(page, testInfo, 'article-editor');

    // The tab is lost mid-edit: the work comes back on request.
    const written = await content.inputValue();
    await expect.poll(async () => (await keptWork(page))?.values.content).toBe(written);
    await page.reload();
    await expect(page.getByText(/^Restore unsaved changes from .+\?$/)).toBeVisible();
    await expect(page.getByLabel('Title', { exact: true })).toHaveValue('');
    await page.getByRole('button', { name: 'Restore' }).click();
    await expect(page.getByLabel('Title', { exact: true })).toHaveValue(title);
    await expect(content).toHaveValue(written);
    await expect(preview.locator('strong')).toHaveText('hours');

    const created = page.waitForResponse((res) => res.request().method() === 'POST' && new URL(res.url()).pathname === '/api/articles');
    await page.getByRole('button', { name: 'Create Article' }).click();
    const article = (await (await created).json()) as TArticle;
    try {
      await expect(toasts(page).getByText('Article created successfully')).toBeVisible();
      await expect(page).toHaveURL(/\/dashboard$/);
      expect(article.content).toBe(written);
      // Saved: nothing is kept or offered any more.
      expect(await keptWork(page)).toBeNull();
      await page.goto('/create-article');
      await expect(page.getByLabel('Title', { exact: true })).toHaveValue('');
      await expect(page.getByText(/Restore unsaved changes/)).toHaveCount(0);
    } finally {
      await page.request.delete(`/api/articles/${article.id}`, { headers: { origin: new URL(page.url()).origin } });
    }
  });

  test('on a phone the editor fits the screen, the preview under the text', async ({ page, login, admin }, testInfo) => {
    await page.setViewportSize(PHONE_VIEWPORT);
    await login(page, admin);
    await page.goto('/create-article');
    const content = page.getByRole('textbox', { name: 'Content' });
    await content.fill('## A heading long enough to wrap on a narrow phone screen\n\nA paragraph with a https://example.com/a/very/long/address/that/must/not/widen/the/page link.\n\n| Step | Before | After | Saved |\n| --- | --- | --- | --- |\n| Entry | 10 min | 0 min | 10 min |');
    const preview = page.getByRole('region', { name: 'Preview', exact: true });
    // The region's own title is a heading too: the article's is found by its words.
    await expect(preview.getByRole('heading', { level: 2, name: /^A heading long enough to wrap/ })).toBeVisible();
    // Both read in one go: two boundingBox calls apart may see the page scrolled in between (the
    // browser brings the filled text's end into view when it lays out).
    const gap = await preview.evaluate((el, text) => el.getBoundingClientRect().top - text.getBoundingClientRect().bottom, await content.elementHandle());
    expect(gap, 'the preview is under the text').toBeGreaterThan(0);
    await expect(page.getByRole('toolbar', { name: 'Formatting' }).getByRole('button')).toHaveCount(8);
    await expectFitsViewport(page, '/create-article (editor)');
    await expectNoSeriousViolations(page, testInfo, 'article-editor-phone');
  });
});
