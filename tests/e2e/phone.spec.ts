import { randomUUID } from 'node:crypto';
import type { APIRequestContext, Page } from '@playwright/test';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import { expect, expectFitsViewport, PHONE_VIEWPORT, siteHeader, test } from './fixtures.ts';

// Issue 13: every screen fits a phone (390 x 844) with no sideways scrolling, with content of
// the length people really write: long titles, names and addresses, URLs and code.

test.use({ viewport: PHONE_VIEWPORT });

const LONG_TITLE =
  'How a regional logistics cooperative automated invoice reconciliation across fourteen warehouses and cut its month-end close from nine days to two';
const LONG_CATEGORY = 'Finance operations and analytics';
const LONG_EXCERPT =
  'The finance team of a logistics cooperative retyped thousands of supplier invoices every month. We connected their mailbox, their ERP and their bank feed, and taught a model to match what it could and to ask about the rest.';
const LONG_URL = 'https://example.com/reports/2025/finance/invoice-reconciliation/automation-case-study?source=insights&utm_campaign=phone-layout-check';
const CONTENT = `## Where the days went

Every invoice was opened, read and typed into the ledger by hand; a mismatch between the purchase order and the delivery note sent it back to the warehouse by email. The full report is at ${LONG_URL}.

| Step | Before automation | After automation | Who does it now |
| --- | --- | --- | --- |
| Capture | 10 minutes per invoice | under a second | the mailbox connector |
| Matching | 25 minutes per invoice | 2 minutes for the exceptions | the model, then a clerk |

\`\`\`ts
const matched = invoices.filter((invoice) => purchaseOrders.some((order) => order.number === invoice.orderNumber && Math.abs(order.total - invoice.total) < 0.01));
\`\`\`

1. Capture every PDF from the shared mailbox.
2. Extract the supplier, the order number and the totals.
3. Post what matches; queue the rest for a person.
`;
const LONG_AGENT = 'Treasury desk overnight watch: BTC and ETH volatility on three exchanges';
const LONG_MESSAGE = `Can you summarise ${LONG_URL} and the attached reconciliation_export_2025_03_full_ledger_with_all_subsidiaries.csv for the board?`;

// Issue 29: a word longer than any screen is wide, in every text of an article: a URL whose last
// part has nothing a browser breaks a line at (no slash, hyphen or space), and such a category.
const UNBROKEN = 'https://example.com/reports/Invoice_Reconciliation_Automation_Case_Study_Appendix_B_Supplier_By_Supplier_Breakdown_2025';
const UNBROKEN_CATEGORY = 'Finance_Operations_Analytics_And_Automation_Report';
const UNBROKEN_CONTENT = `## ${UNBROKEN}

The full report is at ${UNBROKEN}, and as a link: [${UNBROKEN}](${UNBROKEN}). Its file is \`${UNBROKEN}\`.

> ${UNBROKEN}

- ${UNBROKEN}
`;
const DESKTOP_VIEWPORT = { width: 1280, height: 800 } as const;

const json = (baseURL: string | undefined) => ({ origin: new URL(baseURL!).origin });

async function post(request: APIRequestContext, baseURL: string | undefined, url: string, data: unknown) {
  const res = await request.post(url, { headers: json(baseURL), data });
  expect(res.status(), `POST ${url}: ${await res.text()}`).toBeLessThan(300);
  return res.json() as Promise<{ id: string; slug: string; createdAt: string }>;
}

/** Goes to `path` as the page's user, waits for `ready`, and checks the screen fits. */
async function visit(page: Page, path: string, ready: (page: Page) => Promise<void>, screen = path) {
  await page.goto(path);
  await ready(page);
  await expectFitsViewport(page, screen);
}

/** SITE_NAME's default: the e2e server does not set it. */
const SITE_NAME = 'Axiom Automation';

/** The header's brand shows in full: no part of it cut off (an ellipsis leaves the element
 * narrower than its text), inside the screen, and clear of every control beside it. */
async function expectWholeBrand(page: Page, who: string): Promise<void> {
  const brand = siteHeader(page).getByRole('link', { name: SITE_NAME, exact: true });
  await expect(brand, `${who}: the brand`).toBeVisible();
  await expect(brand, `${who}: the brand's text`).toHaveText(SITE_NAME);
  const found = await brand.evaluate((link) => {
    type El = { scrollWidth: number; clientWidth: number; outerHTML: string; getBoundingClientRect(): { left: number; right: number; top: number; bottom: number } };
    const boxes = [link, ...link.querySelectorAll('span')] as unknown as El[];
    const cut = boxes.filter((el) => el.scrollWidth > el.clientWidth).map((el) => `${el.outerHTML.slice(0, 60)}: ${el.scrollWidth} px of text in ${el.clientWidth} px`);
    const own = (link as unknown as El).getBoundingClientRect();
    const header = link.closest('header')!;
    const overlapping = [...header.querySelectorAll('a, button')]
      .filter((el) => el !== link && !link.contains(el))
      .map((el) => ({ el: el as unknown as El, name: el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '' }))
      .filter(({ el }) => {
        const box = el.getBoundingClientRect();
        return box.right > box.left && box.left < own.right && box.right > own.left && box.top < own.bottom && box.bottom > own.top;
      })
      .map(({ name }) => name);
    return { cut, overlapping, right: own.right };
  });
  expect(found.cut, `${who}: the brand is cut off`).toEqual([]);
  expect(found.overlapping, `${who}: controls over the brand`).toEqual([]);
  expect(found.right, `${who}: the brand's right edge`).toBeLessThanOrEqual(PHONE_VIEWPORT.width);
}

const heading = (name: string | RegExp) => async (page: Page) => {
  await expect(page.getByRole('heading', { name }).first()).toBeVisible();
};

test.describe('every screen on a phone', () => {
  test('signed out: landing, sign-in, insights, an article, an unknown page', async ({ page, login, admin, openPage, baseURL }) => {
    test.slow();
    // Content first, by an admin in a context of their own.
    const editor = await openPage();
    await login(editor, admin);
    const article = await post(editor.request, baseURL, '/api/articles', {
      title: `${LONG_TITLE} ${randomUUID().slice(0, 4)}`,
      category: LONG_CATEGORY,
      excerpt: LONG_EXCERPT,
      content: CONTENT,
      readTime: '12 min read',
      published: true,
    });

    await visit(page, '/', heading('Automate Your Business Success'), 'landing');
    await page.locator('#insights').scrollIntoViewIfNeeded();
    await expect(page.locator('#insights').getByRole('heading', { name: LONG_TITLE.slice(0, 40) }).first()).toBeVisible();
    await expectFitsViewport(page, 'landing with its insights');
    await page.getByRole('button', { name: 'Menu' }).click();
    await expectFitsViewport(page, 'landing with the menu open');
    await page.keyboard.press('Escape');

    await visit(page, '/login', heading(/sign in|log ?in/i), 'sign-in');
    await visit(page, '/insights', heading('Insights'), 'insights');
    await visit(page, `/insights/${article.slug}`, heading(LONG_TITLE.slice(0, 40)), 'an article');
    await expect(page.getByRole('table')).toBeVisible();
    await visit(page, '/insights/no-such-article', heading(/not found/i), 'a missing article');
    await visit(page, '/no-such-page', heading('404 Page Not Found'), '404');
  });

  test('a long unbroken word (a URL) in an article wraps on /insights, its page and the landing, at 390 and 1280 px, with JavaScript and without', async ({ page, login, admin, openPage, baseURL }) => {
    test.slow();
    const editor = await openPage();
    await login(editor, admin);
    const id = randomUUID().slice(0, 4);
    const article = await post(editor.request, baseURL, '/api/articles', {
      title: `Reconciled ${id}: ${UNBROKEN}`,
      category: UNBROKEN_CATEGORY,
      excerpt: `Read ${UNBROKEN} first.`,
      content: UNBROKEN_CONTENT,
      readTime: '3 min read',
      published: true,
    });
    const title = `Reconciled ${id}:`;
    const noScript = await openPage({ javaScriptEnabled: false });

    for (const viewport of [PHONE_VIEWPORT, DESKTOP_VIEWPORT]) {
      const size = `${viewport.width} px`;
      await page.setViewportSize(viewport);
      await noScript.setViewportSize(viewport);

      await page.goto('/');
      const insights = page.locator('#insights');
      await insights.scrollIntoViewIfNeeded();
      await expect(insights.getByRole('heading', { name: title })).toBeVisible();
      await expectFitsViewport(page, `landing's insights at ${size}`);

      for (const [path, heading, screen] of [
        ['/insights', title, 'insights'],
        [`/insights/${article.slug}`, title, 'the article'],
      ] as const) {
        await page.goto(path);
        await expect(page.getByRole('heading', { name: heading }).first()).toBeVisible();
        await expectFitsViewport(page, `${screen} at ${size}`);
        // The HTML the server sends, before any script: it must fit as well.
        await noScript.goto(path);
        await expect(noScript.getByRole('heading', { name: heading }).first()).toBeVisible();
        await expectFitsViewport(noScript, `${screen} at ${size} without JavaScript`);
      }
    }
  });

  test('the header shows the whole brand: signed out, a guest and an admin (with the bell)', async ({ page, login, guest, admin, openPage }) => {
    await page.goto('/');
    await expect(page.getByRole('button', { name: 'Menu' })).toBeVisible();
    await expectWholeBrand(page, 'signed out on the landing page');
    await page.goto('/insights');
    await expectWholeBrand(page, 'signed out on /insights');

    await login(page, guest);
    await page.goto('/dashboard');
    await expect(siteHeader(page).getByRole('button', { name: /logout/i })).toBeVisible();
    await expectWholeBrand(page, 'a guest');

    const adminPage = await openPage({ viewport: PHONE_VIEWPORT });
    await login(adminPage, admin);
    await adminPage.goto('/dashboard');
    await expect(siteHeader(adminPage).getByRole('button', { name: /Notifications/ })).toBeVisible();
    await expectWholeBrand(adminPage, 'an admin');
  });

  test('a guest: dashboard, its dialog, the open chats, settings, access denied', async ({ page, login }) => {
    test.slow();
    const id = randomUUID().slice(0, 6);
    await login(page, { email: `maximiliana.vandenberg-oosterhuis.${id}@logistics-cooperative.example.com`, name: `Maximiliana van den Berg-Oosterhuis ${id}` });

    await visit(page, '/dashboard', heading('AI Assistants'), 'dashboard (guest)');
    await page.getByRole('button', { name: 'Request Access' }).first().click();
    await expect(page.getByRole('dialog', { name: 'Admin Access Required' })).toBeVisible();
    await expectFitsViewport(page, 'Admin Access Required dialog');
    await page.keyboard.press('Escape');

    await visit(page, '/deepseek-chat', heading(/DeepSeek/), 'DeepSeek chat');
    await visit(page, '/llama-chat', heading(/Llama/), 'Llama chat');
    await visit(page, '/settings', heading('Settings'), 'settings');
    await visit(page, '/chat-console', heading('Access Denied'), 'access denied');
    await visit(page, '/create-article', async (p) => expect(p.getByText('Access denied. Only administrators can create articles.')).toBeVisible(), 'create article (guest)');
  });

  test('an admin: dashboard, every chat, articles, users, usage', async ({ page, login, admin, openPage, baseURL }) => {
    test.slow();
    // Someone with a long name and address in the users list.
    const other = await openPage();
    const id = randomUUID().slice(0, 6);
    await login(other, { email: `bartholomew.featherstonehaugh-cholmondeley.${id}@procurement.example.com`, name: `Bartholomew Featherstonehaugh-Cholmondeley ${id}` });
    await other.close();

    await login(page, admin);
    const draft = await post(page.request, baseURL, '/api/articles', {
      title: `${LONG_TITLE} (draft ${id})`,
      category: LONG_CATEGORY,
      excerpt: LONG_EXCERPT,
      content: CONTENT,
      published: false,
    });

    await visit(page, '/dashboard', heading('AI Assistants'), 'dashboard (admin)');
    await page.getByRole('button', { name: 'Menu' }).click();
    await expectFitsViewport(page, 'the header menu, signed in');
    await page.keyboard.press('Escape');

    // A chat with a long question and its answer, then every other chat screen.
    await visit(page, '/chat-console', heading(/GPT/), 'GPT chat');
    const input = page.getByLabel('Message GPT');
    await input.fill(LONG_MESSAGE);
    await input.press('Enter');
    await expect(page.getByRole('log', { name: 'Messages' }).getByText(/^Reply to: Can you summarise/)).toBeVisible();
    await expectFitsViewport(page, 'GPT chat with a conversation');
    for (const [path, name] of [
      ['/claude-chat', /Claude/],
      ['/gemini-chat', /Gemini/],
      ['/grok-chat', /Grok/],
    ] as const) {
      await visit(page, path, heading(name), `${path}`);
    }
    // Gemini has no key on the e2e server: the configuration panel.
    await page.goto('/gemini-chat');
    await page.getByLabel('Message Gemini').fill(LONG_MESSAGE);
    await page.getByLabel('Message Gemini').press('Enter');
    await expect(page.getByText('API Configuration Error')).toBeVisible();
    await expectFitsViewport(page, 'Gemini chat with its configuration error');

    // Articles: the list with long titles, the editor, a new one with its validation messages.
    await visit(page, '/admin/articles', heading('Articles'), 'admin articles');
    const row = page.getByRole('row').filter({ hasText: `(draft ${id})` }).or(page.getByRole('listitem').filter({ hasText: `(draft ${id})` }));
    await expect(row.first()).toBeVisible();
    for (const action of ['Edit', 'Publish', 'Delete']) {
      await expect(row.first().getByRole(action === 'Edit' ? 'link' : 'button', { name: new RegExp(`^${action} `) })).toBeInViewport();
    }
    // The date it was created, as every page shows it: 'MMM d, yyyy' (the e2e browser is on UTC).
    await expect(row.first().getByText(new Date(draft.createdAt).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' }))).toBeInViewport();
    await visit(page, `/admin/articles/${draft.id}/edit`, heading(/Edit Article/i), 'edit article');
    await visit(page, '/create-article', heading('Create Article'), 'create article');
    await page.getByRole('button', { name: 'Create Article' }).click();
    await expect(page.getByText('Title must be at least 5 characters')).toBeVisible();
    await expectFitsViewport(page, 'create article with its messages');

    await visit(page, '/admin/users', heading('Users'), 'users');
    await expect(page.getByText(`Bartholomew Featherstonehaugh-Cholmondeley ${id}`)).toBeVisible();
    await expectFitsViewport(page, 'users with a long name');
    await visit(page, '/admin/usage', heading('Usage'), 'usage');
    await visit(page, '/settings', heading('Settings'), 'settings (admin)');
    // An access token named with a word longer than the screen: its secret, shown once, and its row.
    const tokens = page.getByRole('region', { name: 'Access tokens' });
    await tokens.getByRole('textbox', { name: 'Name' }).fill(`Workstation-${'upstairs'.repeat(6)}-${id}`.slice(0, 60));
    await tokens.getByRole('button', { name: 'Create token' }).click();
    await expect(tokens.getByLabel('New access token')).toBeVisible();
    await expectFitsViewport(page, 'settings with a new access token');
    await tokens.getByRole('button', { name: 'Done' }).click();
    await expect(tokens.getByRole('list', { name: 'Your access tokens' })).toBeVisible();
    await expectFitsViewport(page, 'settings with an access token listed');
  });

  test('an admin: the agents console, its tabs, the wizard and an agent’s details', async ({ page, login, admin, baseURL }) => {
    test.slow();
    await login(page, admin);
    const name = `${LONG_AGENT} ${randomUUID().slice(0, 4)}`;
    const base = defaultAgentConfig(findTemplate('crypto-market-monitor')!);
    // A condition of its own too (issue 30), so Run History shows its clauses' values table.
    const condition = {
      id: randomUUID(),
      when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'close' }, operator: 'crosses-above', right: { indicator: 'sma', period: 20 } }] },
      trigger: { mode: 'once-per-close' },
    };
    const config = {
      ...base,
      conditions: [condition],
      notifications: { ...base.notifications, email: false, thresholds: [{ type: 'priceChange', value: 0, message: 'Price moved on one of the watched exchanges' }] },
    };
    const agent = await post(page.request, baseURL, '/api/agents', { templateId: 'crypto-market-monitor', name, config });
    await post(page.request, baseURL, `/api/agents/${agent.id}/run`, {});

    await visit(page, '/agents-console', heading('AI Agents Console'), 'agents console');
    for (const tab of ['Running Agents', 'Paused Agents', 'Agent Templates']) {
      await page.getByRole('tab', { name: tab }).click();
      await expect(page.getByRole('tabpanel')).toBeVisible();
      await expectFitsViewport(page, `agents console, ${tab}`);
    }

    // The create flow: name, then each step of the wizard.
    await page.getByRole('button', { name: /use template/i }).first().click();
    const nameDialog = page.getByRole('dialog', { name: 'Name Your New Agent' });
    await expect(nameDialog).toBeVisible();
    await expectFitsViewport(page, 'Name Your New Agent');
    await nameDialog.getByRole('button', { name: 'Continue' }).click();
    const wizard = page.getByRole('dialog', { name: 'Configure Your Agent' });
    for (const step of ['Schedule', 'Parameters', 'Notifications', 'Review']) {
      await wizard.getByRole('tab', { name: step }).click();
      await expect(wizard.getByRole('tabpanel')).toBeVisible();
      await expectFitsViewport(page, `wizard, ${step}`);
      if (step === 'Parameters') {
        // The conditions builder: a clause reads as a sentence of selects, and a group inside.
        await wizard.getByRole('button', { name: 'Add condition' }).click();
        await wizard.getByRole('button', { name: 'Condition 1: add group' }).click();
        await expect(wizard.getByRole('combobox', { name: 'Clause 2: operator', exact: true })).toBeVisible();
        await expectFitsViewport(page, 'wizard, a condition with a group');
      }
    }
    await wizard.getByRole('button', { name: 'Cancel' }).or(wizard.getByRole('button', { name: 'Close' })).first().click();
    // The condition added is a change: leaving asks first, on the phone too.
    const discard = page.getByRole('alertdialog', { name: 'Discard your changes?' }).or(page.getByRole('dialog', { name: 'Discard your changes?' }));
    await expectFitsViewport(page, 'discard your changes');
    await discard.getByRole('button', { name: 'Discard changes' }).click();
    await expect(wizard).toBeHidden();

    // The agent's details, every tab, with a finished run.
    await page.getByRole('tab', { name: 'Paused Agents' }).click();
    await page.getByRole('tabpanel').getByRole('listitem', { name }).getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name });
    await expect(details).toBeVisible();
    await expectFitsViewport(page, 'agent details, Overview');
    await details.getByRole('tab', { name: 'Run History' }).click();
    await expect(details.locator('ol > li').first().getByText('Success', { exact: true })).toBeVisible({ timeout: 30_000 });
    await expectFitsViewport(page, 'agent details, Run History');
    await expect(details.locator('ol > li').first().getByText('close crosses above SMA (20)').first()).toBeVisible();
    await details.getByText('Show raw JSON').first().click();
    await expectFitsViewport(page, 'agent details, Run History with its raw JSON');
    for (const tab of ['Chart', 'Settings']) {
      await details.getByRole('tab', { name: tab }).click();
      await expect(details.getByRole('tabpanel')).toBeVisible();
      await expectFitsViewport(page, `agent details, ${tab}`);
      if (tab === 'Chart') {
        await details.getByRole('button', { name: 'Larger view' }).click();
        await expect(page.getByRole('dialog', { name: /^Chart of / }).getByRole('img').locator('canvas').first()).toBeVisible();
        await expectFitsViewport(page, 'the chart, larger view');
        await page.keyboard.press('Escape');
      }
    }
    await details.getByRole('tab', { name: 'Overview' }).click();
    await details.getByRole('button', { name: /edit/i }).first().click();
    await expectFitsViewport(page, 'agent details, editing');
    await page.keyboard.press('Escape');

    // The bell's alerts (the run's price alert).
    await page.getByRole('button', { name: /Notifications/ }).click();
    await expect(page.getByRole('button', { name: 'Mark all as read' })).toBeVisible();
    await expectFitsViewport(page, 'the notifications popover');
  });
});
