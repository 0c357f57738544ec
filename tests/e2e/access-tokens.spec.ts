import { expect, test, toasts } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';

// Issue 31, docs/decisions/0078: Settings → Access tokens, and the token at work on /mcp as an
// outside MCP client would send it (a bearer header, no cookie, no Origin).

type ClipboardWindow = { navigator: { clipboard: { readText(): Promise<string> } } };

test.describe('access tokens', () => {
  test('an owner creates a token, copies it once, an MCP client uses it, and it is refused once revoked', async ({ page, context, login, owner, request, baseURL }, testInfo) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await login(page, owner);
    await page.goto('/settings');
    const section = page.getByRole('region', { name: 'Access tokens' });
    await expect(section.getByText('No access tokens yet.')).toBeVisible();
    await expect(section.getByText(`${baseURL}/mcp`)).toBeVisible();

    const form = section.getByRole('form', { name: 'Create an access token' });
    await form.getByRole('textbox', { name: 'Name' }).fill('Claude Desktop');
    await form.getByRole('radio', { name: /^Read \+ propose/ }).check();
    await form.getByRole('combobox', { name: 'Expires after' }).selectOption('90 days');
    await form.getByRole('button', { name: 'Create token' }).click();

    const shown = section.getByRole('alert');
    await expect(shown).toContainText('Copy it now: it will not be shown again.');
    const token = (await shown.getByLabel('New access token').textContent())!.trim();
    expect(token).toMatch(/^agt_[A-Za-z0-9_-]{43}$/);
    // Before any toast: a success toast's green text fails contrast on its own (not this screen's).
    await expectNoSeriousViolations(page, testInfo, 'settings: a new access token');
    await shown.getByRole('button', { name: 'Copy' }).click();
    await expect(toasts(page).getByText('Access token copied')).toBeVisible();
    expect(await page.evaluate(() => (globalThis as unknown as ClipboardWindow).navigator.clipboard.readText())).toBe(token);
    await shown.getByRole('button', { name: 'Done' }).click();

    const row = section.getByRole('list', { name: 'Your access tokens' }).getByRole('listitem');
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('Claude Desktop');
    await expect(row).toContainText('Read + propose');
    await expect(row).toContainText('Never used');
    await expect(row).toContainText(`agt_${token.slice(4, 12)}…`);
    // Shown once: after a reload the page holds no secret.
    await page.reload();
    await expect(row).toContainText('Claude Desktop');
    expect(await page.content()).not.toContain(token);

    // An MCP client: its bearer header, no cookie, no Origin.
    const mcp = (bearer: string) =>
      request.post('/mcp', {
        headers: { authorization: `Bearer ${bearer}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', cookie: '' },
        data: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } },
      });
    const answered = await mcp(token);
    expect(answered.status()).toBe(200);
    expect(((await answered.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe('axiom-agents');
    await page.reload();
    await expect(row).toContainText('Last used');

    await row.getByRole('button', { name: 'Revoke Claude Desktop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke Claude Desktop?' });
    await expect(dialog).toContainText('Clients using it are refused from their next request.');
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await expect(toasts(page).getByText('Access token revoked')).toBeVisible();
    await expect(section.getByText('No access tokens yet.')).toBeVisible();
    const refused = await mcp(token);
    expect(refused.status()).toBe(401);
    expect(refused.headers()['www-authenticate']).toContain('Bearer');
  });

  test('a guest may hold a token and is told it reaches no tools', async ({ page, login, guest }) => {
    await login(page, guest);
    await page.goto('/settings');
    const section = page.getByRole('region', { name: 'Access tokens' });
    await expect(section.getByText('The agent tools need the admin role: while you are signed in as guest, your tokens reach no tools.')).toBeVisible();
    await section.getByRole('textbox', { name: 'Name' }).fill('Guest laptop');
    await section.getByRole('button', { name: 'Create token' }).click();
    await expect(section.getByLabel('New access token')).toContainText(/^agt_/);
  });
});
