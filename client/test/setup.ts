import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { notify } from '../lib/notify.ts';
import { setSettingsTimeZone } from '../lib/time-zone.ts';

// Toasts are a browser-facing edge (sonner loads on the first one): in every client test notify
// is a set of spies, cleared before each test, that a test asserts on through its own import. An
// Undo toast cannot be shown, so a delete is made at once (docs/decisions/0070); the tests of
// Undo unmock notify and render the ToastHost.
vi.mock('../lib/notify.ts', () => ({ notify: { success: vi.fn(), error: vi.fn(), info: vi.fn() }, loadToaster: async () => null }));

beforeEach(() => {
  for (const show of Object.values(notify)) vi.mocked(show).mockClear();
});

afterEach(() => {
  cleanup();
  // A test that sets the zone times are shown in (as the Settings page does) sets it for itself only.
  setSettingsTimeZone(null);
  vi.unstubAllGlobals();
});
