import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLE_SENTENCE, startFakeWebSearch, type FakeWebSearch } from '../../../tests/fakes/web-search.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const user: SessionUser = {
  id: '00000000-0000-4000-8000-000000000002',
  provider: 'local',
  subject: 'a@example.com',
  email: 'a@example.com',
  name: 'A',
  profilePicture: '',
  role: 'guest',
  createdAt: new Date(),
};

describe('web search in the app', () => {
  let fake: FakeWebSearch;
  let on: TestApp;
  let off: TestApp;
  beforeAll(async () => {
    fake = await startFakeWebSearch();
    on = await createTestApp({ env: fake.env('tavily') });
    off = await createTestApp();
  });
  afterAll(async () => {
    await Promise.all([on?.close(), off?.close()]);
    await fake?.close();
  });

  it('GET /api/chat/providers says whether the server has a search engine', async () => {
    for (const [t, expected] of [
      [on, true],
      [off, false],
    ] as const) {
      const cookie = await t.signIn('someone@example.com');
      const res = await t.request({ url: '/api/chat/providers', cookie });
      expect(res.statusCode).toBe(200);
      expect(res.json().webSearch).toBe(expected);
    }
  });

  it('is the app\'s webSearch, searching with the configured engine through the outbound door', async () => {
    expect(off.app.webSearch.enabled).toBe(false);
    expect(on.app.webSearch.enabled).toBe(true);
    const found = await on.app.webSearch.search(user, 'solar', {
      signal: new AbortController().signal,
      log: on.app.log,
    });
    expect(found.failed).toBe(false);
    expect(found.sources[0]!.text).toContain(ARTICLE_SENTENCE);
    expect(fake.asked.at(-1)).toEqual({ api: 'tavily', query: 'solar' });
  });
});
