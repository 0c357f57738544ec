import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TChatRequest } from '../../../../contracts/chat.ts';
import { fakeChatHistory } from '../../../test/fake-chat-history.ts';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import ChatScreen from './chat-screen.tsx';

// Projects and pins in the chat's sidebar (issue 32, docs/decisions/0081).

const USER_ID = '00000000-0000-4000-8000-000000000001';
const PROVIDERS = { 'GET /api/chat/providers': { body: { providers: [] } } };
const at = (minute: number) => new Date(Date.UTC(2025, 5, 1, 9, minute)).toISOString();
const streamed = (text: string) =>
  new Response(`event: delta\ndata: ${JSON.stringify({ text })}\n\nevent: done\ndata: ${JSON.stringify({ model: 'gpt-4o' })}\n\n`, { headers: { 'content-type': 'text/event-stream' } });

const renderChat = () => renderWithProviders(<ChatScreen provider="openai" />, { auth: signedInAs('admin', { id: USER_ID }), path: '/chat-console' });
const sidebar = () => screen.getByRole('complementary', { name: 'Chat history' });
const history = () => within(sidebar()).getByRole('heading', { name: 'Chat History' }).nextElementSibling as HTMLElement;
const messageBox = () => screen.getByRole('textbox', { name: /^Message / });

function seedChats(server: ReturnType<typeof fakeChatHistory>) {
  for (const [i, title] of ['Invoices', 'Payroll', 'Board pack'].entries()) {
    server.seed({ id: `chat-${i + 1}-seeded`, title, messages: [{ id: 'q', parentId: null, role: 'user', content: title, timestamp: at(i) }], updatedAt: at(i) });
  }
}

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('ChatScreen: projects and pins', () => {
  it('pins a chat from its menu: the server is told, and the chat heads the list marked Pinned', async () => {
    const server = fakeChatHistory();
    seedChats(server);
    const { requests } = stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    await within(sidebar()).findByRole('button', { name: /^Invoices/ });
    expect(within(history()).getAllByRole('button', { name: /^(Invoices|Payroll|Board pack)/ }).map((b) => b.textContent)[0]).toMatch(/^Board pack/);

    await user.click(within(sidebar()).getByRole('button', { name: 'More actions: Invoices' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Pin chat' }));
    await waitFor(() => expect(requests.find((r) => r.method === 'PATCH')).toMatchObject({ url: '/api/chat/conversations/chat-1-seeded', body: { pinned: true } }));
    // Its name says so first: "Pinned Invoices".
    await waitFor(() => expect(within(history()).getAllByRole('button', { name: /(Invoices|Payroll|Board pack)/ })[0]).toHaveAccessibleName(/^Pinned Invoices/));
    expect(within(within(history()).getAllByRole('listitem')[0]!).getByLabelText('Pinned')).toBeInTheDocument();

    // And unpinned the same way.
    await user.click(within(sidebar()).getByRole('button', { name: 'More actions: Invoices' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Unpin chat' }));
    await waitFor(() => expect(server.chats.get('chat-1-seeded')?.pinned).toBe(false));
  });

  it('makes a project in its dialog, moves a chat into it, and shows it under the project', async () => {
    const server = fakeChatHistory();
    seedChats(server);
    const { requests } = stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    await within(sidebar()).findByRole('button', { name: /^Invoices/ });

    await user.click(within(sidebar()).getByRole('button', { name: 'New project' }));
    const dialog = await screen.findByRole('dialog', { name: 'New project' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Acme audit');
    await user.type(within(dialog).getByRole('textbox', { name: 'Instructions' }), 'Answer as our auditor.');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Default assistant' }), 'GPT');
    await user.click(within(dialog).getByRole('button', { name: 'Create project' }));
    await waitFor(() =>
      expect(requests.find((r) => r.method === 'POST' && r.url === '/api/projects')?.body).toEqual({
        name: 'Acme audit',
        instructions: 'Answer as our auditor.',
        defaultAssistant: { provider: 'openai', model: 'gpt-4o' },
      }),
    );
    // The dialog stays for its files and a first chat; no serious accessibility problem in it.
    expect(await within(dialog).findByText('No files yet')).toBeInTheDocument();
    const serious = (await axe.run(dialog, { rules: { 'color-contrast': { enabled: false } } })).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => v.id)).toEqual([]);
    await user.keyboard('{Escape}');

    await user.click(await within(sidebar()).findByRole('button', { name: 'More actions: Payroll' }));
    // By keyboard: the submenu opens to the right, Enter picks the project.
    (await screen.findByRole('menuitem', { name: 'Move to project' })).focus();
    await user.keyboard('{ArrowRight}');
    await waitFor(() => expect(screen.getByRole('menuitem', { name: 'Acme audit' })).toHaveFocus());
    await user.keyboard('{Enter}');
    const [project] = [...server.projects.values()];
    await waitFor(() => expect(requests.find((r) => r.method === 'PATCH')).toMatchObject({ url: '/api/chat/conversations/chat-2-seeded', body: { projectId: project!.id } }));

    const toggle = within(sidebar()).getByRole('button', { name: /^Acme audit/ });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const chats = await within(sidebar()).findByRole('list', { name: 'Chats in Acme audit' });
    expect(within(chats).getByRole('button', { name: 'Payroll' })).toBeInTheDocument();
  });

  it('adds and deletes a project’s files in its dialog', async () => {
    const server = fakeChatHistory();
    const project = server.seedProject({ name: 'Due diligence' });
    stubFetch(PROVIDERS, server.handle);
    renderChat();
    const user = userEvent.setup();
    await user.click(await within(sidebar()).findByRole('button', { name: 'Project settings: Due diligence' }));
    const dialog = await screen.findByRole('dialog', { name: 'Due diligence' });
    expect(within(dialog).getByRole('textbox', { name: 'Name' })).toHaveValue('Due diligence');
    await within(dialog).findByText('No files yet');

    await user.upload(within(dialog).getByTestId('knowledge-file-input'), new File(['%PDF-1.7'], 'nda.pdf', { type: 'application/pdf' }));
    const files = await within(dialog).findByRole('list', { name: 'Files of Due diligence' });
    expect(within(files).getByText('nda.pdf')).toBeInTheDocument();
    expect([...server.documents.values()]).toMatchObject([{ name: 'nda.pdf', projectId: project.id }]);

    await user.click(within(files).getByRole('button', { name: 'Delete file: nda.pdf' }));
    expect(await within(dialog).findByText('No files yet')).toBeInTheDocument();
    expect(server.documents.size).toBe(0);
  });

  it('starts a new chat in a project: its question carries the project, and the saved chat starts in it', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = fakeChatHistory();
    const project = server.seedProject({ name: 'Forecast', instructions: 'Think in quarters.', defaultAssistant: { provider: 'openai', model: 'gpt-4.1' } });
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => streamed('Q3 looks fine') }, server.handle);
    renderChat();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.click(await within(sidebar()).findByRole('button', { name: /^Forecast/ }));
    await user.click(await within(sidebar()).findByRole('button', { name: 'New chat in Forecast' }));
    // On the project's default model, and said to be in the project.
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('gpt-4.1');
    expect(screen.getByText(/In project/)).toHaveTextContent('In project Forecast');

    await user.type(messageBox(), 'How is Q3?{Enter}');
    await screen.findByText('Q3 looks fine');
    const ask = requests.find((r) => r.url === '/api/openai/chat')!.body as TChatRequest;
    expect(ask).toMatchObject({ projectId: project.id, model: 'gpt-4.1' });
    act(() => vi.advanceTimersByTime(1000));
    await waitFor(() => expect([...server.chats.values()]).toMatchObject([{ title: 'How is Q3?', projectId: project.id }]));
  });
});
