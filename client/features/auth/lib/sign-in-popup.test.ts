import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { SIGN_IN_ATTEMPT_PATTERN, SIGN_IN_ATTEMPT_TTL_MS } from '../../../../contracts/popup-sign-in.ts';
import { POPUP_BLOCKED_MESSAGE, startPopupSignIn, type SignInProgress } from './sign-in-popup.ts';

type FakePopup = { closed: boolean; focus: () => void; close: () => void };

let popup: FakePopup;
let open: MockInstance<typeof window.open>;

function setWindowGeometry(values: Record<'screenX' | 'screenY' | 'outerWidth' | 'outerHeight', number>) {
  for (const [key, value] of Object.entries(values)) {
    Object.defineProperty(window, key, { value, configurable: true });
  }
}

/** The result page reporting by postMessage to its opener (the opener link intact). */
function postFromPopup(data: unknown, origin = window.location.origin) {
  window.dispatchEvent(new MessageEvent('message', { data, origin }));
}

/**
 * BroadcastChannel as a browser has it, within this one document: a message goes to every other
 * open channel of the same name, a moment later. (The test environment's own is Node's, which
 * delivers on the event loop, out of reach of fake timers.)
 */
class FakeBroadcastChannel extends EventTarget {
  static open = new Set<FakeBroadcastChannel>();
  readonly name: string;
  constructor(name: string) {
    super();
    this.name = name;
    FakeBroadcastChannel.open.add(this);
  }
  postMessage(data: unknown) {
    for (const other of FakeBroadcastChannel.open) {
      if (other === this || other.name !== this.name) continue;
      queueMicrotask(() => {
        if (FakeBroadcastChannel.open.has(other)) other.dispatchEvent(new MessageEvent('message', { data }));
      });
    }
  }
  close() {
    FakeBroadcastChannel.open.delete(this);
  }
}

/** The result page reporting on the BroadcastChannel (the only path when the link was cut). */
function postOnChannel(data: unknown) {
  const sender = new BroadcastChannel('auth');
  sender.postMessage(data);
  sender.close();
}

const ok = (attempt: string) => ({ type: 'auth:google', ok: true, attempt });
const refused = (attempt: string, message?: string) => ({ type: 'auth:google', ok: false, attempt, ...(message ? { message } : {}) });

/** Lets queued work run: channel deliveries and promise callbacks, not the attempt's timers. */
const flush = () => vi.advanceTimersByTimeAsync(0);

/** The person closes the popup (or Google's policy makes it look closed); the poll sees it. */
async function popupLooksClosed() {
  popup.closed = true;
  await vi.advanceTimersByTimeAsync(500);
}

/** What the progress promise settled to by now, or 'pending'. */
async function settled<T>(promise: Promise<T>): Promise<T | 'pending'> {
  let value: T | 'pending' = 'pending';
  void promise.then((v) => (value = v));
  await flush();
  return value;
}

/** The progress, which must be 'closed' by now; its `result` goes on listening. */
async function closedFirst(progress: Promise<SignInProgress>): Promise<Extract<SignInProgress, { kind: 'closed' }>> {
  const first = await settled(progress);
  if (first === 'pending' || first.kind !== 'closed') throw new Error(`expected 'closed' first, got ${JSON.stringify(first)}`);
  return first;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
  vi.stubGlobal('BroadcastChannel', FakeBroadcastChannel);
  popup = { closed: false, focus: vi.fn(), close: vi.fn() };
  // window.open is the browser boundary; the popup is a stand-in for the real window.
  open = vi.spyOn(window, 'open').mockImplementation(() => popup as unknown as Window);
  setWindowGeometry({ screenX: 100, screenY: 50, outerWidth: 1500, outerHeight: 1000 });
});

afterEach(async () => {
  // An attempt a test left listening expires, so the next test starts with none.
  await vi.advanceTimersByTimeAsync(SIGN_IN_ATTEMPT_TTL_MS);
  expect(FakeBroadcastChannel.open.size).toBe(0);
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('startPopupSignIn', () => {
  it('opens the start route for a new attempt in a centred 500x600 popup', async () => {
    const attempt = startPopupSignIn();
    expect(attempt.id).toMatch(SIGN_IN_ATTEMPT_PATTERN);
    expect(open).toHaveBeenCalledTimes(1);
    const [url, name, features] = open.mock.calls[0] as [string, string, string];
    expect(url).toBe(`/api/auth/google/start?attempt=${attempt.id}`);
    expect(name).toBe('google-sign-in');
    expect(features).toContain('width=500,height=600');
    expect(features).toContain('left=600'); // 100 + (1500 - 500) / 2
    expect(features).toContain('top=250'); // 50 + (1000 - 600) / 2
    expect(features).not.toContain('noopener'); // the popup must be able to reach us
    expect(startPopupSignIn().id).not.toBe(attempt.id);
  });

  it('throws at once when the popup is blocked, listening to nothing', () => {
    open.mockReturnValue(null);
    const add = vi.spyOn(window, 'addEventListener');
    expect(() => startPopupSignIn()).toThrow(POPUP_BLOCKED_MESSAGE);
    expect(add).not.toHaveBeenCalledWith('message', expect.anything());
    expect(vi.getTimerCount()).toBe(0);
  });

  describe('settles exactly once, whichever way and order the result comes', () => {
    it('postMessage only (the opener link intact): the result, then everything is let go', async () => {
      const remove = vi.spyOn(window, 'removeEventListener');
      const closeChannel = vi.spyOn(FakeBroadcastChannel.prototype, 'close');
      const { id, progress } = startPopupSignIn();
      expect(vi.getTimerCount()).toBe(2); // the closed poll and the expiry
      postFromPopup(ok(id));
      expect(await progress).toEqual({ kind: 'result', result: { ok: true } });
      expect(vi.getTimerCount()).toBe(0);
      expect(remove).toHaveBeenCalledWith('message', expect.any(Function));
      expect(closeChannel).toHaveBeenCalledTimes(1);
    });

    it('channel only (the opener link cut)', async () => {
      const { id, progress } = startPopupSignIn();
      postOnChannel(refused(id, 'Google sign-in was refused: the Google account email address is not verified'));
      expect(await settled(progress)).toEqual({
        kind: 'result',
        result: { ok: false, message: 'Google sign-in was refused: the Google account email address is not verified' },
      });
    });

    it('both paths: the first copy wins, the second changes nothing', async () => {
      const { id, progress } = startPopupSignIn();
      postFromPopup(refused(id, 'first'));
      postOnChannel(refused(id, 'second'));
      await flush();
      expect(await progress).toEqual({ kind: 'result', result: { ok: false, message: 'first' } });
    });

    it('duplicate results on the channel: the first counts', async () => {
      const { id, progress } = startPopupSignIn();
      postOnChannel(ok(id));
      postOnChannel(refused(id, 'a later copy'));
      expect(await settled(progress)).toEqual({ kind: 'result', result: { ok: true } });
    });

    it('message, then the popup closes: the result, and the close is not an outcome', async () => {
      const { id, progress } = startPopupSignIn();
      postFromPopup(refused(id, 'Google sign-in was cancelled.'));
      await popupLooksClosed();
      expect(await progress).toEqual({ kind: 'result', result: { ok: false, message: 'Google sign-in was cancelled.' } });
      expect(vi.getTimerCount()).toBe(0);
    });

    it('close seen first, then the result on the channel: closed first, the result still arrives', async () => {
      const { id, progress } = startPopupSignIn();
      await vi.advanceTimersByTimeAsync(1500);
      expect(await settled(progress)).toBe('pending'); // the popup is open: still waiting
      await popupLooksClosed();
      const late = (await closedFirst(progress)).result;
      expect(vi.getTimerCount()).toBe(1); // the poll stopped; the expiry still runs
      await vi.advanceTimersByTimeAsync(3 * 60 * 1000); // the person takes minutes at Google
      postOnChannel(refused(id, 'Google sign-in was refused: the Google account email address is not verified'));
      expect(await late).toEqual({ ok: false, message: 'Google sign-in was refused: the Google account email address is not verified' });
      expect(vi.getTimerCount()).toBe(0);
    });

    it('close seen first, then the result by postMessage', async () => {
      const { id, progress } = startPopupSignIn();
      await popupLooksClosed();
      const late = (await closedFirst(progress)).result;
      postFromPopup(ok(id));
      expect(await late).toEqual({ ok: true });
    });

    it('close seen first, then both copies: the first counts', async () => {
      const { id, progress } = startPopupSignIn();
      await popupLooksClosed();
      const late = (await closedFirst(progress)).result;
      postOnChannel(refused(id, 'first'));
      await flush();
      postFromPopup(ok(id));
      expect(await late).toEqual({ ok: false, message: 'first' });
    });

    it('closed for real: nothing comes, and the attempt ends silently when it expires', async () => {
      const remove = vi.spyOn(window, 'removeEventListener');
      const { progress } = startPopupSignIn();
      await popupLooksClosed();
      const late = (await closedFirst(progress)).result;
      expect(await settled(late)).toBe('pending');
      await vi.advanceTimersByTimeAsync(SIGN_IN_ATTEMPT_TTL_MS);
      expect(await late).toBeNull();
      expect(remove).toHaveBeenCalledWith('message', expect.any(Function));
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  it('uses a default message when a failure gives none', async () => {
    const { id, progress } = startPopupSignIn();
    postOnChannel(refused(id));
    expect(await settled(progress)).toEqual({ kind: 'result', result: { ok: false, message: 'Failed to sign in with Google' } });
  });

  it('ignores other origins, other shapes, other attempts and results addressed to none', async () => {
    const { id, progress } = startPopupSignIn();
    postFromPopup(ok(id), 'https://evil.example');
    postFromPopup({ type: 'something-else', ok: true, attempt: id });
    postFromPopup('auth:google');
    postFromPopup({ type: 'auth:google', ok: 'yes', attempt: id });
    postFromPopup(refused('another-tab-attempt-000', 'not ours'));
    postOnChannel(refused('another-tab-attempt-000', 'not ours'));
    postOnChannel({ type: 'auth:google', ok: false, message: 'addressed to no attempt' });
    await popupLooksClosed();
    const late = (await closedFirst(progress)).result;
    expect(await settled(late)).toBe('pending');
    postOnChannel(refused(id, 'ours'));
    expect(await late).toEqual({ ok: false, message: 'ours' });
  });

  it('a new attempt replaces one still listening, which ends with no result', async () => {
    const first = startPopupSignIn();
    await popupLooksClosed();
    const late = (await closedFirst(first.progress)).result;
    popup.closed = false;
    const second = startPopupSignIn();
    expect(await late).toBeNull();
    postOnChannel(ok(first.id)); // too late for the first, and not the second's
    postOnChannel(ok(second.id));
    expect(await settled(second.progress)).toEqual({ kind: 'result', result: { ok: true } });
  });
});
