import { randomUUID } from 'node:crypto';
import type { TArticle } from '../../contracts/articles.ts';
import { expect, expectFitsViewport, PHONE_VIEWPORT, test, toasts } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 34 item 6: an admin sees an article's revisions under its form, compares an older one
// with the saved text, and restores it; the form and the public page show the restored text.

const FIRST = `The first version of the paragraph, written before anything was changed.`;
const SECOND = `The second version of the paragraph, after the editor rewrote it.`;

test('an admin compares an older revision with the saved text and restores it', async ({ page, login, admin, baseURL }, testInfo) => {
  await login(page, admin);
  const headers = { origin: new URL(baseURL!).origin };
  const title = `Revisions journey ${randomUUID().slice(0, 6)}`;
  const created = await page.request.post('/api/articles', {
    headers,
    data: { title, category: 'Automation', excerpt: 'An article written twice over.', content: `# Revisions\n\n${FIRST}`, published: true },
  });
  expect(created.status()).toBe(201);
  const article = (await created.json()) as TArticle;
  try {
    await page.goto(`/admin/articles/${article.id}/edit`);
    const content = page.getByLabel('Content');
    await content.fill(`# Revisions\n\n${SECOND}`);
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(toasts(page).getByText('Article updated successfully')).toBeVisible();

    await page.goto(`/admin/articles/${article.id}/edit`);
    const revisions = page.getByRole('list', { name: 'Revisions of this article' });
    await expect(revisions.getByRole('listitem')).toHaveCount(2);
    await expect(revisions.getByRole('listitem').first()).toContainText('Revision 2 (the saved text)');
    await revisions.getByRole('button', { name: 'Compare revision 1 with the saved text' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revision 1 and the saved text' });
    await expect(dialog.locator('del')).toContainText(SECOND);
    await expect(dialog.locator('ins')).toContainText(FIRST);
    await expectNoSeriousViolations(page, testInfo, 'comparing a revision', '[role="dialog"]');
    const desktop = page.viewportSize()!;
    await page.setViewportSize(PHONE_VIEWPORT);
    await expectFitsViewport(page, 'comparing a revision, on a phone');
    await page.setViewportSize(desktop);

    await dialog.getByRole('button', { name: 'Restore revision 1' }).click();
    await expect(toasts(page).getByText('Revision 1 restored')).toBeVisible();
    await expect(dialog).toBeHidden();
    // The form starts again from the restored text, and the restore is a revision of its own.
    await expect(content).toHaveValue(`# Revisions\n\n${FIRST}`);
    await expect(revisions.getByRole('listitem')).toHaveCount(3);
    await page.goto(`/insights/${article.slug}`);
    await expect(page.getByRole('main').getByText(FIRST)).toBeVisible();
  } finally {
    await page.request.delete(`/api/articles/${article.id}`, { headers });
  }
});
