import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ChatMarkdown } from './chat-markdown.tsx';

const ANSWER = `Here you go:

\`\`\`ts
const answer: number = 42;
\`\`\`

\`\`\`
plain <b>text</b>
\`\`\`

Inline \`code\`, a [link](javascript:alert(1)) and ![tracker](https://evil.example/pixel.png).

<script>alert('xss')</script>
`;

describe('ChatMarkdown', () => {
  it('highlights code blocks once highlight.js has loaded, with a copy button per block', async () => {
    const { container } = render(<ChatMarkdown>{ANSWER}</ChatMarkdown>);
    expect(screen.getByText('ts')).toBeInTheDocument();
    await waitFor(() => expect(container.querySelector('code.hljs .hljs-keyword')).toHaveTextContent('const'));
    expect(container.querySelector('code.hljs')).toHaveTextContent('const answer: number = 42;');
    // No language: plain, escaped text.
    expect(screen.getByText('plain <b>text</b>')).toBeInTheDocument();

    const user = userEvent.setup();
    const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue(undefined);
    const copyButtons = screen.getAllByRole('button', { name: 'Copy code' });
    expect(copyButtons).toHaveLength(2);
    await user.click(copyButtons[0]!);
    expect(writeText).toHaveBeenCalledWith('const answer: number = 42;');
    expect(screen.getByRole('button', { name: 'Copied' })).toBeInTheDocument();
  });

  it('renders no raw HTML, drops unsafe links and does not load images from answers', () => {
    const { container } = render(<ChatMarkdown>{ANSWER}</ChatMarkdown>);
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByRole('link', { name: 'tracker' })).toHaveAttribute('href', 'https://evil.example/pixel.png');
    expect(screen.queryByRole('link', { name: 'link' })).not.toBeInTheDocument();
    expect(screen.getAllByText('code').map((el) => el.tagName)).toContain('CODE');
  });
});
