import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { findTemplate, type TAgentConfig } from '../../../../contracts/agents.ts';
import type { TChannelList } from '../../../../contracts/channels.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { AgentWizard } from './agent-wizard.tsx';

// The runtime config the server writes into the page, here from a server without an on-chain
// source (no WHALE_ALERT_API_KEY).
beforeAll(() => {
  const config = document.createElement('script');
  config.type = 'application/json';
  config.id = 'app-config';
  config.textContent = JSON.stringify({ siteName: 'Test', contactEmail: 'a@example.com', authProvider: 'local', sources: { onChain: false } });
  document.head.append(config);
});

const CHANNELS: TChannelList = {
  channels: [
    { id: '00000000-0000-4000-8000-00000000000a', kind: 'slack', name: 'Trading desk', target: 'hooks.slack.com/…/AbC1', createdAt: '2025-01-01T00:00:00.000Z', movedFrom: null },
    { id: '00000000-0000-4000-8000-00000000000b', kind: 'webhook', name: 'Audit log', target: 'example.com/…/hook', createdAt: '2025-01-01T00:00:00.000Z', movedFrom: null },
  ],
};

function renderWizard(templateId = 'crypto-market-monitor') {
  const onCreate = vi.fn(async (_config: TAgentConfig) => undefined);
  renderWithProviders(<AgentWizard open onOpenChange={() => {}} template={findTemplate(templateId)!} name="Coins" pending={false} onCreate={onCreate} />);
  return { onCreate, wizard: within(screen.getByRole('dialog', { name: 'Configure Your Agent' })) };
}

describe('AgentWizard', () => {
  // Issue 29 item 11: on-chain metrics started on where the server has no on-chain source, so
  // every run said 'Whale transaction: not configured'.
  it('starts on-chain metrics off on a server without an on-chain source, says why, and creates the agent so', async () => {
    stubFetch({ 'GET /api/channels': jsonResponse(CHANNELS) });
    const { onCreate, wizard } = renderWizard();
    await userEvent.click(wizard.getByRole('tab', { name: 'Parameters' }));
    const onChain = wizard.getByRole('switch', { name: /Include on-chain metrics/ });
    expect(onChain).not.toBeChecked();
    expect(onChain).toHaveAccessibleDescription(/No on-chain source is configured on this server, so it starts off/);
    await userEvent.click(wizard.getByRole('tab', { name: 'Review' }));
    expect(wizard.getByText('Include on-chain metrics', { selector: 'dt' }).nextSibling).toHaveTextContent('No');
    await userEvent.click(wizard.getByRole('button', { name: 'Create Agent' }));
    expect(onCreate.mock.calls[0]![0].parameters).toMatchObject({ includeOnChainMetrics: false, token: 'BTC' });
  });

  // Issue 29 item 11: the Review listed no channels.
  it('lists the channels chosen on Review, by name and kind, in the order chosen', async () => {
    stubFetch({ 'GET /api/channels': jsonResponse(CHANNELS) });
    const { onCreate, wizard } = renderWizard();
    await userEvent.click(wizard.getByRole('tab', { name: 'Review' }));
    const channels = () => wizard.getByText('Channels', { selector: 'dt' }).nextSibling;
    expect(channels()).toHaveTextContent('None');
    await userEvent.click(wizard.getByRole('tab', { name: 'Notifications' }));
    await userEvent.click(await wizard.findByRole('checkbox', { name: /Audit log/ }));
    await userEvent.click(wizard.getByRole('checkbox', { name: /Trading desk/ }));
    await userEvent.click(wizard.getByRole('tab', { name: 'Review' }));
    expect(channels()).toHaveTextContent('Trading desk (Slack), Audit log (Webhook)');
    await userEvent.click(wizard.getByRole('button', { name: 'Create Agent' }));
    expect(onCreate.mock.calls[0]![0].notifications.channels).toEqual(CHANNELS.channels.map((c) => c.id));
  });

  // The Custom Monitor's timeframe offered '1min' and '1h', the values it stores.
  it("names the Custom Monitor's timeframes in words, in the field and on Review, and stores their values", async () => {
    stubFetch({ 'GET /api/channels': jsonResponse(CHANNELS) });
    const { onCreate, wizard } = renderWizard('custom-monitor');
    await userEvent.click(wizard.getByRole('tab', { name: 'Parameters' }));
    const timeframe = wizard.getByRole('combobox', { name: /^Timeframe/ });
    expect(within(timeframe).getAllByRole('option').map((o) => o.textContent)).toEqual(['1 minute', '5 minutes', '15 minutes', '30 minutes', '1 hour', '4 hours', '1 day', '1 week']);
    expect(timeframe).toHaveDisplayValue('1 hour');
    await userEvent.selectOptions(timeframe, '4 hours');
    await userEvent.click(wizard.getByRole('tab', { name: 'Review' }));
    expect(wizard.getByText('Timeframe', { selector: 'dt' }).nextSibling).toHaveTextContent(/^4 hours$/);
    await userEvent.click(wizard.getByRole('button', { name: 'Create Agent' }));
    expect(onCreate.mock.calls[0]![0].parameters).toEqual({ timeframe: '4h' });
  });
});
