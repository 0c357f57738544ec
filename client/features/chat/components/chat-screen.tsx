import '../../../lib/zod-csp.ts';
import { useCallback, useId, useRef, useState } from 'react';
import { CHAT_PROVIDER_INFO, type TChatProvider } from '../../../../contracts/chat.ts';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { useChatSend } from '../hooks/use-chat-send.ts';
import { useChatSession } from '../hooks/use-chat-session.ts';
import { useModels } from '../hooks/use-models.ts';
import { useWideScreen } from '../hooks/use-wide-screen.ts';
import type { ChatHistoryEntry } from '../lib/chat-storage.ts';
import { chatVariant } from '../lib/chat-variant.ts';
import { ChatComposer } from './chat-composer.tsx';
import { ChatHeader } from './chat-header.tsx';
import { HistorySidebar } from './history-sidebar.tsx';
import { MessageList } from './message-list.tsx';

/**
 * One chat screen for every assistant (SPEC section 2, DESIGN section 6), driven by the
 * provider's record in contracts/chat.ts (endpoint, models, texts, storage) and its variant's
 * record in lib/chat-variant.ts (how Grok's screen differs). It composes the open chat and its
 * saving (useChatSession), sending and streaming (useChatSend), the header, the messages, the
 * composer and the history sidebar.
 */
export default function ChatScreen({ provider }: { provider: TChatProvider }) {
  const info = CHAT_PROVIDER_INFO[provider];
  const variant = chatVariant(info);
  usePageTitle(`Chat with ${info.label}`);
  const { models, defaultModel } = useModels(info);
  const session = useChatSession(info.storageService, models, defaultModel);
  const sender = useChatSend({ info, variant, messages: session.messages, model: session.model, update: session.update });

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

  /** Another chat replaces the open one: the answer in flight is dropped with it. */
  const switching = () => {
    sender.reset();
    setDrawerOpen(false);
  };
  const newChat = () => {
    switching();
    session.newChat();
  };
  const openChat = (id: string) => {
    if (session.open(id)) switching();
  };
  const removeChat = (entry: ChatHistoryEntry) => {
    if (session.remove(entry)) switching();
  };

  const modelLabel = useCallback((id?: string) => (id ? (models.find((m) => m.id === id)?.label ?? id) : undefined), [models]);

  return (
    <div className="flex h-[calc(100dvh-4rem)] min-h-[28rem]">
      <HistorySidebar
        id={sidebarId}
        entries={session.history}
        currentId={session.chatId}
        drawerOpen={drawerOpen}
        pinned={pinnable ? pinned : true}
        onClose={closeDrawer}
        onNewChat={newChat}
        onSelect={openChat}
        onDelete={removeChat}
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
        />
        <MessageList
          info={info}
          variant={variant}
          messages={session.messages}
          streamingId={sender.streamingId}
          pending={sender.pending}
          configError={sender.configError}
          modelLabel={modelLabel}
        />
        <ChatComposer label={info.label} variant={variant} pending={sender.pending} inlineError={sender.inlineError} onSend={sender.send} onStop={sender.stop} />
      </section>
    </div>
  );
}
