import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../../../contracts/agents.ts';
import { toolLimitNote, type TProposal, type TToolStep } from '../../../../contracts/assistant-tools.ts';
import { backtestResult } from '../../../test/backtest-data.ts';
import type { TSaveConversation } from '../../../../contracts/chat-history.ts';
import type { TChatProvider } from '../../../../contracts/chat.ts';
import { fakeChatHistory } from '../../../test/fake-chat-history.ts';
import { sseStream, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import ChatScreen from './chat-screen.tsx';

// "Use my agents" and the tool steps of an answer (issue 31, docs/decisions/0076).

const USER_ID = '00000000-0000-4000-8000-000000000001';
const PROVIDERS = { 'GET /api/chat/providers': { body: { providers: [] } } };
const at = (minute: number) => new Date(Date.UTC(2025, 5, 1, 9, minute)).toISOString();
const log = () => screen.getByRole('log', { name: 'Messages' });
const messageBox = () => screen.getByRole('textbox', { name: /^Message / });
const agentsSwitch = () => screen.queryByRole('switch', { name: 'Use my agents' });
/** `saved`: the user's chats are saved (a user id; the test serves the history). */
const renderChat = (role: 'admin' | 'guest' = 'admin', provider: TChatProvider = 'openai', saved = false) =>
  renderWithProviders(<ChatScreen provider={provider} />, { auth: signedInAs(role, saved ? { id: USER_ID } : {}), path: '/chat-console' });

const listed = (status: TToolStep['status'], at = 0): TToolStep => ({
  id: 'call_1',
  tool: 'list_agents',
  args: {},
  argsText: 'all your agents',
  status,
  summary: status === 'running' ? '' : '3 agents, 1 failing',
  durationMs: status === 'running' ? 0 : 1_240,
  at,
});

beforeEach(() => localStorage.clear());
afterEach(() => vi.restoreAllMocks());

describe('ChatScreen: Use my agents', () => {
  it('is offered to an admin on a model that calls tools, on by default, sent with the question, and kept with the chat when turned off', async () => {
    const server = fakeChatHistory();
    const stream = sseStream();
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => stream.response }, server.handle);
    renderChat('admin', 'openai', true);
    const user = userEvent.setup();
    expect(agentsSwitch()).toBeChecked();

    // Keyboard: Space toggles it.
    agentsSwitch()!.focus();
    await user.keyboard(' ');
    expect(agentsSwitch()).not.toBeChecked();
    await user.type(messageBox(), 'Hello{Enter}');
    await waitFor(() => expect(requests.find((r) => r.url === '/api/openai/chat')).toBeDefined());
    expect(requests.find((r) => r.url === '/api/openai/chat')!.body).toMatchObject({ useAgents: false });
    expect(agentsSwitch()).toBeDisabled(); // not while an answer is pending
    act(() => {
      stream.send('delta', { text: 'Hi.' });
      stream.send('done', { model: 'gpt-4o', finish: 'complete' });
      stream.close();
    });
    await within(log()).findByText('Hi.');
    // Saved with the chat's settings (the server keeps it per chat), with the save that follows each change.
    await waitFor(() => expect(requests.some((r) => r.method === 'POST' && r.url === '/api/chat/conversations' && (r.body as TSaveConversation).useAgents === false)).toBe(true), { timeout: 5_000 });
  });

  it('is absent for a user who owns no agents (a guest), and for a model that calls no tools; neither sends useAgents', async () => {
    const stream = sseStream();
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/deepseek/chat': () => stream.response });
    renderChat('guest', 'deepseek');
    expect(agentsSwitch()).toBeNull();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Hello{Enter}');
    await waitFor(() => expect(requests.find((r) => r.url === '/api/deepseek/chat')).toBeDefined());
    expect(requests.find((r) => r.url === '/api/deepseek/chat')!.body).not.toHaveProperty('useAgents');
  });

  it('disappears for an admin on a model without tools (image generation)', async () => {
    stubFetch(PROVIDERS);
    renderChat('admin', 'grok');
    expect(agentsSwitch()).toBeChecked();
    await userEvent.setup().selectOptions(screen.getByRole('combobox', { name: 'Model' }), 'grok-2-image-1212');
    expect(agentsSwitch()).toBeNull();
  });
});

describe('ChatScreen: tool steps', () => {
  it('shows each step where it happened as it starts and ends, collapsed, and expands it with the keyboard', async () => {
    const stream = sseStream();
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => stream.response });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'Which of my agents are failing and why?{Enter}');

    act(() => stream.send('delta', { text: 'Let me check your agents.' }));
    act(() => stream.send('tool', listed('running', 25)));
    const step = await within(log()).findByRole('button', { name: /Listed your agents/ });
    expect(step).toHaveTextContent('Running…');
    act(() => stream.send('tool', listed('ok', 25)));
    await waitFor(() => expect(step).toHaveAccessibleName(/^Listed your agents · all your agents — 3 agents, 1 failing ?, took 1\.2 s$/));
    act(() => {
      stream.send('delta', { text: '\n\nBTC watcher is failing: the exchange refused the symbol.' });
      stream.send('done', { model: 'gpt-4o', finish: 'complete' });
      stream.close();
    });
    await within(log()).findByText('BTC watcher is failing: the exchange refused the symbol.');

    // Between the text before the step and the text after it.
    const before = within(log()).getByText('Let me check your agents.');
    const after = within(log()).getByText('BTC watcher is failing: the exchange refused the symbol.');
    const shown = within(log()).getByRole('button', { name: /Listed your agents/ });
    expect(before.compareDocumentPosition(shown) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(shown.compareDocumentPosition(after) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();

    expect(shown).toHaveAttribute('aria-expanded', 'false');
    shown.focus();
    await user.keyboard('{Enter}');
    expect(shown).toHaveAttribute('aria-expanded', 'true');
    const panel = document.getElementById(shown.getAttribute('aria-controls')!)!;
    expect(within(panel).getByText('list_agents')).toBeInTheDocument();
    expect(within(panel).getByText('3 agents, 1 failing')).toBeInTheDocument();

    // The header's switch and the steps, collapsed and expanded: no serious accessibility violations.
    for (const part of [log(), agentsSwitch()!.closest('header')!]) {
      const serious = (await axe.run(part, { rules: { 'color-contrast': { enabled: false } } })).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' ')}`)).toEqual([]);
    }
  });

  it('says how a step that went wrong ended, and shows the note of an answer that reached the step limit', async () => {
    const stream = sseStream();
    stubFetch({ ...PROVIDERS, 'POST /api/openai/chat': () => stream.response });
    renderChat();
    await userEvent.setup().type(messageBox(), 'Read run 7{Enter}');
    act(() => {
      stream.send('tool', { ...listed('invalid'), tool: 'get_run', argsText: '{"runId": 7', summary: 'The arguments are not JSON: send one JSON object with the tool’s fields.' });
      stream.send('delta', { text: 'I could not read that run.' });
      stream.send('done', { model: 'gpt-4o', finish: 'complete', note: toolLimitNote(8) });
      stream.close();
    });
    const step = await within(log()).findByRole('button', { name: /Read a run/ });
    expect(step).toHaveTextContent('Invalid arguments');
    expect(step).toHaveTextContent('The arguments are not JSON');
    expect(await within(log()).findByText(toolLimitNote(8))).toBeInTheDocument();
  });

  it('shows the steps of a saved chat, and of an answer joined again after a reload', async () => {
    const server = fakeChatHistory();
    server.seed({
      id: 'chat-5-live',
      title: 'Agents',
      answering: true,
      leafId: 'a',
      messages: [
        { id: 'q', parentId: null, role: 'user', content: 'Agents?', timestamp: at(0) },
        { id: 'a', parentId: 'q', role: 'assistant', content: 'Checking.', timestamp: at(1), model: 'gpt-4o', streaming: true },
      ],
    });
    const live = sseStream();
    stubFetch({ ...PROVIDERS, 'GET /api/chat/conversations/chat-5-live/stream?answer=a': () => live.response }, server.handle);
    renderChat('admin', 'openai', true);
    // The list is mounted again for the chat opened: look in the one on screen now.
    await waitFor(() => within(log()).getByText('Agents?'));
    // The joined stream: the text so far, then every step so far, then the rest.
    act(() => {
      live.send('delta', { text: 'Checking.' });
      live.send('tool', listed('ok', 9));
      live.send('delta', { text: ' One fails.' });
      live.send('done', { model: 'gpt-4o', finish: 'complete' });
      live.close();
    });
    await waitFor(() => expect(within(log()).getByRole('button', { name: /Listed your agents/ })).toHaveTextContent('3 agents, 1 failing'));
    expect(within(log()).getByText('Checking.')).toBeInTheDocument();
    expect(within(log()).getByText('One fails.')).toBeInTheDocument();
  });
});

const PROPOSAL_ID = '22222222-2222-4222-8222-222222222222';
const proposal = (overrides: Partial<TProposal> = {}): TProposal => ({
  id: PROPOSAL_ID,
  kind: 'create',
  status: 'pending',
  source: 'chat',
  sourceName: 'GPT',
  reason: 'You asked for an alert on an RSI crossing',
  agentId: null,
  agentName: 'RSI watch',
  templateId: 'stock-market-scanner',
  config: defaultAgentConfig(findTemplate('stock-market-scanner')!, 'Europe/Paris'),
  configText: ['Template: Stock Market Scanner'],
  differences: [],
  backtest: null,
  backtestError: 'Not run in this test',
  createdAt: '2026-11-28T08:00:00.000Z',
  decidedAt: null,
  resultAgentId: null,
  ...overrides,
});

describe('ChatScreen: a step’s whole result', () => {
  it('a test on history shows its table when expanded; a proposal its card, read anew, whose Create paused decides it', async () => {
    const stream = sseStream();
    const { requests } = stubFetch({
      ...PROVIDERS,
      'POST /api/openai/chat': () => stream.response,
      [`GET /api/agents/proposals/${PROPOSAL_ID}`]: { body: proposal() },
      [`POST /api/agents/proposals/${PROPOSAL_ID}/apply`]: { body: proposal({ status: 'applied', decidedAt: '2026-11-28T08:01:00.000Z', resultAgentId: '33333333-3333-4333-8333-333333333333' }) },
    });
    renderChat();
    const user = userEvent.setup();
    await user.type(messageBox(), 'An agent that alerts on an RSI crossing{Enter}');
    const base = { args: {}, status: 'ok' as const, durationMs: 900, at: 0 };
    act(() => {
      stream.send('tool', { ...base, id: 'c1', tool: 'test_on_history', argsText: 'RSI watch, 500 candles', summary: 'Fired 2 times', detail: backtestResult() });
      stream.send('tool', { ...base, id: 'c2', tool: 'propose_agent', argsText: 'RSI watch', summary: 'Proposed, waiting for you', proposalId: PROPOSAL_ID });
      stream.send('delta', { text: 'I proposed an agent: review it below.' });
      stream.send('done', { model: 'gpt-4o', finish: 'complete' });
      stream.close();
    });
    await within(log()).findByText('I proposed an agent: review it below.');

    await user.click(within(log()).getByRole('button', { name: /Tested on history/ }));
    expect(within(log()).getByRole('region', { name: 'Test on history' })).toHaveTextContent('Price change > 5%');

    await user.click(within(log()).getByRole('button', { name: /Proposed an agent/ }));
    const card = await within(log()).findByRole('article', { name: 'Proposed agent: RSI watch' });
    await user.click(within(card).getByRole('button', { name: 'Create paused' }));
    expect(await within(card).findByText('Created, paused')).toBeInTheDocument();
    expect(requests.filter((r) => r.url.startsWith('/api/agents/proposals')).map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET /api/agents/proposals/${PROPOSAL_ID}`,
      `POST /api/agents/proposals/${PROPOSAL_ID}/apply`,
      // Deciding reads the agents and proposals anew.
      `GET /api/agents/proposals/${PROPOSAL_ID}`,
    ]);
  });
});
