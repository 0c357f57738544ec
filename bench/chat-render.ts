import { chromium, type CDPSession, type Page } from '@playwright/test';
import type { TStoredMessage } from '../contracts/chat-history.ts';
import { startFakeAiProviders } from '../tests/fakes/ai-providers.ts';
import { ADMIN_EMAIL, ADMIN_NAME, CHROMIUM_ARGS, CHROMIUM_PATH } from '../tests/e2e/support/constants.ts';
import { sleep, startAppServer } from './lib.ts';
import type { Benchmark, BenchResult } from './types.ts';

const TARGET_MS_PER_TOKEN = 2;
/** 100 tokens a second: one token (4 characters) every 10 ms. */
const TOKEN_CHARS = 4;
const TOKEN_DELAY_MS = 10;
const HISTORY_MESSAGES = 500;
const CHAT_ID = 'chat-1746000000000-bench';
/** Answers among the last 60 messages, which the screen renders of a long chat (MESSAGES_PAGE). */
const SHOWN_ANSWERS = 30;

/** The streamed answer (~300 tokens): prose, a list and a highlighted code block, as chats are. */
const ANSWER = [
  'Here is a way to **batch the invoice approvals** so nobody waits on a single reviewer:',
  '',
  '1. Collect the pending invoices every hour.',
  '2. Group them by cost centre and by amount band.',
  '3. Send each group to its approver with one link.',
  '',
  '```ts',
  'type Invoice = { id: string; costCentre: string; amount: number };',
  '',
  'export function groupForApproval(invoices: Invoice[]): Map<string, Invoice[]> {',
  '  const groups = new Map<string, Invoice[]>();',
  '  for (const invoice of invoices) {',
  "    const band = invoice.amount > 10_000 ? 'large' : 'small';",
  '    const key = `${invoice.costCentre}:${band}`;',
  '    groups.set(key, [...(groups.get(key) ?? []), invoice]);',
  '  }',
  '  return groups;',
  '}',
  '```',
  '',
  'Large invoices still need a second approver; the grouping keeps that rule in one place, and the',
  'hourly run means an approver sees one message an hour instead of one per invoice.',
].join('\n');

/** The seeded history: 250 questions, each answered with prose and a code block. */
function history(): TStoredMessage[] {
  const messages: TStoredMessage[] = [];
  let parentId: string | null = null;
  for (let i = 0; i < HISTORY_MESSAGES / 2; i++) {
    const timestamp = new Date(Date.UTC(2025, 4, 1, 9, 0, i)).toISOString();
    messages.push({ id: `q${i}`, parentId, role: 'user', content: `Question ${i}: how would you write step ${i} of the import job?`, timestamp });
    messages.push({
      id: `a${i}`,
      parentId: `q${i}`,
      role: 'assistant',
      model: 'gpt-4o',
      timestamp,
      content: `Step ${i} reads the **next page** of records and keeps the cursor:\n\n\`\`\`python\ndef step_${i}(client, cursor):\n    page = client.fetch(after=cursor, limit=${100 + i})\n    for record in page.records:\n        store(record)\n    return page.next_cursor\n\`\`\`\n\nRun it until the cursor is \`None\`.`,
    });
    parentId = `a${i}`;
  }
  return messages;
}

/**
 * CHAT_RENDER_PROFILE=cpu prints, for each stream with 500 messages, where its main-thread time
 * went (self time by function, a V8 CPU profile) and every stream's Chromium metrics per token;
 * =trace prints each stream's main-thread trace events instead. Diagnosis only: both slow the
 * streams they watch.
 */
const PROFILE = process.env.CHAT_RENDER_PROFILE;

type Metrics = Record<string, number>;
const metrics = async (cdp: CDPSession): Promise<Metrics> =>
  Object.fromEntries(((await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> }).metrics.map((m) => [m.name, m.value]));

/**
 * Sends one question and reads its streamed answer to the end; returns the main thread's time
 * per streamed token: the CPU time of every task the renderer's main thread ran meanwhile (from
 * reading the stream to React, Markdown, highlighting, style, layout and paint).
 */
async function streamOnce(page: Page, cdp: CDPSession, question: string, tokens: number): Promise<number> {
  await page.waitForTimeout(1_500); // the screen is idle: saves and highlighting done
  const input = page.getByLabel('Message GPT');
  await input.fill(question);
  const before = await metrics(cdp);
  await input.press('Enter');
  await page.waitForFunction(() => {
    const doc = (globalThis as unknown as { document: { querySelector(s: string): { disabled?: boolean } | null } }).document;
    const box = doc.querySelector('textarea');
    return box !== null && box.disabled === false && doc.querySelector('[aria-busy="true"]') === null;
  }, undefined, { polling: 250, timeout: 60_000 }); // rarely: the check itself runs on the main thread
  const after = await metrics(cdp);
  const per = (name: string) => ((after[name]! - before[name]!) * 1000) / tokens;
  if (PROFILE) {
    console.log(`  per token: cpu ${per('ThreadTime').toFixed(2)}, task ${per('TaskDuration').toFixed(2)}, task other ${per('TaskOtherDuration').toFixed(2)}, script ${per('ScriptDuration').toFixed(2)}, layout ${per('LayoutDuration').toFixed(2)} (${((after.LayoutCount! - before.LayoutCount!) / tokens).toFixed(2)} layouts), style ${per('RecalcStyleDuration').toFixed(2)} (${((after.RecalcStyleCount! - before.RecalcStyleCount!) / tokens).toFixed(2)}) ms`);
  }
  // CPU time of the main thread (Chromium's ThreadTime): on a busy machine the tasks' wall time
  // (TaskDuration) also counts the time the thread waited for a core.
  return per('ThreadTime');
}

type TraceEvent = { name: string; ph: string; dur?: number; tid: number; pid: number; args?: { name?: string } };
/** CHAT_RENDER_PROFILE=trace: the main thread's time per token by trace event (inclusive). */
function traceSummary(buffer: Buffer, tokens: number, log: (line: string) => void): void {
  const events = (JSON.parse(buffer.toString()) as { traceEvents: TraceEvent[] }).traceEvents;
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!main) return log('  no renderer main thread in the trace');
  const totals = new Map<string, number>();
  for (const e of events) if (e.tid === main.tid && e.pid === main.pid && e.ph === 'X' && e.dur) totals.set(e.name, (totals.get(e.name) ?? 0) + e.dur / 1000);
  const counts = new Map<string, number>();
  for (const e of events) if (e.tid === main.tid && e.pid === main.pid && e.ph === 'X') counts.set(e.name, (counts.get(e.name) ?? 0) + 1);
  for (const [name, ms] of [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) log(`  ${(ms / tokens).toFixed(3).padStart(8)} ms/token  ${name} (inclusive, ${counts.get(name)} times)`);
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number } };
/** CHAT_RENDER_PROFILE=cpu: where one stream's main-thread time goes (self time by function). */
async function profiled<T>(cdp: CDPSession, log: (line: string) => void, work: () => Promise<T>): Promise<T> {
  if (PROFILE !== 'cpu') return work();
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const result = await work();
  const { profile } = (await cdp.send('Profiler.stop')) as { profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] } };
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').pop()}:${node.callFrame.lineNumber}`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  for (const [name, ms] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) log(`  ${ms.toFixed(1).padStart(8)} ms  ${name}`);
  return result;
}

/**
 * Issue 18 item 6: a long conversation stays fast. The chat screen (production build, our
 * server, Debian chromium) holds a chat of 500 messages with code blocks while an answer streams
 * from the fake provider at 100 tokens a second; its main thread's CPU time per token is set
 * against the same stream into an empty chat. Each is measured three times (once with --quick),
 * alternating, after a warm-up stream.
 */
const bench: Benchmark = {
  name: 'chat-render',
  description: 'chat screen with 500 messages (code blocks) while an answer streams at 100 tokens/s: main-thread ms per token vs an empty chat',
  async run({ quick, log }) {
    const fake = await startFakeAiProviders({ chunkDelayMs: TOKEN_DELAY_MS, chunkChars: TOKEN_CHARS, answer: () => ANSWER });
    const server = await startAppServer({ env: { ...fake.env, CHAT_RATE_LIMIT: '1000', CHAT_DAILY_TOKEN_BUDGET: '0' } });
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
    const tokens = Math.ceil(ANSWER.length / TOKEN_CHARS);
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: server.url });
      const page = await context.newPage();
      const login = await page.request.post('/api/auth/local/login', { data: { email: ADMIN_EMAIL, name: ADMIN_NAME }, headers: { origin: server.url } });
      if (!login.ok()) throw new Error(`sign-in failed: ${login.status()}`);
      const seeded = await page.request.post('/api/chat/conversations', {
        headers: { origin: server.url },
        data: { id: CHAT_ID, provider: 'openai', title: 'The import job', model: 'gpt-4o', leafId: `a${HISTORY_MESSAGES / 2 - 1}`, updatedAt: new Date().toISOString(), messages: history() },
      });
      if (!seeded.ok()) throw new Error(`seeding the chat failed: ${seeded.status()} ${await seeded.text()}`);
      // Renamed, so its title stays when the screen saves it (an unnamed chat takes its first question's).
      await page.request.patch(`/api/chat/conversations/${CHAT_ID}`, { headers: { origin: server.url }, data: { customTitle: 'The import job' } });

      await page.goto('/chat-console');
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');

      const openLong = async () => {
        await page.getByRole('complementary', { name: 'Chat history' }).getByRole('button', { name: /^The import job/ }).click();
        // The screen renders a long chat's last 60 messages (MESSAGES_PAGE): their 30 answers' code, highlighted.
        await page.waitForFunction((n) => (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll('code.hljs').length >= n, SHOWN_ANSWERS, { timeout: 60_000 });
        await page.getByRole('button', { name: /^Show earlier messages/ }).waitFor();
      };
      const openEmpty = () => page.getByRole('button', { name: 'New Chat' }).click();

      log(`warming up (one stream into an empty chat, ${tokens} tokens)...`);
      await openEmpty();
      await streamOnce(page, cdp, 'Warm up', tokens);

      const ours: number[] = [];
      const reference: number[] = [];
      for (let round = 0; round < (quick ? 1 : 3); round++) {
        await openLong();
        if (PROFILE === 'trace') await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
        ours.push(await profiled(cdp, log, () => streamOnce(page, cdp, `How do I batch approvals? (${round})`, tokens)));
        if (PROFILE === 'trace') traceSummary(await browser.stopTracing(), tokens, log);
        await openEmpty();
        if (PROFILE === 'trace') await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel'] });
        reference.push(await streamOnce(page, cdp, `How do I batch approvals? (${round})`, tokens));
        if (PROFILE === 'trace') traceSummary(await browser.stopTracing(), tokens, log);
        log(`round ${round + 1}: ${HISTORY_MESSAGES} messages ${ours.at(-1)!.toFixed(2)} ms/token, empty chat ${reference.at(-1)!.toFixed(2)} ms/token`);
        await sleep(200);
      }
      const oursMean = mean(ours);
      const referenceMean = mean(reference);
      const result: BenchResult = {
        name: `chat-render main thread per token (${HISTORY_MESSAGES} messages)`,
        unit: 'ms',
        ours: oursMean,
        reference: referenceMean,
        ratio: oursMean / referenceMean,
        target: `< ${TARGET_MS_PER_TOKEN} ms/token`,
        met: oursMean < TARGET_MS_PER_TOKEN,
        note: `main-thread CPU time; ${tokens} tokens at 100/s; mean of ${ours.length}`,
      };
      return [result];
    } finally {
      await browser.close();
      await server.stop();
      await fake.close();
    }
  },
};

export default bench;
