import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TSettings } from '../../../../contracts/settings.ts';
import { jsonResponse, never, stubFetch, type StubRequest } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import SettingsPage from './settings-page.tsx';
import { notify } from '../../../lib/notify.ts';


const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
/** Alert settings are an agent owner's (an admin's). */
const ADMIN = signedInAs('admin');
const EMPTY: TSettings = { alertEmail: null, timeZone: null, signInEmail: 'ada@example.com' };

/** A small fake of the settings API: PUT stores what it is sent unless `put` answers otherwise. */
function stubSettingsApi(initial: TSettings = EMPTY, put?: (request: StubRequest) => Response | Promise<Response | undefined> | undefined) {
  let stored = initial;
  return stubFetch({
    'GET /api/settings': () => jsonResponse(stored),
    'GET /api/channels': () => jsonResponse({ channels: [] }),
    'GET /api/settings/access-tokens': () => jsonResponse([]),
    'PUT /api/settings': async (request) => {
      const answer = await put?.(request);
      if (answer) return answer;
      const body = request.body as { alertEmail: string | null; timeZone: string | null };
      stored = { ...stored, alertEmail: body.alertEmail || null, timeZone: body.timeZone };
      return jsonResponse(stored);
    },
  });
}

const alertEmail = () => screen.getByRole('textbox', { name: 'Alert email' });
const timeZone = () => screen.getByRole('combobox', { name: 'Time zone' });
const save = () => screen.getByRole('button', { name: /^Sav/ });

beforeEach(() => vi.clearAllMocks());

describe('SettingsPage', () => {
  it('shows the saved settings, or the sign-in email as placeholder and the browser’s zone suggested', async () => {
    stubSettingsApi();
    renderWithProviders(<SettingsPage />, { path: '/settings', auth: ADMIN });
    expect(screen.getByRole('heading', { level: 1, name: 'Settings' })).toBeInTheDocument();
    // The settings' spinner, beside the access tokens' own.
    expect(screen.getAllByRole('status').map((status) => status.textContent)).toContain('Loading settings');

    expect(await screen.findByRole('textbox', { name: 'Alert email' })).toHaveValue('');
    expect(alertEmail()).toHaveAttribute('placeholder', 'ada@example.com');
    expect(alertEmail()).toHaveAccessibleDescription(/Leave it empty to use your sign-in email, ada@example.com/);
    expect(timeZone()).toHaveValue(BROWSER_ZONE);
    expect(screen.getByRole('option', { name: `${BROWSER_ZONE} (this browser)` })).toBeInTheDocument();
    expect(screen.getByRole('option', { name: 'Asia/Tokyo' })).toBeInTheDocument();
  });

  it('saves with PUT, shows the pending state, confirms with a toast and keeps the values', async () => {
    let release: () => void = () => {};
    const { requests } = stubSettingsApi(EMPTY, () => new Promise<undefined>((resolve) => (release = () => resolve(undefined))));
    renderWithProviders(<SettingsPage />, { path: '/settings', auth: ADMIN });

    await userEvent.type(await screen.findByRole('textbox', { name: 'Alert email' }), 'Alerts@Example.com');
    await userEvent.selectOptions(timeZone(), 'Asia/Tokyo');
    await userEvent.click(save());

    await vi.waitFor(() => expect(save()).toHaveTextContent('Saving…'));
    expect(save()).toBeDisabled();
    release();

    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Settings saved'));
    expect(requests).toContainEqual({ method: 'PUT', url: '/api/settings', body: { alertEmail: 'alerts@example.com', timeZone: 'Asia/Tokyo' } });
    expect(save()).toHaveTextContent('Save');
    expect(save()).toBeEnabled();
    expect(alertEmail()).toHaveValue('alerts@example.com');
    expect(timeZone()).toHaveValue('Asia/Tokyo');
  });

  it('sends an empty alert email as null: alerts go to the sign-in email', async () => {
    const { requests } = stubSettingsApi({ ...EMPTY, alertEmail: 'old@example.com', timeZone: 'Europe/Paris' });
    renderWithProviders(<SettingsPage />, { path: '/settings', auth: ADMIN });
    await vi.waitFor(() => expect(alertEmail()).toHaveValue('old@example.com'));
    expect(timeZone()).toHaveValue('Europe/Paris');
    await userEvent.clear(alertEmail());
    await userEvent.click(save());
    await vi.waitFor(() => expect(notify.success).toHaveBeenCalledWith('Settings saved'));
    expect(requests).toContainEqual({ method: 'PUT', url: '/api/settings', body: { alertEmail: null, timeZone: 'Europe/Paris' } });
  });

  it('shows an invalid email under its field without sending anything', async () => {
    const { requests } = stubSettingsApi();
    renderWithProviders(<SettingsPage />, { path: '/settings', auth: ADMIN });
    await userEvent.type(await screen.findByRole('textbox', { name: 'Alert email' }), 'not-an-email');
    await userEvent.click(save());

    await vi.waitFor(() => expect(alertEmail()).toHaveAccessibleDescription(/Enter a valid email address/));
    expect(alertEmail()).toHaveAttribute('aria-invalid', 'true');
    expect(alertEmail()).toHaveFocus();
    expect(requests.filter((r) => r.method === 'PUT')).toEqual([]);

    // Fixed as it is typed.
    await userEvent.clear(alertEmail());
    await userEvent.type(alertEmail(), 'ada@work.example');
    await vi.waitFor(() => expect(alertEmail()).toHaveAttribute('aria-invalid', 'false'));
  });

  it("shows the server's validation errors under their fields", async () => {
    stubSettingsApi(EMPTY, () =>
      jsonResponse(
        {
          error: 'Invalid request',
          details: [
            { path: 'alertEmail', message: 'This address cannot receive email' },
            { path: 'timeZone', message: 'must be an IANA time zone such as Europe/Paris' },
          ],
        },
        400,
      ),
    );
    renderWithProviders(<SettingsPage />, { path: '/settings', auth: ADMIN });
    await userEvent.type(await screen.findByRole('textbox', { name: 'Alert email' }), 'ada@work.example');
    await userEvent.click(save());

    await vi.waitFor(() => expect(alertEmail()).toHaveAccessibleDescription(/This address cannot receive email/));
    expect(timeZone()).toHaveAccessibleDescription(/must be an IANA time zone such as Europe\/Paris/);
    expect(timeZone()).toHaveAttribute('aria-invalid', 'true');
    expect(notify.success).not.toHaveBeenCalled();
    expect(notify.error).not.toHaveBeenCalled();
  });

  it('says so in a toast when saving fails otherwise', async () => {
    stubSettingsApi(EMPTY, () => jsonResponse({ error: 'Service Unavailable', message: 'The database is unavailable' }, 503));
    renderWithProviders(<SettingsPage />, { path: '/settings', auth: ADMIN });
    await screen.findByRole('textbox', { name: 'Alert email' });
    await userEvent.click(save());
    await vi.waitFor(() => expect(notify.error).toHaveBeenCalledWith('Could not save your settings', 'The database is unavailable'));
  });

  it('offers a retry when the settings cannot be loaded', async () => {
    stubFetch({ 'GET /api/settings': { status: 500, body: { error: 'Internal Server Error' } }, 'GET /api/settings/access-tokens': () => jsonResponse([]) });
    renderWithProviders(<SettingsPage />, { path: '/settings', auth: ADMIN });
    expect(await screen.findByRole('alert')).toHaveTextContent('Your settings could not be loaded: 500: Internal Server Error');
    stubSettingsApi();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('textbox', { name: 'Alert email' })).toBeInTheDocument();
  });

  it('keeps a saved zone the browser does not list', async () => {
    stubFetch({ 'GET /api/settings': jsonResponse({ ...EMPTY, timeZone: 'Asia/Calcutta' }), 'PUT /api/settings': never });
    renderWithProviders(<SettingsPage />, { path: '/settings', auth: ADMIN });
    await vi.waitFor(() => expect(timeZone()).toHaveValue('Asia/Calcutta'));
  });

  it('shows a user who cannot own agents no alert settings and asks for none, but lets them hold access tokens', async () => {
    const { requests } = stubSettingsApi();
    renderWithProviders(<SettingsPage />, { path: '/settings', auth: signedInAs('guest') });
    expect(screen.getByRole('heading', { level: 1, name: 'Settings' })).toBeInTheDocument();
    expect(screen.getByText(/Alert settings come with market agents, which need the admin role; you are signed in as guest/)).toBeInTheDocument();
    expect(await screen.findByText('No access tokens yet.')).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Alert email' })).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Time zone' })).not.toBeInTheDocument();
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/settings/access-tokens']);
  });
});
