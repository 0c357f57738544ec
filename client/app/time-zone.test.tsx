import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TSettings } from '../../contracts/settings.ts';
import { AgentCard } from '../features/agents/components/agent-card.tsx';
import { STOCK_AGENT } from '../features/agents/lib/agents-test-data.ts';
import { SETTINGS_QUERY_KEY } from '../features/settings/api/settings-api.ts';
import TimeZoneSync from '../features/settings/components/time-zone-sync.tsx';
import { AuthContext } from '../lib/auth-context.ts';
import { stubFetch } from '../test/fetch-stub.ts';
import { makeAuth, renderWithProviders, signedInAs } from '../test/render.tsx';

const SETTINGS: TSettings = { alertEmail: null, timeZone: 'Asia/Tokyo', signInEmail: 'ada@example.com' };

/** The browser's own zone, whatever the machine's. */
const browserIn = (timeZone: string) =>
  vi.spyOn(Intl.DateTimeFormat.prototype, 'resolvedOptions').mockReturnValue({ ...new Intl.DateTimeFormat().resolvedOptions(), timeZone });

const termOf = (card: HTMLElement, term: string) => within(card).getByText(term, { selector: 'dt' }).nextElementSibling!;

afterEach(() => vi.restoreAllMocks());

// Issue 29 item 7 (docs/decisions/0066): one rule for every time on screen, the Settings zone
// when there is one, else the browser's, each time named. The bell showed Tokyo (the server's
// notice) beside a card in New York time.
describe('the zone times are shown in', () => {
  const ui = (
    <>
      <TimeZoneSync />
      <AgentCard agent={STOCK_AGENT} templateName="Stock Market Scanner" onViewDetails={vi.fn()} />
    </>
  );

  it("is the Settings zone once it is known, a saved one at once, and the browser's after sign-out", async () => {
    browserIn('America/New_York');
    const { requests } = stubFetch({ 'GET /api/settings': { body: SETTINGS } });
    function SignsOut() {
      const [auth, setAuth] = useState(signedInAs('admin'));
      return (
        <AuthContext.Provider value={auth}>
          <button onClick={() => setAuth(makeAuth())}>Sign out</button>
          {ui}
        </AuthContext.Provider>
      );
    }
    const { queryClient } = renderWithProviders(<SignsOut />);
    const card = screen.getByRole('listitem', { name: 'Tech watch' });

    // Last run 10:05 UTC and next run 11:00 UTC, in Tokyo.
    await vi.waitFor(() => expect(termOf(card, 'Last run')).toHaveTextContent(/^Mar 4, 2025 19:05 GMT\+9$/));
    expect(termOf(card, 'Next run')).toHaveTextContent(/^Mar 4, 2025 20:00 GMT\+9$/);
    expect(termOf(card, 'Performance')).toHaveTextContent('+2.5% at Mar 4, 2025 19:05 GMT+9');
    expect(requests.filter((r) => r.url === '/api/settings')).toHaveLength(1);

    // Saved on the Settings page (the same query): every time follows.
    queryClient.setQueryData<TSettings>(SETTINGS_QUERY_KEY, { ...SETTINGS, timeZone: 'Europe/Paris' });
    await vi.waitFor(() => expect(termOf(card, 'Next run')).toHaveTextContent(/^Mar 4, 2025 12:00 GMT\+1$/));

    // Signed out: this browser's zone.
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    await vi.waitFor(() => expect(termOf(card, 'Next run')).toHaveTextContent(/^Mar 4, 2025 06:00 EST$/));
  });

  it("is the browser's when Settings has no zone, still named", async () => {
    browserIn('America/New_York');
    stubFetch({ 'GET /api/settings': { body: { ...SETTINGS, timeZone: null } } });
    renderWithProviders(ui, { auth: signedInAs('admin') });
    const card = screen.getByRole('listitem', { name: 'Tech watch' });
    await vi.waitFor(() => expect(termOf(card, 'Next run')).toHaveTextContent(/^Mar 4, 2025 06:00 EST$/));
    expect(termOf(card, 'Last run')).toHaveTextContent(/^Mar 4, 2025 05:05 EST$/);
  });

  it("is the browser's when Settings holds a zone this browser does not know", async () => {
    browserIn('America/New_York');
    stubFetch({ 'GET /api/settings': { body: { ...SETTINGS, timeZone: 'Mars/Olympus_Mons' } } });
    const { queryClient } = renderWithProviders(ui, { auth: signedInAs('admin') });
    // Once the settings are here, the card still reads (a zone Intl does not know would throw).
    await vi.waitFor(() => expect(queryClient.getQueryData(SETTINGS_QUERY_KEY)).toBeDefined());
    expect(termOf(screen.getByRole('listitem', { name: 'Tech watch' }), 'Next run')).toHaveTextContent(/^Mar 4, 2025 06:00 EST$/);
  });

  it("is the browser's for someone signed out, who has no settings to ask for", () => {
    browserIn('America/New_York');
    const { requests } = stubFetch({});
    renderWithProviders(ui, { auth: makeAuth() });
    expect(termOf(screen.getByRole('listitem', { name: 'Tech watch' }), 'Last run')).toHaveTextContent(/^Mar 4, 2025 05:05 EST$/);
    expect(requests).toEqual([]);
  });
});
