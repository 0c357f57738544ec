import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TConversationInfo, TConversationList, TSaveConversation } from '../../../contracts/chat-history.ts';
import { PROJECT_LIMITS, type TProject, type TProjectList } from '../../../contracts/projects.ts';
import { startFakeAiProviders, type FakeAiProviders } from '../../../tests/fakes/ai-providers.ts';
import { chat as ask, chatBody } from '../../test/chat-helpers.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const OWNER = 'projects-owner@example.com';
const OTHER = 'projects-other@example.com';

let n = 0;
const chatId = () => `chat-${1_747_000_000_000 + ++n}-${n.toString(36)}p`;
const at = (minute: number) => new Date(Date.UTC(2025, 5, 1, 10, minute)).toISOString();

/** A one-question chat saved at `minute` (later minutes are newer). */
function chat(title: string, minute: number, extra: Partial<TSaveConversation> = {}): TSaveConversation {
  return {
    id: chatId(),
    provider: 'openai',
    title,
    model: 'gpt-4o',
    leafId: 'q',
    updatedAt: at(minute),
    messages: [{ id: 'q', parentId: null, role: 'user', content: title, timestamp: at(minute) }],
    ...extra,
  };
}

describe('projects and pins', () => {
  let fake: FakeAiProviders;
  let t: TestApp;
  let owner: string;
  let other: string;

  beforeAll(async () => {
    fake = await startFakeAiProviders();
    t = await createTestApp({ env: { ...fake.env, WRITE_RATE_LIMIT: '100000', CHAT_RATE_LIMIT: '1000' } });
    owner = await t.signIn(OWNER, 'Owner');
    other = await t.signIn(OTHER, 'Other');
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, cookie = owner) => t.request({ method, url, cookie, ...(payload !== undefined ? { payload } : {}) });
  const createProject = async (body: Record<string, unknown>, cookie = owner): Promise<TProject> => {
    const res = await call('POST', '/api/projects', body, cookie);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<TProject>();
  };
  const saveChat = async (payload: TSaveConversation, cookie = owner) => {
    const res = await call('POST', '/api/chat/conversations', payload, cookie);
    expect(res.statusCode, res.body).toBe(201);
    return payload.id;
  };
  const list = async (query = '', cookie = owner) => {
    const res = await call('GET', `/api/chat/conversations${query}`, undefined, cookie);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<TConversationList>();
  };
  const titles = async (query = '') => (await list(query)).conversations.map((c) => c.title);
  const count = async (table: string, where: string) =>
    Number(((await t.database.db.execute(sql.raw(`select count(*)::int as n from ${table} where ${where}`))) as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);

  it('creates, reads, renames and lists a project with its instructions and default assistant', async () => {
    const made = await createProject({ name: '  Acme audit ', instructions: 'Answer as our auditor.', defaultAssistant: { provider: 'anthropic', model: 'claude-sonnet-4-5' } });
    expect(made).toMatchObject({ name: 'Acme audit', instructions: 'Answer as our auditor.', defaultAssistant: { provider: 'anthropic', model: 'claude-sonnet-4-5' }, chats: 0, documents: 0 });

    const edited = await call('PATCH', `/api/projects/${made.id}`, { name: 'Acme audit 2025', defaultAssistant: null });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ name: 'Acme audit 2025', instructions: 'Answer as our auditor.', defaultAssistant: null });

    const read = await call('GET', `/api/projects/${made.id}`);
    expect(read.json()).toMatchObject({ id: made.id, name: 'Acme audit 2025' });
    const all = (await call('GET', '/api/projects')).json<TProjectList>();
    expect(all.projects.map((p) => p.name)).toContain('Acme audit 2025');
  });

  it('refuses a second project of the same name (any case) with a 409 naming the name, and bad input with a 400 naming the field', async () => {
    const first = await createProject({ name: 'Board pack' });
    const again = await call('POST', '/api/projects', { name: 'BOARD PACK' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ details: [{ path: 'name', message: 'You already have a project named BOARD PACK' }] });

    const second = await createProject({ name: 'Board minutes' });
    const rename = await call('PATCH', `/api/projects/${second.id}`, { name: 'board pack' });
    expect(rename.statusCode).toBe(409);
    expect((await call('GET', `/api/projects/${second.id}`)).json()).toMatchObject({ name: 'Board minutes' });
    // Another user may use the name.
    await createProject({ name: 'Board pack' }, other);

    for (const [body, path] of [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(81) }, 'name'],
      [{ name: 'Fine', defaultAssistant: { provider: 'nobody', model: 'm' } }, 'defaultAssistant.provider'],
      [{ name: 'Fine', extra: true }, '(root)'],
    ] as const) {
      const res = await call('POST', '/api/projects', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.json())).toContain(`"path":"${path}"`);
    }
    const empty = await call('PATCH', `/api/projects/${first.id}`, {});
    expect(empty.statusCode).toBe(400);
  });

  it("answers 404 for another user's project, on every route, and changes nothing", async () => {
    const theirs = await createProject({ name: 'Private plans', instructions: 'Secret' }, other);
    expect((await call('GET', `/api/projects/${theirs.id}`)).statusCode).toBe(404);
    expect((await call('PATCH', `/api/projects/${theirs.id}`, { name: 'Taken over' })).statusCode).toBe(404);
    expect((await call('DELETE', `/api/projects/${theirs.id}`)).statusCode).toBe(404);
    expect((await call('GET', '/api/projects')).json<TProjectList>().projects.map((p) => p.id)).not.toContain(theirs.id);
    expect((await call('GET', `/api/projects/${theirs.id}`, undefined, other)).json()).toMatchObject({ name: 'Private plans', instructions: 'Secret' });
    expect((await call('GET', '/api/projects/not-a-uuid')).statusCode).toBe(400);

    // Nor can a chat be moved into it, or started in it.
    const mine = await saveChat(chat('Where do I keep this?', 1));
    const move = await call('PATCH', `/api/chat/conversations/${mine}`, { projectId: theirs.id });
    expect(move.statusCode).toBe(404);
    expect((await call('GET', `/api/chat/conversations/${mine}`)).json()).toMatchObject({ projectId: null });
    const started = await call('POST', '/api/chat/conversations', chat('Sneaking in', 2, { projectId: theirs.id }));
    expect(started.statusCode).toBe(404);
    expect((await call('GET', `/api/projects/${theirs.id}`, undefined, other)).json()).toMatchObject({ chats: 0 });
  });

  it('moves chats in and out of a project, lists one project, and search finds chats by their project name', async () => {
    const project = await createProject({ name: 'Quarterly forecast' });
    const started = await saveChat(chat('Revenue drivers', 10, { projectId: project.id }));
    const moved = await saveChat(chat('Cost lines', 11));
    await saveChat(chat('Lunch ideas', 12));

    const move = await call('PATCH', `/api/chat/conversations/${moved}`, { projectId: project.id });
    expect(move.statusCode, move.body).toBe(200);
    expect(move.json<TConversationInfo>()).toMatchObject({ projectId: project.id, pinned: false });

    expect(await titles(`?projectId=${project.id}`)).toEqual(['Cost lines', 'Revenue drivers']);
    expect((await call('GET', `/api/projects/${project.id}`)).json()).toMatchObject({ chats: 2 });
    // A later save from the browser (which sends no project) leaves the chat where it is.
    await call('POST', '/api/chat/conversations', { ...chat('Cost lines', 13), id: moved });
    expect(await titles(`?projectId=${project.id}`)).toEqual(['Cost lines', 'Revenue drivers']);

    // "forecast" is in no title or message: the chats are found by their project's name, whole word or typed part.
    expect((await titles('?q=forecast')).sort()).toEqual(['Cost lines', 'Revenue drivers']);
    expect((await titles('?q=quarterl')).sort()).toEqual(['Cost lines', 'Revenue drivers']);

    const out = await call('PATCH', `/api/chat/conversations/${started}`, { projectId: null });
    expect(out.json()).toMatchObject({ projectId: null });
    expect(await titles(`?projectId=${project.id}`)).toEqual(['Cost lines']);
    // Another user's listing of the project's id finds nothing of it.
    expect((await list(`?projectId=${project.id}`, other)).conversations).toEqual([]);
  });

  it('deletes a project with its knowledge and leaves its chats outside any project', async () => {
    const project = await createProject({ name: 'Due diligence' });
    const inside = await saveChat(chat('Contract risks', 20, { projectId: project.id }));
    const [{ id: userId }] = ((await t.database.db.execute(sql`select id from users where email = ${OWNER}`)) as unknown as { rows: Array<{ id: string }> }).rows as [{ id: string }];
    await t.database.db.execute(
      sql`insert into documents (user_id, project_id, name, type, bytes, status, passages) values (${userId}, ${project.id}, 'nda.txt', 'text', 10, 'ready', 1)`,
    );
    expect((await call('GET', `/api/projects/${project.id}`)).json()).toMatchObject({ documents: 1, chats: 1 });

    expect((await call('DELETE', `/api/projects/${project.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/projects/${project.id}`)).statusCode).toBe(404);
    expect(await count('documents', `project_id = '${project.id}'`)).toBe(0);
    const kept = await call('GET', `/api/chat/conversations/${inside}`);
    expect(kept.statusCode).toBe(200);
    expect(kept.json()).toMatchObject({ title: 'Contract risks', projectId: null });
    expect((await call('DELETE', `/api/projects/${project.id}`)).statusCode).toBe(404);
  });

  it('lists pinned chats first, page after page, without repeating or skipping one', async () => {
    // A user of their own, so the list holds only these chats.
    const cookie = await t.signIn('projects-pins@example.com', 'Pins');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await saveChat(chat(`Chat ${i}`, 30 + i), cookie));
    for (const i of [1, 3]) {
      const res = await call('PATCH', `/api/chat/conversations/${ids[i]}`, { pinned: true }, cookie);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ pinned: true });
    }
    const whole = (await list('', cookie)).conversations;
    expect(whole.map((c) => c.title)).toEqual(['Chat 3', 'Chat 1', 'Chat 5', 'Chat 4', 'Chat 2', 'Chat 0']);
    expect(whole.map((c) => c.pinned)).toEqual([true, true, false, false, false, false]);

    // Pages of one and of two chats cross from the pinned to the rest and back to the same order.
    for (const limit of [1, 2, 4]) {
      const seen: string[] = [];
      let next: string | null = null;
      do {
        const page: TConversationList = await list(`?limit=${limit}${next ? `&before=${encodeURIComponent(next)}` : ''}`, cookie);
        seen.push(...page.conversations.map((c) => c.title));
        next = page.next;
      } while (next);
      expect(seen, `pages of ${limit}`).toEqual(['Chat 3', 'Chat 1', 'Chat 5', 'Chat 4', 'Chat 2', 'Chat 0']);
    }

    await call('PATCH', `/api/chat/conversations/${ids[3]}`, { pinned: false }, cookie);
    expect((await list('', cookie)).conversations.map((c) => c.title)).toEqual(['Chat 1', 'Chat 5', 'Chat 4', 'Chat 3', 'Chat 2', 'Chat 0']);
    const bad = await call('PATCH', `/api/chat/conversations/${ids[0]}`, { pinned: 'yes' }, cookie);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ details: [{ path: 'pinned', message: 'Pinned must be true or false' }] });
  });

  it("starts a chat the server answers in the project it was asked in, and refuses another user's project with a 404", async () => {
    const project = await createProject({ name: 'Answered here' });
    const id = chatId();
    const answer = { chatId: id, id: 'a1', questionId: 'q1', questionParentId: null, title: 'What is in scope?' };
    const res = await ask(t, owner, 'openai', { body: { ...chatBody('openai', 'What is in scope?'), projectId: project.id, answer } });
    expect(res.statusCode, res.body).toBe(200);
    expect((await call('GET', `/api/chat/conversations/${id}`)).json()).toMatchObject({ projectId: project.id });
    expect(await titles(`?projectId=${project.id}`)).toEqual(['What is in scope?']);

    const theirs = await createProject({ name: 'Not yours' }, other);
    const refused = await ask(t, owner, 'openai', { body: { ...chatBody('openai', 'Sneak in'), projectId: theirs.id, answer: { ...answer, chatId: chatId() } } });
    expect(refused.statusCode).toBe(404);
    expect((await call('GET', `/api/projects/${theirs.id}`, undefined, other)).json()).toMatchObject({ chats: 0 });
  });

  it("uploads knowledge into a project up to its limit, and refuses a file for another user's project with a 404", async () => {
    const project = await createProject({ name: 'Knowledge base' });
    const upload = (projectId: string, name = 'notes.txt', cookie = owner) =>
      t.request({ method: 'POST', url: `/api/documents?${new URLSearchParams({ name, projectId }).toString()}`, cookie, headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.from('Our fiscal year ends in March.\n') });
    const first = await upload(project.id);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ name: 'notes.txt', projectId: project.id, status: 'ready' });
    const listed = await call('GET', `/api/documents?projectId=${project.id}`);
    expect(listed.json()).toMatchObject({ documents: [{ name: 'notes.txt' }] });
    expect((await call('GET', `/api/projects/${project.id}`)).json()).toMatchObject({ documents: 1 });

    const theirs = await createProject({ name: 'Their knowledge' }, other);
    expect((await upload(theirs.id)).statusCode).toBe(404);
    expect((await call('GET', `/api/documents?projectId=${project.id}`, undefined, other)).json()).toMatchObject({ documents: [] });

    // Filled to the limit (rows made directly: 200 uploads would only be slower), the next file is refused and nothing is added.
    const [{ id: userId }] = ((await t.database.db.execute(sql`select id from users where email = ${OWNER}`)) as unknown as { rows: Array<{ id: string }> }).rows as [{ id: string }];
    await t.database.db.execute(
      sql`insert into documents (user_id, project_id, name, type, bytes, status, passages) select ${userId}, ${project.id}, 'filler-' || g, 'text', 1, 'ready', 0 from generate_series(2, ${PROJECT_LIMITS.maxKnowledgeDocuments}) g`,
    );
    const full = await upload(project.id, 'one-too-many.txt');
    expect(full.statusCode).toBe(409);
    expect(full.json()).toMatchObject({ message: `A project holds at most ${PROJECT_LIMITS.maxKnowledgeDocuments} files. Delete some of its files to add more.` });
    expect(await count('documents', `project_id = '${project.id}'`)).toBe(PROJECT_LIMITS.maxKnowledgeDocuments);
  });
});
