import '../../../lib/zod-csp.ts';
import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { CHAT_PROVIDER_INFO, type TChatProvider } from '../../../../contracts/chat.ts';
import type { TProject } from '../../../../contracts/projects.ts';
import { canOwnAgents } from '../../../../contracts/constants.ts';
import { useAuth } from '../../../lib/auth-context.ts';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { exportUrl } from '../api/chat-api.ts';
import { useChatHistory } from '../hooks/use-chat-history.ts';
import { useChatSend } from '../hooks/use-chat-send.ts';
import { useChatSession } from '../hooks/use-chat-session.ts';
import { useModels, useWebSearchOffered } from '../hooks/use-models.ts';
import { useOrganiseChat, useProjects } from '../hooks/use-projects.ts';
import { WebSearchSwitch } from './use-agents-switch.tsx';
import { useWideScreen } from '../hooks/use-wide-screen.ts';
import { download, exportLocally } from '../lib/chat-export.ts';
import type { ChatHistoryEntry } from '../lib/chat-storage.ts';
import { chatVariant } from '../lib/chat-variant.ts';
import { mayShareChats } from '../lib/share-roles.ts';
import { ChatComposer } from './chat-composer.tsx';
import { ChatHeader } from './chat-header.tsx';
import { ChatSettingsDialog } from './chat-settings-dialog.tsx';
import { ShareDialog } from './share-dialog.tsx';
import { HistorySidebar, type Organise } from './history-sidebar.tsx';
import { ProjectDialog } from './project-dialog.tsx';
import { ChatActionsContext, PendingContext, type ChatActions } from './message-actions.tsx';
import { MessageList } from './message-list.tsx';

/**
 * One chat screen for every assistant (SPEC section 2, DESIGN section 6), driven by the
 * provider's record in contracts/chat.ts (endpoint, models, texts, storage) and its variant's
 * record in lib/chat-variant.ts (how Grok's screen differs). It composes the open chat, its
 * versions and its saving (useChatSession), sending, streaming and answering again
 * (useChatSend), the history on the server (useChatHistory), the header, the messages, the
 * composer and the history sidebar.
 */
export default function ChatScreen({ provider }: { provider: TChatProvider }) {
  const info = CHAT_PROVIDER_INFO[provider];
  const variant = chatVariant(info);
  usePageTitle(`Chat with ${info.label}`);
  const { models, defaultModel } = useModels(info);
  const session = useChatSession(info, models, defaultModel);
  // "Use my agents" (issue 31): for the owner of agents (an admin), on a model that calls tools.
  const { role } = useAuth();
  const agentsOffered = canOwnAgents(role) && models.find((m) => m.id === session.model)?.tools === true;
  const { settings, setSettings } = session;
  const agents = useMemo(
    () => (agentsOffered ? { on: settings.useAgents ?? true, onChange: (on: boolean) => setSettings({ ...settings, useAgents: on }) } : null),
    [agentsOffered, settings, setSettings],
  );
  // "Search the web" (issue 32): where the server has a search engine; each chat keeps its own.
  const webSearchOffered = useWebSearchOffered();
  const sender = useChatSend({
    info,
    variant,
    chatId: session.chatId,
    branch: session.branch,
    model: session.model,
    models,
    settings: session.settings,
    agentsOffered,
    webSearchOffered,
    update: session.update,
  });
  const webSearch = useMemo(
    () =>
      webSearchOffered ? (
        <WebSearchSwitch checked={settings.webSearch === true} onCheckedChange={(on) => setSettings({ ...settings, webSearch: on })} disabled={sender.pending} />
      ) : null,
    [webSearchOffered, settings, setSettings, sender.pending],
  );
  const [search, setSearch] = useState('');
  const [settingsOpen, setSettingsOpen] = useState(false);
  const openSettings = useCallback(() => setSettingsOpen(true), []);
  const [shareOpen, setShareOpen] = useState(false);
  const openShare = useCallback(() => setShareOpen(true), []);
  // Share (issue 32): offered to the roles the operator lets share (CHAT_SHARE_ROLES), none by default.
  const shareOffered = mayShareChats(role);
  const history = useChatHistory(info, session.history, search);

  // Answers survive a reload (docs/decisions/0056). The screen opens on a new chat (SPEC); when
  // the user's newest chat here has an answer being written (this tab was reloaded mid-answer, or
  // another tab is asking), it opens that chat instead, once, before anything else happens.
  const firstList = useRef(true);
  useEffect(() => {
    if (!firstList.current || !history.settled) return;
    firstList.current = false;
    if (history.answering && session.tree.messages.length === 0 && !sender.pending) session.open(history.answering);
  }, [history.settled, history.answering, session, sender.pending]);
  // A chat opened with an answer still being written joins it: what came so far, then the rest.
  const writing = session.loading ? undefined : session.branch.find((b) => b.message.streaming && b.message.role === 'assistant')?.message.id;
  useEffect(() => {
    if (writing && !sender.pending) sender.attach(writing);
  }, [writing, sender]);

  const sidebarId = useId();
  const toggleRef = useRef<HTMLButtonElement>(null);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [pinned, setPinned] = useState(true);
  const wide = useWideScreen();
  const pinnable = variant.sidebarToggle.onWideScreens;
  const sidebarShown = pinnable && wide ? pinned : drawerOpen;
  const toggleSidebar = useCallback(() => {
    if (pinnable && wide) setPinned((p) => !p);
    else setDrawerOpen((o) => !o);
  }, [pinnable, wide]);
  const closeDrawer = () => {
    setDrawerOpen(false);
    toggleRef.current?.focus();
  };

  /** Another chat replaces the open one: the answer in flight stops there, kept as far as it got. */
  const switching = () => {
    setDrawerOpen(false);
    return sender.reset();
  };
  const newChat = () => session.newChat(switching());
  const openChat = (id: string) => {
    if (id === session.chatId) return setDrawerOpen(false);
    session.open(id, switching());
  };

  // Projects and pins (issue 32).
  const { projects } = useProjects();
  const [projectDialog, setProjectDialog] = useState<{ open: boolean; project: TProject | null }>({ open: false, project: null });
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const organiseChat = useOrganiseChat((id, projectId) => {
    if (id === session.chatId) session.followMove(projectId);
  });
  /** A new chat in the project, with its default assistant: here, or on that assistant's screen. */
  const newChatIn = (project: TProject) => {
    const assistant = project.defaultAssistant;
    if (assistant && assistant.provider !== provider) {
      setDrawerOpen(false);
      return void navigate(`${CHAT_PROVIDER_INFO[assistant.provider].path}?${new URLSearchParams({ project: project.id, model: assistant.model }).toString()}`);
    }
    session.newChat(switching(), { projectId: project.id, ...(assistant ? { model: assistant.model } : {}) });
  };
  // Arrived from another assistant's sidebar: a chat of this one to open, or a new chat in a project.
  const arrival = useRef({ chat: params.get('chat'), project: params.get('project'), model: params.get('model') });
  useEffect(() => {
    const { chat: chatParam, project, model } = arrival.current;
    if (!chatParam && !project) return;
    arrival.current = { chat: null, project: null, model: null };
    setParams({}, { replace: true });
    if (chatParam) session.open(chatParam);
    else if (project) session.newChat(null, { projectId: project, ...(model ? { model } : {}) });
  }, [session, setParams]);
  const organise: Organise = {
    provider,
    projects,
    onPin: organiseChat.pin,
    onMove: organiseChat.move,
    onOpenProject: (project) => setProjectDialog({ open: true, project }),
    onNewChatIn: newChatIn,
  };
  const openProject = projects.find((p) => p.id === session.settings.projectId);

  const removeChat = (entry: ChatHistoryEntry) => {
    // Deleting another chat leaves an answer streaming in the open one alone.
    if (session.remove(entry.id)) switching();
  };

  const modelLabel = useCallback((id?: string) => (id ? (models.find((m) => m.id === id)?.label ?? id) : undefined), [models]);

  const latest = useRef(session);
  useLayoutEffect(() => {
    latest.current = session;
  });
  /** The open chat as a file: from the server once it holds all of it, else made here. */
  const exportChat = useCallback(
    async (format: 'md' | 'json') => {
      const chat = latest.current;
      if (await chat.flush()) return download(exportUrl(chat.chatId, format));
      exportLocally({ id: chat.chatId, provider, title: chat.title, model: chat.model, messages: chat.tree.messages, leafId: chat.tree.leafId, settings: chat.settings, renamed: false }, format);
    },
    [provider],
  );
  const onExport = useCallback((format: 'md' | 'json') => void exportChat(format), [exportChat]);

  const actions = useMemo<ChatActions>(
    () => ({ answer: sender.answer, continueAnswer: sender.continueAnswer, edit: sender.edit, switchVersion: session.switchVersion }),
    [sender.answer, sender.continueAnswer, sender.edit, session.switchVersion],
  );

  return (
    <div className="flex h-[calc(100dvh-4rem)] min-h-[28rem]">
      <HistorySidebar
        id={sidebarId}
        list={history}
        search={search}
        onSearch={setSearch}
        currentId={session.chatId}
        drawerOpen={drawerOpen}
        pinned={pinnable ? pinned : true}
        onClose={closeDrawer}
        onNewChat={newChat}
        onSelect={openChat}
        onDelete={removeChat}
        onRename={(entry, title) => session.rename(entry.id, title)}
        organise={organise}
      />
      <section aria-labelledby={`${sidebarId}-title`} className="flex min-w-0 flex-1 flex-col">
        <ChatHeader
          titleId={`${sidebarId}-title`}
          label={info.label}
          models={models}
          model={session.model}
          onModelChange={session.setModel}
          pending={sender.pending}
          sidebarId={sidebarId}
          sidebarShown={sidebarShown}
          toggleLabel={variant.sidebarToggle.label}
          toggleOnWideScreens={pinnable}
          onToggleSidebar={toggleSidebar}
          toggleRef={toggleRef}
          canExport={session.branch.length > 0}
          onExport={onExport}
          onSettings={openSettings}
          onShare={shareOffered ? openShare : undefined}
          agents={agents}
        />
        {openProject && (
          <p className="border-b border-slate-200 bg-slate-50 px-4 py-1.5 text-xs text-slate-700">
            In project{' '}
            <button type="button" onClick={() => setProjectDialog({ open: true, project: openProject })} className="font-medium text-brand-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600">
              {openProject.name}
            </button>
          </p>
        )}
        <ChatActionsContext.Provider value={actions}>
          <PendingContext.Provider value={sender.pending}>
          <MessageList
            key={session.chatId}
            live={sender.live}
            info={info}
            variant={variant}
            branch={session.branch}
            streamingId={sender.streamingId}
            pending={sender.pending}
            configError={sender.configError}
            modelLabel={modelLabel}
            loading={session.loading}
          />
          </PendingContext.Provider>
        </ChatActionsContext.Provider>
        <ChatComposer
          label={info.label}
          variant={variant}
          model={models.find((m) => m.id === session.model)}
          pending={sender.pending}
          inlineError={sender.inlineError}
          onSend={sender.send}
          onStop={sender.stop}
          extra={webSearch}
        />
      </section>
      {shareOffered && <ShareDialog open={shareOpen} onOpenChange={setShareOpen} chatId={session.chatId} canShare={session.branch.length > 0} save={() => latest.current.flush()} />}
      <ChatSettingsDialog
        open={settingsOpen}
        onOpenChange={setSettingsOpen}
        info={info}
        model={models.find((m) => m.id === session.model)}
        settings={session.settings}
        onSave={session.setSettings}
      />
      <ProjectDialog open={projectDialog.open} onOpenChange={(open) => setProjectDialog((d) => ({ ...d, open }))} project={projectDialog.project} onNewChatIn={newChatIn} />
    </div>
  );
}
