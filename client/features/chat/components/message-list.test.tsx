import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CHAT_PROVIDER_INFO } from '../../../../contracts/chat.ts';
import type { ChatMessage } from '../lib/chat-storage.ts';
import { CHAT_VARIANTS } from '../lib/chat-variant.ts';
import { createLiveAnswerStore } from '../lib/live-answer.ts';
import { MESSAGES_PAGE, MessageList } from './message-list.tsx';

// Counts the Markdown renders (each one parses and highlights a whole answer).
const rendered = vi.hoisted(() => ({ markdown: [] as string[] }));
vi.mock('./chat-markdown.tsx', () => {
  const Counted = ({ children }: { children: string }) => {
    rendered.markdown.push(children);
    return <p>{children}</p>;
  };
  return { ChatMarkdown: Counted, StreamingMarkdown: Counted };
});

const at = new Date('2025-05-01T10:00:00Z').toISOString();
const conversation = (n: number): ChatMessage[] =>
  Array.from({ length: n }, (_, i): ChatMessage =>
    i % 2 === 0
      ? { id: `u${i}`, role: 'user', content: `Question ${i}`, timestamp: at }
      : { id: `a${i}`, role: 'assistant', content: `Answer ${i}\n\n\`\`\`ts\nconst x = ${i};\n\`\`\``, timestamp: at, model: 'gpt-4o' },
  );
const label = (id?: string) => id;
const branch = (messages: ChatMessage[]) => messages.map((message) => ({ message, index: 0, count: 1 }));
const props = { info: CHAT_PROVIDER_INFO.openai, variant: CHAT_VARIANTS.standard, pending: true, configError: false, modelLabel: label, streamingId: 'streaming' };

beforeEach(() => {
  rendered.markdown.length = 0;
});

describe('MessageList', () => {
  it('renders a long chat’s last 60 messages; a streamed word renders its answer alone', () => {
    const live = createLiveAnswerStore();
    const answer: ChatMessage = { id: 'streaming', role: 'assistant', content: 'The', timestamp: at, model: 'gpt-4o', streaming: true };
    live.set({ id: 'streaming', content: 'The' });
    render(<MessageList {...props} live={live} branch={branch([...conversation(500), answer])} />);
    expect(rendered.markdown).toHaveLength(MESSAGES_PAGE / 2 + 1); // the answers among the last 60, and the one streaming
    expect(rendered.markdown.at(-1)).toBe('The');

    rendered.markdown.length = 0;
    for (const content of ['The first', 'The first words']) act(() => live.set({ id: 'streaming', content }));
    expect(rendered.markdown).toEqual(['The first', 'The first words']);
    expect(screen.getByText('The first words')).toBeInTheDocument();
  });

  it('shows earlier messages on request, 60 at a time', async () => {
    render(<MessageList {...props} pending={false} streamingId={null} branch={branch(conversation(150))} />);
    expect(screen.queryByText('Question 88')).not.toBeInTheDocument();
    expect(screen.getByText('Question 90')).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Show earlier messages (90 more)' }));
    expect(screen.getByText('Question 30')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Show earlier messages (30 more)' })).toBeInTheDocument();
  });
});
