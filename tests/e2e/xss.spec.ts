import { randomUUID } from 'node:crypto';
import type { APIRequestContext, APIResponse, Locator } from '@playwright/test';
import { AGENT_TEMPLATES, defaultAgentConfig, type TAgent, type TAgentConfig, type TThreshold } from '../../contracts/agents.ts';
import type { TArticle } from '../../contracts/articles.ts';
import type { TNotification, TNotificationList } from '../../contracts/notifications.ts';
import { ADMIN_EMAIL, ADMIN_NAME } from './support/constants.ts';
import { corpusMarkdown, fullCorpus, joinWithin, markdownShows, shortPayloads, type XssPayload } from './support/xss-corpus.ts';
import { dangerousMarkupIn, expectNoXss, watchForXss, type XssWatch } from './support/xss-guard.ts';
import { expect, test as base, toasts, type ApiUser } from './fixtures.ts';

// Issue 8, rendering safety: hostile text in every field people (and models) write, created
// through the real API, then every screen that shows it, in the real browser. No payload may
// run or open a dialog, no screen may hold an event-handler attribute or a javascript:/data:/
// vbscript: URL, and the payload must be on screen as text. The fixture also fails the test on
// uncaught errors and CSP violations (an injected script would be blocked by the CSP and
// reported there).

const test = base.extend<{ xss: XssWatch }>({
  xss: async ({ context }, use) => {
    await use(await watchForXss(context));
  },
});

const sameOrigin = (baseURL: string | undefined) => ({ origin: new URL(baseURL!).origin });

async function expectStatus(response: APIResponse, status: number, what: string): Promise<void> {
  expect(response.status(), `${what}: ${await response.text()}`).toBe(status);
}

/** Each payload's text on screen inside `scope` (whitespace-normalised, as text: an element
 * made from it would not have its markup as text). */
async function expectShown(scope: Locator, texts: readonly string[]): Promise<void> {
  for (const text of texts) await expect(scope, `shows ${JSON.stringify(text)}`).toContainText(text);
}

/**
 * Makes a user an admin through the real admin, signed in on `request` (a cookie jar of its
 * own), so the user's agents, notifications and chats are theirs alone and their name shows
 * on the admin screens.
 */
async function makeAdmin(request: APIRequestContext, baseURL: string | undefined, userId: string): Promise<void> {
  await signIn(request, baseURL, { email: ADMIN_EMAIL, name: ADMIN_NAME });
  await expectStatus(await request.patch(`/api/users/${userId}`, { headers: sameOrigin(baseURL), data: { role: 'admin' } }), 200, 'promote to admin');
}

async function signIn(api: APIRequestContext, baseURL: string | undefined, who: { email: string; name: string }): Promise<ApiUser> {
  const res = await api.post('/api/auth/local/login', { headers: sameOrigin(baseURL), data: who });
  await expectStatus(res, 200, `sign in as ${who.email}`);
  return ((await res.json()) as { user: ApiUser }).user;
}

test.describe('rendering safety: an XSS corpus in every user-controlled text', () => {
  test('the guard itself sees a payload that runs, a dialog and dangerous markup', async ({ page, xss }) => {
    // A page without the app's CSP: here the corpus is meant to run, to prove the guard would
    // notice if it ever did on a real screen.
    const corpus = new Map(fullCorpus('canary').map((p) => [p.id.split(':')[1], p.text]));
    const pick = (...names: string[]) => names.map((n) => corpus.get(n)!).join('\n');
    // The unclosed <svg> last: what follows it would be parsed as SVG.
    await page.setContent(`${pick('iframe-srcdoc', 'script', 'img', 'a-js-entity', 'a-js-space', 'a-data', 'object', 'form')}<img src=x onerror="alert('canary')">${pick('svg-onload')}`);

    await expect
      .poll(() => xss.hits)
      .toEqual(expect.arrayContaining(['canary:iframe-srcdoc', 'canary:script', 'canary:img', 'canary:svg-onload'].map((id) => expect.stringContaining(`${id} ran`))));
    await expect.poll(() => xss.dialogs).toEqual([expect.stringContaining('alert "canary"')]);
    const findings = (await dangerousMarkupIn(page)).join('\n');
    for (const expected of [
      'an event-handler attribute onerror',
      'an event-handler attribute onload',
      "a script that is not the app's",
      'a child frame',
      'a <iframe> element',
      'a srcdoc attribute',
      'a javascript: URL in href',
      'a data: URL in href',
      'a <object> element',
      'a javascript: URL in action',
    ]) {
      expect(findings, `the guard reports ${expected}`).toContain(expected);
    }
  });

  test('articles: cards, lists, the article page and the editor show every field as text', async ({ page, login, admin, xss, baseURL }) => {
    const headers = sameOrigin(baseURL);
    const title = shortPayloads('title');
    const draftTitle = shortPayloads('dtitle');
    const content = fullCorpus('body');
    const excerpt = Object.values(shortPayloads('exc'));
    const draftContent = Object.values(shortPayloads('dbody'));
    const publishedInput = {
      title: joinWithin(200, [title.img, title.close, title.svg, title.tpl]),
      category: joinWithin(50, [shortPayloads('cat').img]),
      // readTime allows 30 characters.
      readTime: joinWithin(30, [shortPayloads('rt').svg]),
      excerpt: joinWithin(500, excerpt),
      content: corpusMarkdown('Corpus', content),
      published: true,
      // Search and social (decision 0096): in the head the server writes, and the app's.
      metaDescription: joinWithin(160, [shortPayloads('mdesc').img, shortPayloads('mdesc').script]),
      canonicalUrl: `https://example.com/${shortPayloads('canon').svg.text}`,
    };
    const draftInput = {
      title: joinWithin(200, [draftTitle.script, draftTitle.js, draftTitle.mdlink, draftTitle.entity]),
      category: joinWithin(50, [shortPayloads('dcat').script]),
      readTime: joinWithin(30, [shortPayloads('drt').js]),
      excerpt: joinWithin(500, Object.values(shortPayloads('dexc'))),
      content: corpusMarkdown('Draft corpus', draftContent),
      published: false,
      metaTitle: joinWithin(70, [shortPayloads('dmt').svg]),
      metaDescription: joinWithin(160, [shortPayloads('dmdesc').svg, shortPayloads('dmdesc').tpl]),
    };

    await login(page, admin);
    const created: TArticle[] = [];
    try {
      for (const input of [publishedInput, draftInput]) {
        const res = await page.request.post('/api/articles', { headers, data: input });
        await expectStatus(res, 201, 'create article');
        created.push((await res.json()) as TArticle);
      }
      const [published, draft] = created as [TArticle, TArticle];
      const cardTexts = [publishedInput.title, publishedInput.category, publishedInput.excerpt, publishedInput.readTime];

      await page.goto('/');
      // Signed in, the landing page hands over to the whole app (its header has Dashboard).
      await expect(page.getByRole('banner').getByRole('link', { name: 'Dashboard' })).toBeVisible();
      const insights = page.locator('#insights');
      await insights.scrollIntoViewIfNeeded();
      const card = insights.getByRole('listitem').filter({ hasText: publishedInput.title });
      await expect(card).toBeVisible();
      await expectShown(card, cardTexts);
      await expectNoXss(page, xss, '/ (latest insights)');

      await page.goto('/insights');
      const listed = page.getByRole('main').getByRole('listitem').filter({ hasText: publishedInput.title });
      await expect(listed).toBeVisible();
      await expectShown(listed, cardTexts);
      await expectNoXss(page, xss, '/insights');

      // The page the server renders the title and description into, then the app renders. (The
      // slug is made from the title's letters and digits: no user text reaches it.)
      await page.goto(`/insights/${published.slug}`);
      const article = page.getByRole('article');
      await expect(article.getByRole('heading', { level: 1 })).toHaveText(publishedInput.title);
      await expectShown(article, [publishedInput.category, publishedInput.readTime, ...content.map(markdownShows)]);
      await expect(page).toHaveTitle(new RegExp(`^${escapeRegExp(publishedInput.title)} · `));
      await expectNoXss(page, xss, '/insights/:slug');

      // An admin previews a draft at its address.
      await page.goto(`/insights/${draft.slug}`);
      await expect(page.getByRole('article').getByRole('heading', { level: 1 })).toHaveText(draftInput.title);
      await expect(page).toHaveTitle(draftInput.metaTitle);
      await expectShown(page.getByRole('article'), [draftInput.category, draftInput.readTime, ...draftContent.map(markdownShows)]);
      await expectNoXss(page, xss, '/insights/:slug (draft)');

      await page.goto('/admin/articles');
      for (const input of [publishedInput, draftInput]) {
        await expectShown(page.getByRole('row').filter({ hasText: input.title }), [input.title, input.category]);
      }
      await expectNoXss(page, xss, '/admin/articles');

      await page.goto(`/admin/articles/${published.id}/edit`);
      await expect(page.getByLabel('Title', { exact: true })).toHaveValue(publishedInput.title);
      await expect(page.getByLabel('Category')).toHaveValue(publishedInput.category);
      await expect(page.getByLabel('Read Time')).toHaveValue(publishedInput.readTime);
      await expect(page.getByLabel('Excerpt')).toHaveValue(publishedInput.excerpt);
      await expect(page.getByLabel('Content')).toHaveValue(publishedInput.content);
      // The editor's live preview draws the corpus with the public page's renderer.
      await expectShown(page.getByRole('region', { name: 'Preview', exact: true }), content.map(markdownShows));
      await expectNoXss(page, xss, 'the article editor');

      // Signed out, the article's page is the one the server renders, Markdown and all, and the
      // browser adopts as it is (the app does not render it again).
      await page.context().clearCookies();
      await page.goto(`/insights/${published.slug}`);
      const served = page.getByRole('article');
      await expect(served.getByRole('heading', { level: 1 })).toHaveText(publishedInput.title);
      await expect(page.getByRole('banner').getByRole('link', { name: 'Login' })).toBeVisible();
      await expectShown(served, [publishedInput.category, publishedInput.readTime, ...content.map(markdownShows)]);
      await expectNoXss(page, xss, '/insights/:slug (signed out, rendered by the server)');
      await login(page, admin);
    } finally {
      // Published articles show on every visitor's landing page: leave none behind.
      for (const article of created) await page.request.delete(`/api/articles/${article.id}`, { headers });
    }
  });

  test('crafted addresses: an unknown article and a sign-in with a script as its next page', async ({ page, xss }) => {
    // The server writes an unknown article's address into the page's canonical link and
    // og:url; the app says the article is not found.
    const url = shortPayloads('url');
    for (const slug of [url.close.text, url.svg.text]) {
      const response = await page.goto(`/insights/${encodeURIComponent(slug)}`);
      expect(response?.status()).toBe(404);
      await expect(page.getByRole('heading', { name: 'Article not found' })).toBeVisible();
      await expectNoXss(page, xss, `/insights/${slug}`);
    }

    // ?next= is followed after signing in only when it is a path on this site.
    for (const next of [url.js.text, `data:text/html,${url.script.text}`]) {
      await page.goto(`/login?next=${encodeURIComponent(next)}`);
      const main = page.getByRole('main');
      await main.getByLabel(/email/i).fill(`xss-${randomUUID().slice(0, 8)}@example.com`);
      await main.getByLabel(/name/i).fill('Next Page');
      await main.getByRole('button', { name: /sign in|log in|login|continue/i }).click();
      await expect(page).toHaveURL(/\/dashboard$/);
      await expectNoXss(page, xss, `sign-in with ?next=${next}`);
      await page.context().clearCookies();
    }
  });

  test('agents and their alerts: the console, the details, a run and the bell show every text as text', async ({ page, request, xss, baseURL }) => {
    // A run reads candles, evaluates and stores alerts before the bell can show them.
    test.setTimeout(60_000);
    const headers = sameOrigin(baseURL);
    const owner = shortPayloads('owner');
    const me = await signIn(page.request, baseURL, { email: `xss-${randomUUID().slice(0, 8)}@example.com`, name: joinWithin(100, [owner.img, owner.script]) });
    await makeAdmin(request, baseURL, me.id);

    const [a, b, c] = [shortPayloads('agentA'), shortPayloads('agentB'), shortPayloads('agentC')];
    const names = [joinWithin(100, [a.img, a.tpl]), joinWithin(100, [b.script, b.mdlink]), joinWithin(100, [c.close, c.svg])] as const;
    const sym = shortPayloads('sym');
    // Only AAPL is a ticker: the runtime ignores the rest of the list, the console shows it.
    const symbols = `AAPL\n${sym.img.text}\n${sym.script.text}`;
    const thr = shortPayloads('thr');
    // Every threshold fires on any movement (limit 0); the first of each type makes a notification.
    const thresholds: TThreshold[] = [
      { type: 'priceChange', value: 0, message: thr.img.text },
      { type: 'volumeSpike', value: 0, message: thr.svg.text },
      { type: 'volatilityAlert', value: 0, message: thr.close.text },
      { type: 'volumeAlert', value: 0, message: thr.entity.text },
      ...[thr.script, thr.js, thr.tpl, thr.mdlink].map((p): TThreshold => ({ type: 'priceChange', value: 0, message: p.text })),
    ];

    const agents: TAgent[] = [];
    try {
      for (const [i, name] of names.entries()) {
        const template = AGENT_TEMPLATES[i === 1 ? 1 : 0]!;
        const defaults = defaultAgentConfig(template);
        const config: TAgentConfig = {
          schedule: defaults.schedule,
          // The first explains its alerts: its brief (the fake assistant's 'Reply to: <prompt>') echoes
          // the agent's name and alert messages, so the assistant's text carries the payloads too.
          notifications: i === 0 ? { email: false, inApp: true, thresholds, brief: { provider: 'deepseek', model: 'deepseek-chat' } } : { ...defaults.notifications, email: false },
          parameters: { ...defaults.parameters, ...(i === 0 ? { symbols } : {}) },
        };
        const res = await page.request.post('/api/agents', { headers, data: { templateId: template.id, name, config } });
        await expectStatus(res, 201, 'create agent');
        agents.push((await res.json()) as TAgent);
      }

      // The list: new agents start paused.
      await page.goto('/agents-console');
      await page.getByRole('tab', { name: 'Paused Agents' }).click();
      const panel = page.getByRole('tabpanel');
      for (const name of names) await expect(panel.getByRole('heading', { name, exact: true })).toHaveText(name);
      await expectNoXss(page, xss, 'the agents console (paused agents)');

      // The details: name as the dialog's title, the symbols among the parameters.
      await panel.getByRole('listitem').filter({ hasText: names[0] }).getByRole('button', { name: 'View Details' }).click();
      const details = page.getByRole('dialog', { name: names[0], exact: true });
      await expect(details.getByRole('heading', { name: names[0], exact: true })).toBeVisible();
      await expectShown(details.getByRole('region', { name: 'Parameters' }), [sym.img.text, sym.script.text]);
      await details.getByRole('button', { name: 'Delete agent' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete this agent?' });
      await expectShown(confirm, [names[0]]);
      await expectNoXss(page, xss, 'the agent details and delete confirmation');
      await confirm.getByRole('button', { name: 'Cancel' }).click();

      await details.getByRole('tab', { name: 'Settings' }).click();
      await expectShown(details.getByRole('region', { name: 'Alert thresholds' }), thresholds.map((t) => t.message));
      await expectNoXss(page, xss, 'the agent settings');

      // A run: its toast names the agent, its result lists the alerts with their messages.
      await details.getByRole('tab', { name: 'Overview' }).click();
      await details.getByRole('button', { name: 'Run now' }).click();
      // The open dialog hides the rest of the page from the accessibility tree, toasts included.
      await expectShown(page.locator('[data-sonner-toaster]'), [`${names[0]} will run shortly`]);
      await details.getByRole('tab', { name: 'Run History' }).click();
      const run = details.locator('ol > li').first();
      await expect(run.getByText('Success', { exact: true })).toBeVisible({ timeout: 30_000 });
      await expectShown(run.getByRole('region', { name: 'Alerts' }), [thr.img.text, thr.script.text, thr.js.text, thr.tpl.text, thr.mdlink.text]);
      await run.getByText('Show raw JSON').click();
      await expectNoXss(page, xss, 'the run history');
      await details.getByRole('tab', { name: 'Chart' }).click();
      await expect(details.getByRole('img', { name: /^Price and volume chart of AAPL/ })).toBeVisible();
      await expectNoXss(page, xss, 'the run chart');
      await page.keyboard.press('Escape');

      // The bell: one notification per run (issue 15), titled with the agent's name and what it is
      // about, listing each alert's message (the thresholds').
      let notifications: TNotification[] = [];
      await expect
        .poll(async () => {
          notifications = ((await (await page.request.get('/api/notifications')).json()) as TNotificationList).notifications;
          return notifications.length > 0 && notifications.every((n) => n.brief?.status !== 'pending');
        })
        .toBe(true);
      await page.reload();
      await page.getByRole('button', { name: /^Notifications/ }).click();
      const bell = page.getByRole('dialog', { name: 'Notifications' });
      expect(notifications.every((n) => n.title.startsWith(`${names[0]}: `))).toBe(true);
      await expectShown(bell, [...notifications.map((n) => n.title), ...notifications.flatMap((n) => n.alerts.map((a) => a.message))]);
      expect(notifications.map((n) => n.message).join('\n')).toContain(thr.img.text);
      // The brief, the assistant's text with the payloads in it, is text too.
      expect(notifications[0]!.brief).toMatchObject({ status: 'ready', text: expect.stringContaining('Reply to:') });
      await expect(bell.getByRole('group', { name: 'Brief' }).first()).toContainText('Brief by DeepSeek (DeepSeek V3)');
      await expectShown(bell, [notifications[0]!.brief!.text!]);
      await expectNoXss(page, xss, 'the notification bell');
    } finally {
      for (const agent of agents) await page.request.delete(`/api/agents/${agent.id}`, { headers });
    }
  });

  test('a user name and a chat: sign-in toast, dashboard, the chat and its history, users and usage', async ({ page, request, xss, baseURL }) => {
    const user = shortPayloads('user');
    const name = joinWithin(100, [user.close, user.svg]);
    const email = `xss-${randomUUID().slice(0, 8)}@example.com`;

    // Signing in through the page: the welcome toast carries the name.
    await page.goto('/login');
    const main = page.getByRole('main');
    await main.getByLabel(/email/i).fill(email);
    await main.getByLabel(/name/i).fill(name);
    await main.getByRole('button', { name: /sign in|log in|login|continue/i }).click();
    await expectShown(toasts(page), [`Welcome, ${name}!`]);
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Welcome, ${name}!`);
    await expectNoXss(page, xss, 'the sign-in toast and the dashboard');

    // Made an admin, they chat with GPT; the fake model answers "Reply to: <the message>", so
    // the answer is the corpus as Markdown.
    const me = ((await (await page.request.get('/api/auth/me')).json()) as { user: ApiUser }).user;
    await makeAdmin(request, baseURL, me.id);
    const corpus = fullCorpus('chat');
    const message = corpusMarkdown('Chat corpus', corpus);
    await page.goto('/chat-console');
    const input = page.getByLabel('Message GPT');
    await input.fill(message);
    await input.press('Enter');
    const log = page.getByRole('log', { name: 'Messages' });
    const answer = log.getByText('Reply to: # Chat corpus').locator('xpath=..');
    await expectChat(log, answer, corpus);
    await expectNoXss(page, xss, 'the chat');

    // Kept in the browser and shown again from there after a reload, with its history entry.
    await expect.poll(() => page.evaluate(() => JSON.stringify((globalThis as unknown as { localStorage: object }).localStorage))).toContain('Reply to:');
    await page.reload();
    await expect(page.getByLabel('Message GPT')).toBeVisible();
    const historyHeading = page.getByRole('heading', { name: 'Chat History' });
    if (!(await historyHeading.isVisible())) await page.getByRole('button', { name: 'Show chat history' }).click();
    await page.getByRole('complementary', { name: 'Chat history' }).getByRole('button', { name: /^# Chat corpus/ }).click();
    await expectChat(log, answer, corpus);
    await expectNoXss(page, xss, 'the chat reopened from history');

    // Shared as a link (issue 32; the suite's server lets admins share): the server's page of its
    // own, opened signed out, renders the same corpus with no script and no dangerous markup.
    let chatId = '';
    await expect
      .poll(async () => {
        const list = (await (await page.request.get('/api/chat/conversations?q=corpus')).json()) as { conversations: Array<{ id: string }> };
        chatId = list.conversations[0]?.id ?? '';
        return chatId;
      })
      .not.toBe('');
    const made = await page.request.post(`/api/chat/conversations/${chatId}/shares`, { headers: sameOrigin(baseURL), data: {} });
    await expectStatus(made, 201, 'share the chat');
    const { url } = (await made.json()) as { url: string };
    await page.context().clearCookies();
    await page.goto(url);
    await expect(page.getByRole('heading', { name: 'Chat corpus' }).first()).toBeVisible();
    await expect(page.locator('script')).toHaveCount(0);
    await expectNoXss(page, xss, 'the shared page');
    await signIn(page.request, baseURL, { email, name });

    await page.goto('/admin/usage');
    await expectShown(page.getByRole('row').filter({ hasText: email }).first(), [name]);
    await expectNoXss(page, xss, '/admin/usage');

    await page.goto('/admin/users');
    await expectShown(page.getByRole('row').filter({ hasText: email }), [name]);
    await expectNoXss(page, xss, '/admin/users');
  });

  test('projects (issue 32): names, instructions and file names in the sidebar, the menus and the dialog show as text', async ({ page, request, xss, baseURL }) => {
    const headers = sameOrigin(baseURL);
    const me = await signIn(page.request, baseURL, { email: `xss-${randomUUID().slice(0, 8)}@example.com`, name: 'Project owner' });
    await makeAdmin(request, baseURL, me.id);
    const p = shortPayloads('project');
    const name = joinWithin(80, [p.script, p.svg]);
    const instructions = fullCorpus('instructions').map((x) => x.text).join('\n').slice(0, 8_000);
    const created = await page.request.post('/api/projects', { data: { name, instructions }, headers });
    await expectStatus(created, 201, 'the project');
    const project = (await created.json()) as { id: string };
    const f = shortPayloads('file');
    const fileName = joinWithin(200, [f.svg, f.script]) + '.txt';
    const uploaded = await page.request.post(`/api/documents?${new URLSearchParams({ name: fileName, projectId: project.id }).toString()}`, {
      data: Buffer.from('Plain notes.\n'),
      headers: { ...headers, 'content-type': 'application/octet-stream' },
    });
    await expectStatus(uploaded, 201, 'the file');

    await page.goto('/chat-console');
    await expect(page.getByLabel('Message GPT')).toBeVisible();
    const sidebar = page.getByRole('complementary', { name: 'Chat history' });
    if (!(await page.getByRole('heading', { name: 'Chat History' }).isVisible())) await page.getByRole('button', { name: 'Show chat history' }).click();
    await expectShown(sidebar.getByRole('button', { name: `Project settings: ${name}` }).locator('xpath=..'), [name]);
    await expectNoXss(page, xss, 'the sidebar with a project');

    await sidebar.getByRole('button', { name: `Project settings: ${name}` }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('textbox', { name: 'Instructions' })).toHaveValue(instructions);
    await expectShown(dialog.getByRole('list', { name: `Files of ${name}` }), [fileName]);
    await expectNoXss(page, xss, 'the project dialog');
    await dialog.getByRole('button', { name: 'New chat in this project' }).click();
    await expectShown(page.getByText('In project'), [name]);
    await expectNoXss(page, xss, 'a chat in the project');
  });
});

test.describe('rendering safety: documents in the chat (issue 32)', () => {
  test('a file name and its text: the chips, the sources and the cited passage show them as text', async ({ page, request, xss, baseURL }) => {
    const user = await signIn(page.request, baseURL, { email: `xss-doc-${randomUUID().slice(0, 8)}@example.com`, name: 'Doc tester' });
    await makeAdmin(request, baseURL, user.id);
    const short = shortPayloads('doc');
    const fileName = `${joinWithin(200, [short.close, short.svg, short.img])}.txt`;
    const inText = [short.script, short.entity, short.tpl, short.js, short.mdlink];
    const text = `Penguin clause.\n${inText.map((p) => p.text).join('\n')}`;

    await page.goto('/chat-console');
    await page.locator('input[type="file"][accept*=".pdf"]').setInputFiles({ name: fileName, mimeType: 'text/plain', buffer: Buffer.from(text) });
    const attached = page.getByRole('list', { name: 'Documents for this question' });
    await expectShown(attached, [fileName]);
    await expect(attached.getByText('Plain text')).toBeVisible();
    await expectNoXss(page, xss, 'the document chip');

    const input = page.getByLabel('Message GPT');
    await input.fill('What does the penguin clause say?');
    await input.press('Enter');
    const log = page.getByRole('log', { name: 'Messages' });
    await expect(log.getByText('Reply to: What does the penguin clause say?')).toBeVisible();
    await expectShown(log.getByRole('list', { name: 'Documents of this question' }), [fileName]);
    const sources = log.getByRole('region', { name: 'Sources' });
    await expectShown(sources, [fileName]);
    await expectNoXss(page, xss, 'the question and its sources');

    await sources.getByRole('button').first().click();
    const dialog = page.getByRole('dialog');
    await expectShown(dialog, [fileName, ...inText.map((p) => p.text)]);
    await expectNoXss(page, xss, 'the cited passage');
  });
});

/** The question exactly as typed and the answer as safe Markdown, both complete. */
async function expectChat(log: Locator, answer: Locator, corpus: readonly XssPayload[]): Promise<void> {
  // The user's bubble: the parent of its screen-reader prefix.
  const question = log.getByText('You:', { exact: true }).locator('xpath=..');
  await expectShown(question, corpus.map((p) => p.text));
  await expectShown(answer, corpus.map(markdownShows));
  // Known languages are highlighted: highlight.js's HTML goes in through innerHTML, so wait
  // until it is there before the page is checked.
  for (const language of ['html', 'javascript']) await expect(answer.locator(`code.hljs.language-${language} span`).first()).toBeAttached();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
