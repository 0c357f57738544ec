import { conversationMarkdown, exportFileName, type TConversation } from '../../../../contracts/chat-history.ts';
import type { TChatProvider } from '../../../../contracts/chat.ts';
import type { ChatMessage, ChatSettings } from './chat-storage.ts';
import { storedMessage } from './chat-sync.ts';

/** Has the browser download a URL (the server names the file) or some text as a named file. */
export function download(href: string, fileName = ''): void {
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  link.rel = 'noopener';
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
}

export function downloadText(text: string, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  download(url, fileName);
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

type OpenChat = { id: string; provider: TChatProvider; title: string; model: string; messages: ChatMessage[]; leafId: string | null; settings: ChatSettings; renamed: boolean };

/** The open chat as the server would export it: for when the server cannot be reached. */
export function exportLocally(chat: OpenChat, format: 'md' | 'json'): void {
  const now = new Date().toISOString();
  const messages = chat.messages.filter((m) => !m.streaming).map((m) => storedMessage(m, now));
  const conversation: TConversation = {
    id: chat.id,
    provider: chat.provider,
    title: chat.title,
    renamed: chat.renamed,
    autoTitle: chat.title,
    model: chat.model,
    createdAt: messages[0]?.timestamp ?? now,
    updatedAt: now,
    answering: false,
    leafId: chat.leafId,
    systemPrompt: chat.settings.systemPrompt,
    temperature: chat.settings.temperature,
    messages,
  };
  if (format === 'json') downloadText(`${JSON.stringify(conversation, null, 2)}\n`, exportFileName(chat.title, 'json'), 'application/json');
  else downloadText(conversationMarkdown(conversation), exportFileName(chat.title, 'md'), 'text/markdown');
}
