import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TConversation, TConversationList, TImportResult, TPreset, TSaveConversation, TStoredMessage } from '../../../contracts/chat-history.ts';
import type { TToolStep } from '../../../contracts/assistant-tools.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const OWNER = 'history-owner@example.com';
const OTHER = 'history-other@example.com';

let n = 0;
const chatId = () => `chat-${1_746_000_000_000 + ++n}-${n.toString(36)}x`;
const at = (minute: number) => new Date(Date.UTC(2025, 4, 1, 10, minute)).toISOString();

/** A question and its answer, the answer following the question. */
function turn(prefix: string, question: string, answer: string, parentId: string | null, minute = 0): TStoredMessage[] {
  return [
    { id: `${prefix}-q`, parentId, role: 'user', content: question, timestamp: at(minute) },
    { id: `${prefix}-a`, parentId: `${prefix}-q`, role: 'assistant', content: answer, timestamp: at(minute + 1), model: 'gpt-4o' },
  ];
}

function conversation(overrides: Partial<TSaveConversation> & { messages: TStoredMessage[] }): TSaveConversation {
  return {
    id: chatId(),
    provider: 'openai',
    title: overrides.messages.find((m) => m.role === 'user')?.content.slice(0, 50) ?? 'New Chat',
    model: 'gpt-4o',
    leafId: overrides.messages.at(-1)?.id ?? null,
    updatedAt: at(30),
    ...overrides,
  };
}

describe('chat history on the server', () => {
  let t: TestApp;
  let owner: string;
  let other: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { WRITE_RATE_LIMIT: '100000' } });
    owner = await t.signIn(OWNER, 'Owner');
    other = await t.signIn(OTHER, 'Other');
  });
  afterAll(async () => t.close());

  const save = (payload: TSaveConversation, cookie = owner) => t.request({ method: 'POST', url: '/api/chat/conversations', cookie, payload });
  const get = (id: string, cookie = owner) => t.request({ url: `/api/chat/conversations/${id}`, cookie });
  const list = async (query = '', cookie = owner) => {
    const res = await t.request({ url: `/api/chat/conversations${query}`, cookie });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<TConversationList>();
  };
  const titles = async (query = '', cookie = owner) => (await list(query, cookie)).conversations.map((c) => c.title);
  const rows = async (table: string, where = 'true') =>
    Number(((await t.database.db.execute(sql.raw(`select count(*)::int as n from ${table} where ${where}`))) as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);

  it('saves a conversation, adds later messages once, and answers it with every message', async () => {
    const first = conversation({ messages: turn('t1', 'How do I automate invoices?', 'Start with the approvals.', null) });
    const created = await save(first);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ created: true, conversation: { id: first.id, provider: 'openai', title: 'How do I automate invoices?', renamed: false, model: 'gpt-4o' } });

    // The browser saves again with the whole chat: what is stored stays, the new turn is added.
    const second = { ...first, messages: [...first.messages, ...turn('t2', 'And the payments?', 'Batch them weekly.', 't1-a', 5)], leafId: 't2-a' };
    const again = await save(second);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ created: false });

    // A stored message never changes: a save carrying other text for its id leaves it.
    await save({ ...second, messages: [{ ...second.messages[0]!, content: 'Rewritten' }] });

    const res = await get(first.id);
    expect(res.statusCode).toBe(200);
    const body = res.json<TConversation>();
    expect(body).toMatchObject({ id: first.id, leafId: 't2-a', systemPrompt: '', temperature: null, autoTitle: 'How do I automate invoices?' });
    expect(body.messages.map((m) => [m.id, m.parentId, m.content])).toEqual([
      ['t1-q', null, 'How do I automate invoices?'],
      ['t1-a', 't1-q', 'Start with the approvals.'],
      ['t2-q', 't1-a', 'And the payments?'],
      ['t2-a', 't2-q', 'Batch them weekly.'],
    ]);
    expect(body.messages[1]).toMatchObject({ model: 'gpt-4o', timestamp: at(1) });
  });

  it('keeps the versions of a turn: an edited question and a regenerated answer are siblings', async () => {
    const chat = conversation({
      messages: [
        ...turn('v1', 'Write a haiku', 'Old pond...', null),
        { id: 'v1-a2', parentId: 'v1-q', role: 'assistant', content: 'Autumn moonlight...', timestamp: at(3), model: 'o3' },
        { id: 'v2-q', parentId: null, role: 'user', content: 'Write a limerick', timestamp: at(4) },
        { id: 'v2-a', parentId: 'v2-q', role: 'assistant', content: 'There once was...', timestamp: at(5), model: 'gpt-4o', note: '(stopped)' },
      ],
      leafId: 'v1-a2',
      title: 'Write a haiku',
    });
    expect((await save(chat)).statusCode).toBe(201);
    const body = (await get(chat.id)).json<TConversation>();
    expect(body.leafId).toBe('v1-a2');
    expect(body.messages.find((m) => m.id === 'v2-a')).toMatchObject({ note: '(stopped)' });

    // The view moves to the other version: the title follows it.
    expect((await save({ ...chat, messages: [], leafId: 'v2-a', title: 'Write a limerick' })).statusCode).toBe(200);
    expect((await get(chat.id)).json()).toMatchObject({ leafId: 'v2-a', title: 'Write a limerick' });
  });

  it('refuses a message whose parent it does not hold, a repeated id and an unknown branch, storing nothing', async () => {
    const before = await rows('chat_messages');
    const orphan = conversation({ messages: [{ id: 'o-q', parentId: 'nowhere', role: 'user', content: 'Hi', timestamp: at(0) }] });
    let res = await save(orphan);
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path: 'messages.0.parentId', message: 'must be a message of this chat saved before it' }]);

    const twice = conversation({ messages: [...turn('d', 'Hi', 'Hello', null), { id: 'd-q', parentId: null, role: 'user', content: 'Again', timestamp: at(2) }] });
    res = await save(twice);
    expect(res.json().details).toEqual([{ path: 'messages.2.id', message: 'must not appear twice' }]);

    res = await save(conversation({ messages: turn('l', 'Hi', 'Hello', null), leafId: 'not-a-message' }));
    expect(res.json().details).toEqual([{ path: 'leafId', message: 'must be a message of this chat' }]);

    res = await save({ ...conversation({ messages: [] }), id: 'chat-1-UPPER' });
    expect(res.json().details).toEqual([{ path: 'id', message: "A chat id must be 'chat-', the time in milliseconds, '-' and letters or digits" }]);
    res = await save({ ...conversation({ messages: [] }), temperature: 2.5 });
    expect(res.json().details).toEqual([{ path: 'temperature', message: 'Temperature must be from 0 to 2' }]);
    res = await save({ ...conversation({ messages: [] }), provider: 'anthropic', temperature: 1.5 });
    expect(res.json().details).toEqual([{ path: 'temperature', message: 'Claude takes a temperature from 0 to 1' }]);

    expect(await rows('chat_messages')).toBe(before);
    for (const id of [orphan.id, twice.id]) expect((await get(id)).statusCode).toBe(404);
  });

  it('lists the newest first, by assistant, a page at a time', async () => {
    const cookie = await t.signIn('history-lister@example.com', 'Lister');
    const saved: string[] = [];
    for (let i = 0; i < 5; i++) {
      const chat = conversation({ provider: i === 2 ? 'anthropic' : 'openai', messages: turn(`p${i}`, `Question ${i}`, `Answer ${i}`, null) });
      expect((await save(chat, cookie)).statusCode).toBe(201);
      saved.push(chat.id);
      t.advanceTime(1_000);
    }
    expect(await titles('', cookie)).toEqual(['Question 4', 'Question 3', 'Question 2', 'Question 1', 'Question 0']);
    expect(await titles('?provider=anthropic', cookie)).toEqual(['Question 2']);

    const page1 = await list('?provider=openai&limit=3', cookie);
    expect(page1.conversations.map((c) => c.title)).toEqual(['Question 4', 'Question 3', 'Question 1']);
    const page2 = await list(`?provider=openai&limit=3&before=${encodeURIComponent(page1.next!)}`, cookie);
    expect(page2).toEqual({ conversations: [expect.objectContaining({ title: 'Question 0' })], next: null });

    // Saving moves a chat to the top.
    await save({ ...conversation({ messages: [] }), id: saved[0]!, title: 'Question 0', leafId: 'p0-a' }, cookie);
    expect((await titles('', cookie))[0]).toBe('Question 0');
  });

  it('searches titles and messages with PostgreSQL text search, only in the user’s own chats', async () => {
    const cookie = await t.signIn('history-searcher@example.com', 'Searcher');
    const chats = [
      conversation({ title: 'Quarterly planning', messages: [...turn('s1', 'Quarterly planning', 'Let us automate the invoice approvals first.', null)] }),
      conversation({ title: 'Holiday rota', messages: [...turn('s2', 'Holiday rota', 'Nothing about money here.', null), { id: 's2-a2', parentId: 's2-q', role: 'assistant', content: 'An older version mentioning spreadsheets.', timestamp: at(3) }] }),
      conversation({ provider: 'anthropic', title: 'Invoices backlog', messages: turn('s3', 'Invoices backlog', 'Clear the backlog by Friday.', null) }),
    ];
    for (const chat of chats) expect((await save(chat, cookie)).statusCode).toBe(201);
    // Another user's chat about invoices is not theirs to find.
    await save(conversation({ title: 'Secret invoices', messages: turn('x', 'Secret invoices', 'invoice invoice', null) }), other);

    const search = (q: string, extra = '') => titles(`?q=${encodeURIComponent(q)}${extra}`, cookie);
    expect((await search('invoices')).sort()).toEqual(['Invoices backlog', 'Quarterly planning']); // stemmed: 'invoice' in a message
    expect(await search('invoices', '&provider=openai')).toEqual(['Quarterly planning']);
    expect(await search('spreadsheet')).toEqual(['Holiday rota']); // every version is searched
    expect(await search('"invoice approvals"')).toEqual(['Quarterly planning']);
    expect(await search('invoices -backlog')).toEqual(['Quarterly planning']);
    expect(await search('rota or backlog')).toEqual(['Invoices backlog', 'Holiday rota']);
    expect(await search('Quarter')).toEqual(['Quarterly planning']); // a word still being typed, in a title
    expect(await search('the')).toEqual([]); // only a stop word
    expect(await search('100%_\\')).toEqual([]);
    expect(await search('Secret')).toEqual([]);
  });

  it('renames (the title stays the user’s until cleared) and keeps a chat’s settings', async () => {
    const chat = conversation({ messages: turn('r', 'Draft the newsletter', 'Here it is.', null) });
    await save(chat);
    let res = await t.request({ method: 'PATCH', url: `/api/chat/conversations/${chat.id}`, cookie: owner, payload: { customTitle: '  Newsletter  ' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ title: 'Newsletter', renamed: true, autoTitle: 'Draft the newsletter' });
    expect((await list()).conversations.find((c) => c.id === chat.id)).toMatchObject({ title: 'Newsletter', renamed: true });
    await save({ ...chat, messages: [], title: 'Another first question' });
    expect((await get(chat.id)).json()).toMatchObject({ title: 'Newsletter', autoTitle: 'Another first question' });

    res = await t.request({ method: 'PATCH', url: `/api/chat/conversations/${chat.id}`, cookie: owner, payload: { customTitle: 'x'.repeat(51) } });
    expect(res.json().details).toEqual([{ path: 'customTitle', message: 'The title must be at most 50 characters' }]);
    res = await t.request({ method: 'PATCH', url: `/api/chat/conversations/${chat.id}`, cookie: owner, payload: { customTitle: null, systemPrompt: 'Answer in French.', temperature: 0.4 } });
    expect(res.json()).toMatchObject({ title: 'Another first question', renamed: false, systemPrompt: 'Answer in French.', temperature: 0.4 });
  });

  it('deletes for real: the conversation and every message are gone', async () => {
    const chat = conversation({ messages: turn('del', 'Forget this', 'Gone soon.', null) });
    await save(chat);
    const stored = await rows('chat_messages', `conversation_id = (select id from chat_conversations where chat_id = '${chat.id}')`);
    expect(stored).toBe(2);
    expect((await t.request({ method: 'DELETE', url: `/api/chat/conversations/${chat.id}`, cookie: owner })).statusCode).toBe(204);
    expect((await get(chat.id)).statusCode).toBe(404);
    expect(await rows('chat_conversations', `chat_id = '${chat.id}'`)).toBe(0);
    expect(await rows('chat_messages', `content = 'Gone soon.'`)).toBe(0);
    expect((await t.request({ method: 'DELETE', url: `/api/chat/conversations/${chat.id}`, cookie: owner })).statusCode).toBe(404);
  });

  it('is each user’s own: another user’s chat id is not found, and saving one makes their own', async () => {
    const chat = conversation({ messages: turn('own', 'Private question', 'Private answer', null) });
    await save(chat);
    for (const [method, url, payload] of [
      ['GET', `/api/chat/conversations/${chat.id}`],
      ['GET', `/api/chat/conversations/${chat.id}/export?format=json`],
      ['PATCH', `/api/chat/conversations/${chat.id}`, { customTitle: 'Mine now' }],
      ['DELETE', `/api/chat/conversations/${chat.id}`],
    ] as const) {
      const res = await t.request({ method, url, cookie: other, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ error: 'Not Found', message: 'Chat not found' });
    }
    const theirs = await save({ ...chat, messages: turn('own', 'Their question', 'Their answer', null), title: 'Their question' }, other);
    expect(theirs.statusCode).toBe(201);
    expect((await get(chat.id)).json<TConversation>().messages.map((m) => m.content)).toEqual(['Private question', 'Private answer']);
    expect((await get(chat.id, other)).json<TConversation>().messages.map((m) => m.content)).toEqual(['Their question', 'Their answer']);
  });

  it('imports a browser’s saved chats once: importing again adds nothing, an older copy undoes nothing', async () => {
    const cookie = await t.signIn('history-importer@example.com', 'Importer');
    const local = [
      conversation({ messages: turn('i1', 'First local chat', 'Answer one', null), createdAt: at(0), updatedAt: at(2) }),
      conversation({ provider: 'grok', model: 'grok-4', messages: turn('i2', 'Second local chat', 'Answer two', null), updatedAt: at(20) }),
    ];
    const importing = (conversations: TSaveConversation[]) => t.request({ method: 'POST', url: '/api/chat/conversations/import', cookie, payload: { conversations } });
    let res = await importing(local);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<TImportResult>()).toEqual({ created: 2, updated: 0 });
    const listed = await list('', cookie);
    expect(listed.conversations.map((c) => [c.title, c.updatedAt])).toEqual([
      ['Second local chat', at(20)],
      ['First local chat', at(2)],
    ]);
    expect(listed.conversations[1]!.createdAt).toBe(at(0));

    res = await importing(local);
    expect(res.json<TImportResult>()).toEqual({ created: 0, updated: 0 });
    expect((await list('', cookie)).conversations).toHaveLength(2);

    // Continued on another device since: an older local copy with one more message of its own
    // adds that message and leaves the newer branch, title and settings alone.
    await save({ ...local[0]!, messages: turn('i1b', 'Continued elsewhere', 'Yes', 'i1-a', 40), leafId: 'i1b-a', title: 'First local chat', systemPrompt: 'Be brief.' }, cookie);
    const older = { ...local[0]!, messages: [...local[0]!.messages, { id: 'i1-extra', parentId: 'i1-a', role: 'user' as const, content: 'Only here', timestamp: at(3) }], leafId: 'i1-extra' };
    res = await importing([older]);
    expect(res.json<TImportResult>()).toEqual({ created: 0, updated: 1 });
    const merged = (await get(local[0]!.id, cookie)).json<TConversation>();
    expect(merged).toMatchObject({ leafId: 'i1b-a', systemPrompt: 'Be brief.' });
    expect(merged.messages.map((m) => m.id)).toEqual(['i1-q', 'i1-a', 'i1b-q', 'i1b-a', 'i1-extra']);

    // All or nothing: one refused conversation leaves the others unsaved, and names its place.
    const bad = conversation({ messages: [{ id: 'b-q', parentId: 'missing', role: 'user', content: 'x', timestamp: at(0) }] });
    const good = conversation({ messages: turn('g', 'Good one', 'Fine', null) });
    res = await importing([good, bad]);
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path: 'conversations.1.messages.0.parentId', message: 'must be a message of this chat saved before it' }]);
    expect((await get(good.id, cookie)).statusCode).toBe(404);
  });

  it('exports a conversation as Markdown (the branch in view) or JSON (every version), as a file', async () => {
    const chat = conversation({
      title: 'Plan the Q3 offsite!',
      messages: [
        ...turn('e', 'Plan the Q3 offsite!', 'Pick a **venue** first.', null),
        { id: 'e-a2', parentId: 'e-q', role: 'assistant', content: 'Start with dates.', timestamp: at(2), model: 'o3', note: '(stopped)' },
      ],
      leafId: 'e-a2',
      systemPrompt: 'You are a planner.',
      temperature: 0.7,
    });
    await save(chat);
    const md = await t.request({ url: `/api/chat/conversations/${chat.id}/export?format=md`, cookie: owner });
    expect(md.statusCode).toBe(200);
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(md.headers['content-disposition']).toBe('attachment; filename="plan-the-q3-offsite.md"');
    expect(md.body).toContain('# Plan the Q3 offsite!\n\n- Assistant: GPT\n');
    expect(md.body).toContain('- Temperature: 0.7\n\n## System prompt\n\nYou are a planner.');
    expect(md.body).toContain('## You\n\nPlan the Q3 offsite!\n\n## GPT (o3) — version 2 of 2\n\nStart with dates.\n\n_(stopped)_\n');
    expect(md.body).not.toContain('venue');

    const json = await t.request({ url: `/api/chat/conversations/${chat.id}/export?format=json`, cookie: owner });
    expect(json.headers['content-disposition']).toBe('attachment; filename="plan-the-q3-offsite.json"');
    const exported = JSON.parse(json.body) as TConversation;
    expect(exported).toMatchObject({ id: chat.id, leafId: 'e-a2', systemPrompt: 'You are a planner.', temperature: 0.7 });
    expect(exported.messages.map((m) => m.id)).toEqual(['e-q', 'e-a', 'e-a2']);
    expect((await t.request({ url: `/api/chat/conversations/${chat.id}/export?format=pdf`, cookie: owner })).json().details).toEqual([
      { path: 'format', message: "Format must be 'md' or 'json'" },
    ]);
  });

  it('keeps an answer’s tool steps and a chat’s "Use my agents": saved, answered, exported, imported (issue 31)', async () => {
    const steps: TToolStep[] = [
      { id: 'call_1', tool: 'list_agents', args: {}, argsText: 'all your agents', status: 'ok', summary: '3 agents, 1 failing', durationMs: 42, at: 0 },
      { id: 'call_2', tool: 'get_run', args: '{"agentId": 7', argsText: '{"agentId": 7', status: 'invalid', summary: 'The arguments are not JSON', durationMs: 1, at: 12 },
    ];
    const answer = { ...turn('s', 'Which agents fail?', 'BTC watcher fails: the exchange is down.', null)[1]!, toolSteps: steps };
    const chat = conversation({ messages: [turn('s', 'Which agents fail?', '', null)[0]!, answer], useAgents: false });
    expect((await save(chat)).statusCode).toBe(201);
    let body = (await get(chat.id)).json<TConversation>();
    expect(body.useAgents).toBe(false);
    expect(body.messages[1]!.toolSteps).toEqual(steps);
    expect(body.messages[0]!.toolSteps).toBeUndefined();

    const patched = await t.request({ method: 'PATCH', url: `/api/chat/conversations/${chat.id}`, cookie: owner, payload: { useAgents: true } });
    expect(patched.json()).toMatchObject({ useAgents: true });
    const wrong = await t.request({ method: 'PATCH', url: `/api/chat/conversations/${chat.id}`, cookie: owner, payload: { useAgents: 'yes' } });
    expect(wrong.json().details).toEqual([{ path: 'useAgents', message: 'Use my agents must be true or false' }]);
    body = (await get(chat.id)).json<TConversation>();
    expect(body.useAgents).toBe(true);

    const md = await t.request({ url: `/api/chat/conversations/${chat.id}/export?format=md`, cookie: owner });
    expect(md.body).toContain('BTC watcher fails: the exchange is down.\n\n- Listed your agents (all your agents): 3 agents, 1 failing — 42 ms\n- Read a run ({"agentId": 7) (invalid): The arguments are not JSON — 1 ms\n');
    const json = JSON.parse((await t.request({ url: `/api/chat/conversations/${chat.id}/export?format=json`, cookie: owner })).body) as TConversation;
    expect(json.messages[1]!.toolSteps).toEqual(steps);

    // Imported elsewhere (another user's browser copy), the steps come along; a step that breaks the contract is refused.
    const imported = await t.request({ method: 'POST', url: '/api/chat/conversations/import', cookie: other, payload: { conversations: [chat] } });
    expect(imported.statusCode, imported.body).toBe(200);
    expect((await get(chat.id, other)).json<TConversation>().messages[1]!.toolSteps).toEqual(steps);
    const bad = conversation({ messages: [turn('b', 'Q', '', null)[0]!, { ...answer, id: 'b-a', parentId: 'b-q', toolSteps: [{ ...steps[0]!, status: 'sideways' as never }] }] });
    const refused = await save(bad);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details[0].path).toBe('messages.1.toolSteps.0.status');
  });

  it('stores a long answer of many different words (its text-search entry stays within PostgreSQL’s limit)', async () => {
    const long = Array.from({ length: 40_000 }, (_, i) => `w${i.toString(36)}`).join(' ').slice(0, 200_000);
    const chat = conversation({ messages: turn('big', 'Many words please', long, null) });
    const res = await save(chat);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
    expect((await get(chat.id)).json<TConversation>().messages[1]!.content).toHaveLength(long.length);
  });

  it('keeps at most 2,000 messages in a chat', async () => {
    const chat = conversation({ messages: [] });
    let parent: string | null = null;
    for (let batch = 0; batch < 4; batch++) {
      const messages: TStoredMessage[] = [];
      for (let i = 0; i < 500; i++) {
        const id = `m${batch}-${i}`;
        messages.push({ id, parentId: parent, role: i % 2 ? 'assistant' : 'user', content: 'ok', timestamp: at(0) });
        parent = id;
      }
      const res = await save({ ...chat, messages, leafId: parent });
      expect(res.statusCode, res.body).toBeLessThan(300);
    }
    const res = await save({ ...chat, messages: [{ id: 'one-more', parentId: parent, role: 'user', content: 'more', timestamp: at(0) }], leafId: 'one-more' });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('A chat keeps at most 2,000 messages, every version counted. Start a new chat to go on.');
  });
});

describe('chat presets', () => {
  let t: TestApp;
  let owner: string;
  let other: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { WRITE_RATE_LIMIT: '100000' } });
    owner = await t.signIn(OWNER, 'Owner');
    other = await t.signIn(OTHER, 'Other');
  });
  afterAll(async () => t.close());

  const create = (payload: object, cookie = owner) => t.request({ method: 'POST', url: '/api/chat/presets', cookie, payload });
  const list = async (cookie = owner) => (await t.request({ url: '/api/chat/presets', cookie })).json<{ presets: TPreset[] }>().presets;

  it('saves, lists, edits and deletes a user’s presets, names unique in any case', async () => {
    const res = await create({ name: 'Translator', systemPrompt: 'Translate into French.', temperature: 0.2 });
    expect(res.statusCode, res.body).toBe(201);
    const preset = res.json<TPreset>();
    expect(preset).toMatchObject({ name: 'Translator', systemPrompt: 'Translate into French.', temperature: 0.2 });
    expect((await create({ name: 'Brief' })).json()).toMatchObject({ systemPrompt: '', temperature: null });
    expect((await list()).map((p) => p.name)).toEqual(['Brief', 'Translator']);

    const taken = await create({ name: 'translator' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().details).toEqual([{ path: 'name', message: 'You already have a preset named translator' }]);

    const edited = await t.request({ method: 'PATCH', url: `/api/chat/presets/${preset.id}`, cookie: owner, payload: { temperature: null, name: 'French' } });
    expect(edited.json()).toMatchObject({ name: 'French', temperature: null, systemPrompt: 'Translate into French.' });
    const tooLong = await create({ name: 'Long', systemPrompt: 'x'.repeat(8_001) });
    expect(tooLong.json().details).toEqual([{ path: 'systemPrompt', message: 'The system prompt must be at most 8,000 characters' }]);

    // Another user sees none of them and cannot touch them.
    expect(await list(other)).toEqual([]);
    for (const method of ['PATCH', 'DELETE'] as const) {
      const res = await t.request({ method, url: `/api/chat/presets/${preset.id}`, cookie: other, ...(method === 'PATCH' ? { payload: { name: 'Mine' } } : {}) });
      expect(res.statusCode).toBe(404);
    }
    expect((await create({ name: 'Translator' }, other)).statusCode).toBe(201);

    expect((await t.request({ method: 'DELETE', url: `/api/chat/presets/${preset.id}`, cookie: owner })).statusCode).toBe(204);
    expect((await list()).map((p) => p.name)).toEqual(['Brief']);
  });

  it('keeps at most 50 presets a user', async () => {
    const cookie = await t.signIn('presets-many@example.com');
    for (let i = 0; i < 50; i++) expect((await create({ name: `Preset ${i}` }, cookie)).statusCode).toBe(201);
    const res = await create({ name: 'One more' }, cookie);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('You can keep 50 presets. Delete one to add another.');
  });
});
