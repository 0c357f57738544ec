import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TPreset } from '../../../../contracts/chat-history.ts';
import { jsonResponse, stubFetch, type StubRequest } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import ChatScreen from './chat-screen.tsx';

// A chat's system prompt and temperature, and the presets that hold them (docs/decisions/0047).

const PROVIDERS = { 'GET /api/chat/providers': { body: { providers: [] } } };
const streamed = () => new Response('event: delta\ndata: {"text":"Oui"}\n\nevent: done\ndata: {"model":"claude-sonnet-4-5"}\n\n', { headers: { 'content-type': 'text/event-stream' } });

function presetsServer(initial: TPreset[] = []) {
  const presets = [...initial];
  return (request: StubRequest) => {
    if (!request.url.startsWith('/api/chat/presets')) return undefined;
    if (request.method === 'GET') return jsonResponse({ presets });
    if (request.method === 'POST') {
      const body = request.body as Omit<TPreset, 'id' | 'createdAt' | 'updatedAt'>;
      if (presets.some((p) => p.name.toLowerCase() === body.name.toLowerCase())) {
        return jsonResponse({ error: 'Conflict', message: 'Invalid request', details: [{ path: 'name', message: `You already have a preset named ${body.name}` }] }, 409);
      }
      const preset = { ...body, id: `p${presets.length}`, createdAt: '2025-06-01T00:00:00Z', updatedAt: '2025-06-01T00:00:00Z' };
      presets.push(preset);
      return jsonResponse(preset, 201);
    }
    return undefined;
  };
}

const renderChat = () => renderWithProviders(<ChatScreen provider="anthropic" />, { auth: signedInAs('admin'), path: '/claude-chat' });

async function openSettings(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('button', { name: 'Chat options' }));
  await user.click(await screen.findByRole('menuitem', { name: 'Chat settings' }));
  return screen.findByRole('dialog', { name: 'Chat settings' });
}

beforeEach(() => localStorage.clear());

describe('ChatScreen: settings and presets', () => {
  it('sends the chat’s system prompt and temperature with each message, within Claude’s range', async () => {
    const { requests } = stubFetch({ ...PROVIDERS, 'POST /api/anthropic/chat': streamed }, presetsServer());
    renderChat();
    const user = userEvent.setup();
    const dialog = await openSettings(user);
    await user.type(within(dialog).getByRole('textbox', { name: 'System prompt' }), 'Answer in French.');
    await user.click(within(dialog).getByRole('checkbox', { name: 'The model’s default' }));
    const slider = within(dialog).getByRole('slider', { name: 'Temperature, from 0 to 1' });
    expect(slider).toHaveAttribute('max', '1');
    fireEvent.change(slider, { target: { value: '0.2' } });
    await user.click(within(dialog).getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await user.type(screen.getByRole('textbox', { name: 'Message Claude' }), 'Bonjour{Enter}');
    await screen.findByText('Oui');
    expect(requests.find((r) => r.url === '/api/anthropic/chat')!.body).toEqual({
      messages: [{ role: 'user', content: 'Bonjour' }],
      model: 'claude-sonnet-4-5',
      system: 'Answer in French.',
      temperature: 0.2,
      // An admin on a model that calls tools: "Use my agents" is on by default (issue 31).
      useAgents: true,
      answer: expect.objectContaining({ title: 'Bonjour', questionParentId: null }),
    });
  });

  it('saves the settings as a preset, refuses a name taken, and applies a preset to the chat', async () => {
    const { requests } = stubFetch(
      { ...PROVIDERS, 'POST /api/anthropic/chat': streamed },
      presetsServer([{ id: 'p-old', name: 'Pirate', systemPrompt: 'Talk like a pirate.', temperature: 0.9, createdAt: '', updatedAt: '' }]),
    );
    renderChat();
    const user = userEvent.setup();
    let dialog = await openSettings(user);
    await within(dialog).findByText('Pirate');
    await user.type(within(dialog).getByRole('textbox', { name: 'System prompt' }), 'Be brief.');
    await user.type(within(dialog).getByRole('textbox', { name: 'Save these settings as a preset' }), 'pirate');
    await user.click(within(dialog).getByRole('button', { name: 'Save preset' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('You already have a preset named pirate');
    await user.clear(within(dialog).getByRole('textbox', { name: 'Save these settings as a preset' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Save these settings as a preset' }), 'Brief');
    await user.click(within(dialog).getByRole('button', { name: 'Save preset' }));
    expect(await within(dialog).findByText('Brief')).toBeInTheDocument();
    expect(requests.filter((r) => r.method === 'POST' && r.url === '/api/chat/presets').at(-1)!.body).toEqual({ name: 'Brief', systemPrompt: 'Be brief.', temperature: null });

    await user.click(within(dialog).getByRole('button', { name: 'Apply preset Pirate' }));
    expect(within(dialog).getByRole('textbox', { name: 'System prompt' })).toHaveValue('Talk like a pirate.');
    expect(within(dialog).getByRole('slider', { name: 'Temperature, from 0 to 1' })).toHaveValue('0.9');
    await user.click(within(dialog).getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await user.type(screen.getByRole('textbox', { name: 'Message Claude' }), 'Ahoy{Enter}');
    await screen.findByText('Oui');
    expect(requests.find((r) => r.url === '/api/anthropic/chat')!.body).toMatchObject({ system: 'Talk like a pirate.', temperature: 0.9 });
    dialog = await openSettings(user);
    expect(within(dialog).getByRole('textbox', { name: 'System prompt' })).toHaveValue('Talk like a pirate.');
  });
});
