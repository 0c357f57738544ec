import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import type { TNotifications } from '../../../../contracts/agents.ts';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS, type TChatProvider, type TChatProviderStatus } from '../../../../contracts/chat.ts';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import type { TFieldErrors } from '../lib/field-errors.ts';
import { NotificationsFields } from './config-fields.tsx';
import { explainAlertsText } from './explain-alerts-field.tsx';

/** What GET /api/chat/providers answers an admin: every assistant allowed; Gemini has no key. */
const providers = (overrides: Partial<Record<TChatProvider, Partial<TChatProviderStatus>>> = {}) => ({
  providers: CHAT_PROVIDERS.map((id) => ({
    id,
    allowed: true,
    configured: id !== 'gemini',
    models: [...CHAT_PROVIDER_INFO[id].models],
    defaultModel: CHAT_PROVIDER_INFO[id].defaultModel,
    ...overrides[id],
  })),
});

function Harness({ initial, errors = {}, seen }: { initial: TNotifications; errors?: TFieldErrors; seen?: (next: TNotifications) => void }) {
  const [value, setValue] = useState(initial);
  return (
    <NotificationsFields
      value={value}
      errors={errors}
      onChange={(next) => {
        seen?.(next);
        setValue(next);
      }}
    />
  );
}

const BASE: TNotifications = { email: true, inApp: true, thresholds: [], channels: [] };
const toggle = () => screen.getByRole('checkbox', { name: 'Explain alerts' });
const assistant = () => screen.getByRole('combobox', { name: 'Assistant' });
const model = () => screen.getByRole('combobox', { name: 'Model' });
const render = (props: Parameters<typeof Harness>[0], answer = providers()) => {
  stubFetch({ 'GET /api/chat/providers': { body: answer }, 'GET /api/channels': { body: { channels: [] } } });
  return renderWithProviders(<Harness {...props} />);
};

describe('Explain alerts', () => {
  it('is off by default, and says what it does and that briefs count against the AI budget', async () => {
    render({ initial: BASE });
    expect(toggle()).not.toBeChecked();
    expect(toggle()).toHaveAccessibleDescription(expect.stringContaining('counts against your daily AI budget'));
    expect(toggle()).toHaveAccessibleDescription(expect.stringContaining("from the run's recorded numbers only"));
    expect(screen.queryByRole('combobox', { name: 'Assistant' })).not.toBeInTheDocument();
  });

  it('turned on, chooses an assistant with a key and its default model; the model follows the assistant', async () => {
    const changes: TNotifications[] = [];
    render({ initial: BASE, seen: (next) => changes.push(next) });
    await screen.findByText(/counts against your daily AI budget/);
    await waitForProviders();
    await userEvent.click(toggle());
    expect(changes.at(-1)!.brief).toEqual({ provider: 'openai', model: 'gpt-4o' });
    await userEvent.selectOptions(assistant(), 'deepseek');
    expect(changes.at(-1)!.brief).toEqual({ provider: 'deepseek', model: 'deepseek-chat' });
    await userEvent.selectOptions(model(), 'deepseek-reasoner');
    expect(changes.at(-1)!.brief).toEqual({ provider: 'deepseek', model: 'deepseek-reasoner' });
    // Turned off, the setting is gone from the configuration (absent means off).
    await userEvent.click(toggle());
    expect(changes.at(-1)).toEqual(BASE);
    expect('brief' in changes.at(-1)!).toBe(false);
  });

  it('offers only the assistants the user may use, marks one without a key, and no image model', async () => {
    render({ initial: { ...BASE, brief: { provider: 'grok', model: 'grok-4' } } }, providers({ anthropic: { allowed: false } }));
    await waitForProviders();
    const names = within(assistant()).getAllByRole('option').map((o) => o.textContent);
    expect(names).toEqual(['GPT', 'Gemini (not configured)', 'Grok', 'DeepSeek', 'Llama']);
    expect(within(model()).getAllByRole('option').map((o) => o.textContent)).toEqual(['Grok 4', 'Grok 3', 'Grok 3 Mini']);
    await userEvent.selectOptions(assistant(), 'gemini');
    expect(screen.getByText(/Gemini has no API key on this server: its briefs would fail with ‘API key not configured’/)).toBeInTheDocument();
  });

  it("shows the server's refusal on its field", async () => {
    render({ initial: { ...BASE, brief: { provider: 'openai', model: 'gpt-9' } }, errors: { 'notifications.brief.model': "Choose one of the assistant's text models" } });
    await waitForProviders();
    expect(model()).toHaveAttribute('aria-invalid', 'true');
    expect(model()).toHaveAccessibleDescription(expect.stringContaining("Choose one of the assistant's text models"));
    expect(screen.queryByRole('list', { name: 'Notification problems' })).not.toBeInTheDocument();
  });

  it('summarises the choice for the review and the settings', () => {
    expect(explainAlertsText(undefined)).toBe('Off');
    expect(explainAlertsText({ provider: 'anthropic', model: 'claude-haiku-4-5' })).toBe('On: Claude (Claude Haiku 4.5)');
  });
});

/** The providers answer has been rendered (the toggle is enabled once they are known). */
async function waitForProviders() {
  await screen.findByRole('checkbox', { name: 'Explain alerts' });
  await expect.poll(() => (toggle() as HTMLInputElement).disabled || screen.queryByText('Loading the assistants…') !== null).toBe(false);
}
