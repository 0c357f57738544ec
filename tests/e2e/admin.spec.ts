import { expect, test, toasts } from './fixtures.ts';

// Beyond SPEC: an admin grants roles (otherwise nobody could without touching the database)
// and watches AI usage.

test.describe('administration', () => {
  test('an admin makes a guest an admin, who then sees the admin features', async ({ page, openPage, login, admin, guest }) => {
    const guestPage = await openPage();
    await login(guestPage, guest);
    await guestPage.goto('/dashboard');
    await expect(guestPage.getByText('Requires Admin').first()).toBeVisible();

    await login(page, admin);
    await page.goto('/admin/users');
    await expect(page.getByRole('heading', { level: 1, name: 'Users' })).toBeVisible();
    // The e2e server runs the default chat policy: DeepSeek and Llama are open to guests.
    await expect(page.getByText(/^Everyone who has signed in\./)).toContainText('guests can use the DeepSeek and Llama chats and see the dashboard.');
    const role = page.getByRole('combobox', { name: `Role for ${guest.name}` });
    await expect(role).toHaveValue('guest');
    await role.selectOption('admin');
    await expect(toasts(page).getByText('Role updated')).toBeVisible();

    // The role is read fresh on every request: a reload is enough.
    await guestPage.reload();
    await expect(guestPage.getByText('Admin Access').first()).toBeVisible();
    await guestPage.goto('/chat-console');
    // The chat itself, then no denial: right after the navigation the denial may not have rendered yet.
    await expect(guestPage.getByLabel('Message GPT')).toBeVisible();
    await expect(guestPage.getByRole('heading', { name: 'Access Denied' })).toHaveCount(0);
    await guestPage.close();
  });

  test('an admin sees AI usage per user and model after a chat', async ({ page, login, admin }) => {
    await login(page, admin);
    await page.goto('/chat-console');
    const input = page.getByLabel('Message GPT');
    await input.fill('Count my tokens');
    await input.press('Enter');
    await expect(page.getByRole('log', { name: 'Messages' }).getByText('Reply to: Count my tokens')).toBeVisible();

    await page.goto('/admin/usage');
    await expect(page.getByRole('heading', { level: 1, name: 'Usage' })).toBeVisible();
    const row = page.getByRole('row').filter({ hasText: admin.email }).filter({ hasText: 'gpt-4o' });
    await expect(row.first()).toBeVisible();
  });
});
