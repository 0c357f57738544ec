import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { GOOGLE_START_URL, openGoogleSignIn, POPUP_BLOCKED_MESSAGE } from './google-popup.ts';

type FakePopup = { closed: boolean; focus: () => void; close: () => void };

let popup: FakePopup;
let open: MockInstance<typeof window.open>;

function setWindowGeometry(values: Record<'screenX' | 'screenY' | 'outerWidth' | 'outerHeight', number>) {
  for (const [key, value] of Object.entries(values)) {
    Object.defineProperty(window, key, { value, configurable: true });
  }
}

function postFromPopup(data: unknown, origin = window.location.origin) {
  window.dispatchEvent(new MessageEvent('message', { data, origin }));
}

/** Settles to 'pending' when the promise has not settled after the queued events ran. */
async function state(promise: Promise<unknown>): Promise<'resolved' | 'pending' | Error> {
  const pending = Symbol('pending');
  const outcome = await Promise.race([
    promise.then(
      () => 'resolved' as const,
      (err: unknown) => err as Error,
    ),
    new Promise<typeof pending>((resolve) => setTimeout(() => resolve(pending), 20)),
  ]);
  return outcome === pending ? 'pending' : outcome;
}

beforeEach(() => {
  popup = { closed: false, focus: vi.fn(), close: vi.fn() };
  // window.open is the browser boundary; the popup is a stand-in for the real window.
  open = vi.spyOn(window, 'open').mockImplementation(() => popup as unknown as Window);
  setWindowGeometry({ screenX: 100, screenY: 50, outerWidth: 1500, outerHeight: 1000 });
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('openGoogleSignIn', () => {
  it('opens the start route in a centred 500x600 popup', async () => {
    const signIn = openGoogleSignIn();
    expect(open).toHaveBeenCalledTimes(1);
    const [url, name, features] = open.mock.calls[0] as [string, string, string];
    expect(url).toBe(GOOGLE_START_URL);
    expect(name).toBe('google-sign-in');
    expect(features).toContain('width=500,height=600');
    expect(features).toContain('left=600'); // 100 + (1500 - 500) / 2
    expect(features).toContain('top=250'); // 50 + (1000 - 600) / 2
    expect(features).not.toContain('noopener'); // the popup must be able to reach us
    postFromPopup({ type: 'auth:google', ok: true });
    await signIn;
  });

  it('rejects at once when the popup is blocked', async () => {
    open.mockReturnValue(null);
    const add = vi.spyOn(window, 'addEventListener');
    await expect(openGoogleSignIn()).rejects.toThrow(POPUP_BLOCKED_MESSAGE);
    expect(add).not.toHaveBeenCalledWith('message', expect.anything());
  });

  it('resolves on a success message from our origin and cleans up', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const remove = vi.spyOn(window, 'removeEventListener');
    const closeChannel = vi.spyOn(BroadcastChannel.prototype, 'close');
    const signIn = openGoogleSignIn();
    expect(vi.getTimerCount()).toBe(1);
    postFromPopup({ type: 'auth:google', ok: true });
    await expect(signIn).resolves.toBe('reported');
    expect(vi.getTimerCount()).toBe(0);
    expect(remove).toHaveBeenCalledWith('message', expect.any(Function));
    expect(closeChannel).toHaveBeenCalledTimes(1);
  });

  it('ignores messages from other origins and of other shapes', async () => {
    const signIn = openGoogleSignIn();
    postFromPopup({ type: 'auth:google', ok: true }, 'https://evil.example');
    postFromPopup({ type: 'something-else', ok: true });
    postFromPopup('auth:google');
    postFromPopup({ type: 'auth:google', ok: 'yes' });
    expect(await state(signIn)).toBe('pending');
    postFromPopup({ type: 'auth:google', ok: false, message: 'Google sign-in was cancelled.' });
    await expect(signIn).rejects.toThrow('Google sign-in was cancelled.');
  });

  it('rejects with the reported message on failure, or a default one', async () => {
    const first = openGoogleSignIn();
    postFromPopup({ type: 'auth:google', ok: false, message: 'Google sign-in was refused: the token has expired' });
    await expect(first).rejects.toThrow('Google sign-in was refused: the token has expired');

    const second = openGoogleSignIn();
    postFromPopup({ type: 'auth:google', ok: false });
    await expect(second).rejects.toThrow('Failed to sign in with Google');
  });

  it('hears the result on the BroadcastChannel when the opener link was cut', async () => {
    const signIn = openGoogleSignIn();
    const sender = new BroadcastChannel('auth');
    sender.postMessage({ type: 'auth:google', ok: false, message: 'Google sign-in is unavailable right now' });
    sender.close();
    await expect(signIn).rejects.toThrow('Google sign-in is unavailable right now');
  });

  it("resolves 'closed' when the popup closes without a result, so the caller re-checks the session", async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const signIn = openGoogleSignIn();
    vi.advanceTimersByTime(1500);
    expect(vi.getTimerCount()).toBe(1); // still waiting while the popup is open
    popup.closed = true;
    vi.advanceTimersByTime(500);
    await expect(signIn).resolves.toBe('closed');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('settles once: a late message after the popup closed changes nothing', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const signIn = openGoogleSignIn();
    popup.closed = true;
    vi.advanceTimersByTime(500);
    postFromPopup({ type: 'auth:google', ok: false, message: 'late' });
    await expect(signIn).resolves.toBe('closed');
  });
});
