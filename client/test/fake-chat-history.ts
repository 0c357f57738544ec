import type { TConversation, TConversationList, TConversationMessage, TSaveConversation } from '../../contracts/chat-history.ts';
import type { TChatProvider } from '../../contracts/chat.ts';
import { jsonResponse, type StubRequest } from './fetch-stub.ts';

/**
 * The chat history routes (/api/chat/conversations) as a small in-memory server for client
 * tests, answering as the real one does (server/modules/chat/conversations.service.ts): a save
 * creates or adds the messages it lacks and takes the fields; an import creates what is missing
 * and only adds messages to what exists; search matches words of titles and messages.
 */
export function fakeChatHistory() {
  const chats = new Map<string, TConversation>();
  let clock = Date.parse('2025-06-01T10:00:00.000Z');
  const tick = () => new Date((clock += 1000)).toISOString();

  const summaryOf = (c: TConversation) => ({ id: c.id, provider: c.provider, title: c.title, renamed: c.renamed, model: c.model, createdAt: c.createdAt, updatedAt: c.updatedAt, answering: c.answering });

  function put(body: TSaveConversation, importing: boolean): boolean {
    const existing = chats.get(body.id);
    const chat: TConversation = existing ?? {
      id: body.id,
      provider: body.provider,
      title: body.title,
      renamed: false,
      autoTitle: body.title,
      model: body.model,
      createdAt: body.createdAt ?? tick(),
      updatedAt: body.updatedAt,
      answering: false,
      leafId: null,
      systemPrompt: body.systemPrompt ?? '',
      temperature: body.temperature ?? null,
      messages: [],
    };
    const have = new Set(chat.messages.map((m) => m.id));
    chat.messages.push(...body.messages.filter((m) => !have.has(m.id)));
    if (!existing || !importing) {
      Object.assign(chat, { autoTitle: body.title, model: body.model, leafId: body.leafId });
      if (!chat.renamed) chat.title = body.title;
      if (body.systemPrompt !== undefined) chat.systemPrompt = body.systemPrompt;
      if (body.temperature !== undefined) chat.temperature = body.temperature;
      if (!importing) chat.updatedAt = tick();
    }
    chats.set(body.id, chat);
    return !existing;
  }

  const matches = (c: TConversation, q: string) => [c.title, ...c.messages.map((m) => m.content)].some((text) => text.toLowerCase().includes(q.toLowerCase()));

  function handle(request: StubRequest): Response | undefined {
    const url = new URL(request.url, 'http://test');
    if (!url.pathname.startsWith('/api/chat/conversations')) return undefined;
    const id = decodeURIComponent(url.pathname.split('/')[4] ?? '');
    if (url.pathname === '/api/chat/conversations' && request.method === 'GET') {
      const provider = url.searchParams.get('provider') as TChatProvider | null;
      const q = url.searchParams.get('q');
      const list = [...chats.values()]
        .filter((c) => (!provider || c.provider === provider) && (!q || matches(c, q)))
        .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
      return jsonResponse({ conversations: list.map(summaryOf), next: null } satisfies TConversationList);
    }
    if (url.pathname === '/api/chat/conversations' && request.method === 'POST') {
      const body = request.body as TSaveConversation;
      const created = put(body, false);
      return jsonResponse({ conversation: summaryOf(chats.get(body.id)!), created }, created ? 201 : 200);
    }
    if (url.pathname === '/api/chat/conversations/import' && request.method === 'POST') {
      let created = 0;
      for (const c of (request.body as { conversations: TSaveConversation[] }).conversations) if (put(c, true)) created++;
      return jsonResponse({ created, updated: 0 });
    }
    const chat = chats.get(id);
    if (!chat) return jsonResponse({ error: 'Not Found', message: 'Chat not found' }, 404);
    if (url.pathname.endsWith('/export')) return new Response(`# ${chat.title}\n`, { headers: { 'content-type': 'text/markdown' } });
    if (request.method === 'GET') return jsonResponse(chat);
    if (request.method === 'DELETE') {
      chats.delete(id);
      return new Response(null, { status: 204 });
    }
    if (request.method === 'PATCH') {
      const patch = request.body as { customTitle?: string | null };
      if (patch.customTitle !== undefined) Object.assign(chat, { title: patch.customTitle ?? chat.autoTitle, renamed: patch.customTitle !== null });
      return jsonResponse(chat);
    }
    return undefined;
  }

  /** A chat as another device saved it. */
  function seed(chat: Partial<TConversation> & { id: string; messages: TConversationMessage[] }): TConversation {
    const title = chat.title ?? chat.messages.find((m) => m.role === 'user')?.content ?? 'New Chat';
    const full: TConversation = {
      provider: 'openai',
      title,
      autoTitle: title,
      renamed: false,
      answering: false,
      model: 'gpt-4o',
      createdAt: tick(),
      updatedAt: tick(),
      leafId: chat.messages.at(-1)?.id ?? null,
      systemPrompt: '',
      temperature: null,
      ...chat,
    };
    chats.set(chat.id, full);
    return full;
  }

  return { chats, handle, seed };
}
