import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { CHAT_PROVIDER_INFO } from '../../../../contracts/chat.ts';
import type { ChatMessage } from '../lib/chat-storage.ts';
import { CHAT_VARIANTS } from '../lib/chat-variant.ts';
import { MessageList } from './message-list.tsx';

// Counts the Markdown renders (each one parses and highlights a whole answer).
const rendered = vi.hoisted(() => ({ markdown: [] as string[] }));
vi.mock('./chat-markdown.tsx', () => ({
  ChatMarkdown: ({ children }: { children: string }) => {
    rendered.markdown.push(children);
    return <p>{children}</p>;
  },
}));

const at = new Date('2025-05-01T10:00:00Z').toISOString();
const conversation = (n: number): ChatMessage[] =>
  Array.from({ length: n }, (_, i): ChatMessage =>
    i % 2 === 0
      ? { id: `u${i}`, role: 'user', content: `Question ${i}`, timestamp: at }
      : { id: `a${i}`, role: 'assistant', content: `Answer ${i}\n\n\`\`\`ts\nconst x = ${i};\n\`\`\``, timestamp: at, model: 'gpt-4o' },
  );
const label = (id?: string) => id;
const branch = (messages: ChatMessage[]) => messages.map((message) => ({ message, index: 0, count: 1 }));

describe('MessageList', () => {
  // Rendering 500 messages takes a few seconds on a busy machine.
  it('a streamed word renders the answer it belongs to, not the 500 messages before it', { timeout: 30_000 }, () => {
    const messages = conversation(500);
    const props = { info: CHAT_PROVIDER_INFO.openai, variant: CHAT_VARIANTS.standard, pending: true, configError: false, modelLabel: label };
    const answer: ChatMessage = { id: 'streaming', role: 'assistant', content: 'The', timestamp: at, model: 'gpt-4o', streaming: true };
    const { rerender } = render(<MessageList {...props} branch={branch([...messages, answer])} streamingId="streaming" />);
    expect(rendered.markdown).toHaveLength(251);

    rendered.markdown.length = 0;
    for (const content of ['The first', 'The first words']) {
      rerender(<MessageList {...props} branch={branch([...messages, { ...answer, content }])} streamingId="streaming" />);
    }
    expect(rendered.markdown).toEqual(['The first', 'The first words']);
    expect(screen.getByText('The first words')).toBeInTheDocument();
  });
});
