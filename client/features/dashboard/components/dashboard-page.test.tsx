import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { TRole } from '../../../../contracts/users.ts';
import { currentLocation, makeUser, renderWithProviders } from '../../../test/render.tsx';
import DashboardPage from './dashboard-page.tsx';

const GATED = [
  ['GPT', '/chat-console'],
  ['Claude', '/claude-chat'],
  ['Gemini', '/gemini-chat'],
  ['Grok', '/grok-chat'],
] as const;
const OPEN = [
  ['DeepSeek', '/deepseek-chat'],
  ['Llama', '/llama-chat'],
] as const;
// SPEC's two agents and the Custom Monitor (issue 30, decision 0074).
const AGENTS = ['Stock Trader', 'Crypto Trader', 'Custom Monitor'];

function renderDashboard(role: TRole | null, user = makeUser({ role: role ?? 'guest' })) {
  return renderWithProviders(<DashboardPage user={user} role={role} />, { path: '/dashboard' });
}

/** The card (list item) whose heading is `name`. */
const card = (name: string) => screen.getByRole('heading', { level: 3, name }).closest('li')!;
const section = (name: string) => screen.getByRole('region', { name });

describe('DashboardPage header', () => {
  it('greets the user with their email, photo fallback, Settings and Refresh', async () => {
    const reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, reload });
    renderDashboard('guest', makeUser({ name: 'grace', email: 'grace@example.com' }));

    expect(screen.getByRole('heading', { level: 1, name: 'Welcome, grace!' })).toBeInTheDocument();
    expect(screen.getByText("You're logged in as grace@example.com")).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Profile picture' })).toHaveTextContent('G');
    expect(screen.getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '/settings');

    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(reload).toHaveBeenCalledOnce();
  });

  it('shows the profile picture when there is one', () => {
    renderDashboard('guest', makeUser({ profilePicture: 'https://example.com/me.png' }));
    expect(screen.getByRole('img', { name: 'Profile picture' })).toHaveAttribute('src', 'https://example.com/me.png');
  });
});

describe('DashboardPage for an admin', () => {
  it('enables the gated assistants, each leading to its chat', () => {
    renderDashboard('admin');
    for (const [name, path] of GATED) {
      expect(within(card(name)).getByText('Enabled')).toBeInTheDocument();
      expect(within(card(name)).getByRole('link', { name: 'Start Chat' })).toHaveAttribute('href', path);
    }
    expect(screen.queryByText('Requires Admin')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Request Access' })).not.toBeInTheDocument();
  });

  it('gives the agents Admin Access and Launch Agent, and offers Manage Agents', () => {
    renderDashboard('admin');
    for (const name of AGENTS) {
      expect(within(card(name)).getByText('Admin Access')).toBeInTheDocument();
      expect(within(card(name)).getByRole('link', { name: 'Launch Agent' })).toHaveAttribute('href', '/agents-console');
    }
    expect(within(section('AI Agents')).getByRole('link', { name: 'Manage Agents' })).toHaveAttribute('href', '/agents-console');
  });
});

describe('DashboardPage for a guest', () => {
  it('marks the gated assistants and agents Requires Admin with Request Access', () => {
    renderDashboard('guest');
    for (const name of [...GATED.map(([n]) => n), ...AGENTS]) {
      expect(within(card(name)).getByText('Requires Admin')).toBeInTheDocument();
      expect(within(card(name)).getByRole('button', { name: 'Request Access' })).toBeInTheDocument();
      expect(within(card(name)).queryByRole('link')).not.toBeInTheDocument();
    }
    expect(screen.getAllByText('Requires Admin')).toHaveLength(GATED.length + AGENTS.length);
    expect(screen.queryByText('Enabled')).not.toBeInTheDocument();
    expect(screen.queryByText('Admin Access')).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Manage Agents' })).not.toBeInTheDocument();
  });

  it('lets everyone start DeepSeek and Llama chats', async () => {
    renderDashboard('guest');
    for (const [name, path] of OPEN) {
      expect(within(card(name)).getByRole('link', { name: 'Start Chat' })).toHaveAttribute('href', path);
      expect(within(card(name)).queryByText('Requires Admin')).not.toBeInTheDocument();
    }
    await userEvent.click(within(card('Llama')).getByRole('link', { name: 'Start Chat' }));
    expect(currentLocation()).toBe('/llama-chat');
  });

  it('opens Admin Access Required with the current role, closed by I Understand', async () => {
    renderDashboard(null);
    const trigger = within(card('GPT')).getByRole('button', { name: 'Request Access' });
    await userEvent.click(trigger);

    const dialog = screen.getByRole('dialog', { name: 'Admin Access Required' });
    expect(dialog).toHaveAccessibleDescription(/administrator privileges.*API usage and cost/);
    expect(within(dialog).getByText('Why is this restricted?')).toBeInTheDocument();
    expect(dialog).toHaveTextContent('Current role: guest');

    await userEvent.click(within(dialog).getByRole('button', { name: 'I Understand' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await vi.waitFor(() => expect(trigger).toHaveFocus());
  });

  it('opens the same dialog from an agent, closed by Escape', async () => {
    renderDashboard('guest');
    await userEvent.click(within(card('Crypto Trader')).getByRole('button', { name: 'Request Access' }));
    expect(screen.getByRole('dialog', { name: 'Admin Access Required' })).toHaveTextContent('Current role: guest');
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
