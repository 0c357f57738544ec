/**
 * Polls `read` every 50 ms until `done` accepts its value, and returns that value; fails after
 * `timeoutMs` showing the last value, so a stuck background job says what state it is in.
 */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)?.slice(0, 800)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
