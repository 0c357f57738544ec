import type { TConversation, TConversationList, TConversationMessage, TSaveConversation } from '../../contracts/chat-history.ts';
import type { TChatProvider } from '../../contracts/chat.ts';
import type { TDocument } from '../../contracts/documents.ts';
import type { TCreateProject, TProject, TUpdateProject } from '../../contracts/projects.ts';
import { jsonResponse, type StubRequest } from './fetch-stub.ts';

/**
 * The chat history routes (/api/chat/conversations) as a small in-memory server for client
 * tests, answering as the real one does (server/modules/chat/conversations.service.ts): a save
 * creates or adds the messages it lacks and takes the fields; an import creates what is missing
 * and only adds messages to what exists; search matches words of titles and messages; pinned
 * chats come first. Projects (/api/projects) and their knowledge files (/api/documents) too.
 */
export function fakeChatHistory() {
  const chats = new Map<string, TConversation>();
  let clock = Date.parse('2025-06-01T10:00:00.000Z');
  const tick = () => new Date((clock += 1000)).toISOString();

  const projects = new Map<string, TProject>();
  const documents = new Map<string, TDocument>();
  let ids = 0;
  const uuid = () => `00000000-0000-4000-8000-${(++ids).toString().padStart(12, '0')}`;

  const summaryOf = (c: TConversation) => ({
    id: c.id,
    provider: c.provider,
    title: c.title,
    renamed: c.renamed,
    model: c.model,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    answering: c.answering,
    projectId: c.projectId ?? null,
    pinned: c.pinned ?? false,
  });

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
      projectId: body.projectId ?? null,
      pinned: false,
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
    if (url.pathname.startsWith('/api/projects')) return handleProject(request, url);
    if (url.pathname.startsWith('/api/documents')) return handleDocument(request, url);
    if (!url.pathname.startsWith('/api/chat/conversations')) return undefined;
    const id = decodeURIComponent(url.pathname.split('/')[4] ?? '');
    if (url.pathname === '/api/chat/conversations' && request.method === 'GET') {
      const provider = url.searchParams.get('provider') as TChatProvider | null;
      const q = url.searchParams.get('q');
      const projectId = url.searchParams.get('projectId');
      const list = [...chats.values()]
        .filter((c) => (!provider || c.provider === provider) && (!projectId || c.projectId === projectId) && (!q || matches(c, q)))
        .sort((a, b) => Number(b.pinned ?? false) - Number(a.pinned ?? false) || b.updatedAt.localeCompare(a.updatedAt));
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
      const patch = request.body as { customTitle?: string | null; projectId?: string | null; pinned?: boolean };
      if (patch.customTitle !== undefined) Object.assign(chat, { title: patch.customTitle ?? chat.autoTitle, renamed: patch.customTitle !== null });
      if (patch.projectId) {
        if (!projects.has(patch.projectId)) return jsonResponse({ error: 'Not Found', message: 'Project not found' }, 404);
      }
      if (patch.projectId !== undefined) chat.projectId = patch.projectId;
      if (patch.pinned !== undefined) chat.pinned = patch.pinned;
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

  const withCounts = (p: TProject): TProject => ({
    ...p,
    chats: [...chats.values()].filter((c) => c.projectId === p.id).length,
    documents: [...documents.values()].filter((d) => d.projectId === p.id).length,
  });
  const nameTaken = (name: string, except?: string) => [...projects.values()].some((p) => p.id !== except && p.name.toLowerCase() === name.toLowerCase());
  const taken = (name: string) => jsonResponse({ error: 'Conflict', message: 'Invalid request', details: [{ path: 'name', message: `You already have a project named ${name}` }] }, 409);

  function handleProject(request: StubRequest, url: URL): Response {
    const id = decodeURIComponent(url.pathname.split('/')[3] ?? '');
    if (!id && request.method === 'GET') return jsonResponse({ projects: [...projects.values()].map(withCounts).sort((a, b) => a.name.localeCompare(b.name)) });
    if (!id && request.method === 'POST') {
      const body = request.body as TCreateProject;
      const name = body.name.trim();
      if (nameTaken(name)) return taken(name);
      const project = seedProject({ name, instructions: body.instructions ?? '', defaultAssistant: body.defaultAssistant ?? null });
      return jsonResponse(project, 201);
    }
    const project = projects.get(id);
    if (!project) return jsonResponse({ error: 'Not Found', message: 'Project not found' }, 404);
    if (request.method === 'GET') return jsonResponse(withCounts(project));
    if (request.method === 'PATCH') {
      const patch = request.body as TUpdateProject;
      if (patch.name !== undefined && nameTaken(patch.name.trim(), id)) return taken(patch.name.trim());
      Object.assign(project, { ...patch, ...(patch.name !== undefined ? { name: patch.name.trim() } : {}), updatedAt: tick() });
      return jsonResponse(withCounts(project));
    }
    if (request.method === 'DELETE') {
      projects.delete(id);
      for (const [key, d] of documents) if (d.projectId === id) documents.delete(key);
      for (const c of chats.values()) if (c.projectId === id) c.projectId = null;
      return new Response(null, { status: 204 });
    }
    return jsonResponse({ error: 'Not Found' }, 404);
  }

  function handleDocument(request: StubRequest, url: URL): Response {
    const id = decodeURIComponent(url.pathname.split('/')[3] ?? '');
    if (!id && request.method === 'GET') {
      const projectId = url.searchParams.get('projectId');
      return jsonResponse({ documents: [...documents.values()].filter((d) => !projectId || d.projectId === projectId) });
    }
    if (!id && request.method === 'POST') {
      const projectId = url.searchParams.get('projectId');
      if (projectId && !projects.has(projectId)) return jsonResponse({ error: 'Not Found', message: 'Project not found' }, 404);
      const name = url.searchParams.get('name') ?? 'file';
      const document: TDocument = {
        id: uuid(),
        name,
        type: name.endsWith('.pdf') ? 'pdf' : 'text',
        bytes: 2048,
        status: 'ready',
        error: null,
        pages: null,
        passages: 3,
        embeddingModel: null,
        projectId,
        createdAt: tick(),
      };
      documents.set(document.id, document);
      return jsonResponse(document, 201);
    }
    if (id && request.method === 'DELETE' && documents.delete(id)) return new Response(null, { status: 204 });
    return jsonResponse({ error: 'Not Found', message: 'Document not found' }, 404);
  }

  /** A project as the server holds it. */
  function seedProject(fields: Partial<TProject> & { name: string }): TProject {
    const at = tick();
    const project: TProject = { id: uuid(), instructions: '', defaultAssistant: null, chats: 0, documents: 0, createdAt: at, updatedAt: at, ...fields };
    projects.set(project.id, project);
    return withCounts(project);
  }

  return { chats, projects, documents, handle, seed, seedProject };
}
