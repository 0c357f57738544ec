import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TConversation } from '../../contracts/chat-history.ts';
import type { TChatUsageReport } from '../../contracts/chat.ts';
import { until } from '../../server/test/until.ts';
import { startAppServer, type AppServer } from '../e2e/support/app-server.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../fakes/ai-providers.ts';
import { postgresInstalled, startPostgresCluster } from '../support/postgres-cluster.ts';
import { signIn } from './fault-client.ts';

const databases = ['PGlite', ...(postgresInstalled() ? ['PostgreSQL'] : [])];
const QUESTION = 'Tell me about invoices';
const LEASE_SECONDS = 3;

/** Asks for an answer kept in the chat and resolves with its first text; the request stays open. */
function askKept(url: string, session: { cookie: string; origin: string }, chatId: string): Promise<string> {
  const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: QUESTION }], answer: { chatId, id: 'a1', questionId: 'q1', questionParentId: null, title: QUESTION } });
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/openai/chat`, { method: 'POST', agent: false, headers: { ...session, 'content-type': 'application/json', accept: 'text/event-stream' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        const delta = /event: delta\ndata: (.+)\n/.exec(text);
        if (delta) resolve((JSON.parse(delta[1]!) as { text: string }).text);
      });
      res.on('error', () => {}); // the process is killed under it
    });
    req.on('error', () => {});
    req.end(body);
    setTimeout(() => reject(new Error('no text within 10 s')), 10_000).unref();
  });
}

const get = async <T>(url: string, session: { cookie: string }, path: string): Promise<T> => (await fetch(`${url}${path}`, { headers: { cookie: session.cookie } })).json() as Promise<T>;

/**
 * kill -9 of the web process mid-answer (issue 29 item 9): the answer keeps its partial text, and
 * when a process starts again on the database the answer's usage is settled, estimated, as
 * interrupted (docs/decisions/0061): it shows in Usage and counts in the budget. The process
 * restarted at once finds the answer still leased; it settles it once the lease has run out.
 */
describe('an answer whose web process was killed', () => {
  let ai: FakeAiProviders;
  beforeAll(async () => {
    ai = await startFakeAiProviders();
  });
  afterAll(async () => ai?.close());

  it.each(databases)('on %s: kept as far as it was saved, and settled when a process starts again', async (database) => {
    const cluster = database === 'PostgreSQL' ? await startPostgresCluster() : null;
    // A short lease (15 s unless set), so the dead writer's answer is settled within seconds.
    const env = { ...ai.env, CHAT_DAILY_TOKEN_BUDGET: '100000', CHAT_ANSWER_LEASE_SECONDS: String(LEASE_SECONDS), MARKET_DATA: 'simulated', ...(cluster ? { DATABASE_URL: cluster.url } : {}) };
    const servers: AppServer[] = [];
    const hold = ai.holdAfterFirstChunk();
    try {
      const first = await startAppServer({ env });
      servers.push(first);
      const session = await signIn(first.url);
      const chatId = `chat-${Date.now()}-killed`;
      const partial = await askKept(first.url, session, chatId);
      // Saved within a second of coming: the text a dead process leaves.
      await until(async () => (await get<TConversation>(first.url, session, `/api/chat/conversations/${chatId}`)).messages?.[1]?.content, (content) => content === partial);

      const killed = new Promise((resolve) => first.child.once('exit', resolve));
      first.child.kill('SIGKILL');
      await killed;

      // A process starts again on the same database (PGlite: the same data directory).
      const second = await startAppServer({ env: { ...env, ...(cluster ? {} : { DATA_DIR: first.dataDir }) } });
      servers.push(second);
      const again = await signIn(second.url);
      // Settled once the dead writer's lease has run out (LEASE_SECONDS after its last save).
      const usage = await until(
        () => get<TChatUsageReport>(second.url, again, '/api/admin/usage?days=1'),
        (report) => report.rows.length > 0,
        45_000,
      );
      expect(usage.rows).toEqual([expect.objectContaining({ provider: 'openai', model: 'gpt-4o', requests: 1, failed: 1, stopped: 0, estimated: 1 })]);
      expect(usage.rows[0]!.inputTokens).toBeGreaterThan(0);
      expect(usage.rows[0]!.outputTokens).toBeGreaterThan(0);
      const answer = (await get<TConversation>(second.url, again, `/api/chat/conversations/${chatId}`)).messages[1];
      expect(answer).toMatchObject({ content: partial, finish: 'interrupted', note: 'The answer was cut short: the server stopped before the answer was complete. Please try again.' });
      expect(answer!.streaming).toBeUndefined();
    } finally {
      hold.release();
      for (const server of servers.reverse()) await server.stop();
      cluster?.stop();
    }
  }, 90_000);
});
