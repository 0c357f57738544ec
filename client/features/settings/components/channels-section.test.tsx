import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { OUTBOUND_FAILURES } from '../../../../contracts/outbound.ts';
import type { TChannel } from '../../../../contracts/channels.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { ChannelsSection } from './channels-section.tsx';

const SLACK: TChannel = { id: '00000000-0000-4000-8000-0000000000c1', kind: 'slack', name: 'Team', target: 'hooks.slack.com/…/AbC1', movedFrom: null, createdAt: '2026-11-25T07:00:00.000Z' };
const MOVED: TChannel = { id: '00000000-0000-4000-8000-0000000000c2', kind: 'telegram', name: 'Desk group', target: 'chat -1004001000001 · bot 123456789', movedFrom: '-4001', createdAt: '2026-11-25T07:00:00.000Z' };

beforeEach(() => vi.clearAllMocks());

describe('ChannelsSection', () => {
  it('lists channels by kind and masked target, and says whether a test arrived', async () => {
    stubFetch({
      'GET /api/channels': () => jsonResponse({ channels: [SLACK] }),
      [`POST /api/channels/${SLACK.id}/test`]: () => jsonResponse({ status: 'failed', error: 'The receiver could not be reached.' }),
    });
    renderWithProviders(<ChannelsSection />, { path: '/settings', auth: signedInAs('admin') });
    const list = await screen.findByRole('list', { name: 'Your channels' });
    expect(list).toHaveTextContent('Team · Slack');
    expect(list).toHaveTextContent('hooks.slack.com/…/AbC1');
    await userEvent.click(within(list).getByRole('button', { name: 'Send test to Team' }));
    expect(await within(list).findByText('Not delivered: The receiver could not be reached.')).toBeInTheDocument();
  });

  it('says on a Telegram channel that its group became a supergroup and messages go to the new chat', async () => {
    stubFetch({ 'GET /api/channels': () => jsonResponse({ channels: [SLACK, MOVED] }) });
    renderWithProviders(<ChannelsSection />, { path: '/settings', auth: signedInAs('admin') });
    const [team, desk] = within(await screen.findByRole('list', { name: 'Your channels' })).getAllByRole('listitem');
    expect(desk).toHaveTextContent('chat -1004001000001 · bot 123456789');
    expect(desk).toHaveTextContent('This Telegram group became a supergroup, so its chat id changed from -4001; messages now go to the new id (shown above).');
    expect(team).not.toHaveTextContent('supergroup');
  });

  it("shows the server's refusal on its field, and a webhook's signing secret once", async () => {
    let attempt = 0;
    const { requests } = stubFetch({
      'GET /api/channels': () => jsonResponse({ channels: [] }),
      'POST /api/channels': () =>
        ++attempt === 1
          ? jsonResponse({ error: 'Invalid request', details: [{ path: 'url', message: OUTBOUND_FAILURES['forbidden-address'] }] }, 400)
          : jsonResponse({ ...SLACK, kind: 'webhook', name: 'Hook', signingSecret: 'whsec_abc' }, 201),
    });
    renderWithProviders(<ChannelsSection />, { path: '/settings', auth: signedInAs('admin') });
    const form = await screen.findByRole('form', { name: 'Add a channel' });
    await userEvent.type(within(form).getByRole('textbox', { name: 'Name' }), 'Hook');
    await userEvent.type(within(form).getByRole('textbox', { name: 'Web address' }), 'https://10.0.0.1/x');
    await userEvent.click(within(form).getByRole('button', { name: 'Add channel' }));
    expect(await within(form).findByText(OUTBOUND_FAILURES['forbidden-address'])).toBeInTheDocument();
    expect(within(form).getByRole('textbox', { name: 'Web address' })).toHaveAttribute('aria-invalid', 'true');

    await userEvent.click(within(form).getByRole('button', { name: 'Add channel' }));
    expect(await screen.findByLabelText('Signing secret')).toHaveTextContent('whsec_abc');
    expect(requests).toContainEqual({ method: 'POST', url: '/api/channels', body: { kind: 'webhook', name: 'Hook', url: 'https://10.0.0.1/x' } });
    await userEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByLabelText('Signing secret')).not.toBeInTheDocument();
  });

  it('asks for a bot token and a chat id for Telegram', async () => {
    stubFetch({ 'GET /api/channels': () => jsonResponse({ channels: [] }) });
    renderWithProviders(<ChannelsSection />, { path: '/settings', auth: signedInAs('admin') });
    const form = await screen.findByRole('form', { name: 'Add a channel' });
    await userEvent.selectOptions(within(form).getByRole('combobox', { name: 'Kind' }), 'telegram');
    expect(within(form).getByRole('textbox', { name: 'Bot token' })).toBeInTheDocument();
    expect(within(form).getByRole('textbox', { name: 'Chat id' })).toBeInTheDocument();
    expect(within(form).queryByRole('textbox', { name: 'Web address' })).not.toBeInTheDocument();
  });

  it("sends a webhook's message template and shows the server's reason on the template field (docs/decisions/0090)", async () => {
    const reason = 'Unknown placeholder {{agent.nmae}}; use one of: {{agent.name}}';
    let attempt = 0;
    const { requests } = stubFetch({
      'GET /api/channels': () => jsonResponse({ channels: [] }),
      'POST /api/channels': () =>
        ++attempt === 1
          ? jsonResponse({ error: 'Invalid request', details: [{ path: 'template', message: reason }] }, 400)
          : jsonResponse({ ...SLACK, kind: 'webhook', name: 'Phone', signingSecret: 'whsec_abc=' }, 201),
    });
    renderWithProviders(<ChannelsSection />, { path: '/settings', auth: signedInAs('admin') });
    const form = await screen.findByRole('form', { name: 'Add a channel' });
    await userEvent.type(within(form).getByRole('textbox', { name: 'Name' }), 'Phone');
    await userEvent.type(within(form).getByRole('textbox', { name: 'Web address' }), 'https://ntfy.example/');
    const template = within(form).getByRole('textbox', { name: 'Message template' });
    // userEvent reads braces as key names: {{ types one brace.
    await userEvent.type(template, '{{"text": "{{{{agent.nmae}}"}');
    await userEvent.click(within(form).getByRole('button', { name: 'Add channel' }));
    expect(await within(form).findByText(reason)).toBeInTheDocument();
    expect(template).toHaveAttribute('aria-invalid', 'true');
    expect(requests).toContainEqual({ method: 'POST', url: '/api/channels', body: { kind: 'webhook', name: 'Phone', url: 'https://ntfy.example/', template: '{"text": "{{agent.nmae}}"}' } });

    await userEvent.click(within(form).getByRole('button', { name: 'Add channel' }));
    expect(await screen.findByLabelText('Signing secret')).toHaveTextContent('whsec_abc=');
  });

  it('offers Microsoft Teams, asking for the Workflows webhook address and no template', async () => {
    const { requests } = stubFetch({
      'GET /api/channels': () => jsonResponse({ channels: [] }),
      'POST /api/channels': () => jsonResponse({ ...SLACK, kind: 'teams', name: 'Desk' }, 201),
    });
    renderWithProviders(<ChannelsSection />, { path: '/settings', auth: signedInAs('admin') });
    const form = await screen.findByRole('form', { name: 'Add a channel' });
    await userEvent.selectOptions(within(form).getByRole('combobox', { name: 'Kind' }), 'Microsoft Teams');
    expect(within(form).queryByRole('textbox', { name: 'Message template' })).not.toBeInTheDocument();
    const address = within(form).getByRole('textbox', { name: 'Web address' });
    expect(address).toHaveAccessibleDescription(expect.stringContaining("'Send webhook alerts to a channel'"));
    await userEvent.type(within(form).getByRole('textbox', { name: 'Name' }), 'Desk');
    await userEvent.type(address, 'https://example.logic.azure.com/workflows/1');
    await userEvent.click(within(form).getByRole('button', { name: 'Add channel' }));
    await vi.waitFor(() => expect(requests).toContainEqual({ method: 'POST', url: '/api/channels', body: { kind: 'teams', name: 'Desk', url: 'https://example.logic.azure.com/workflows/1' } }));
    expect(screen.queryByLabelText('Signing secret')).not.toBeInTheDocument();
  });
});
