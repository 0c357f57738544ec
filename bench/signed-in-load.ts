import autocannon from 'autocannon';
import { defaultAgentConfig, findTemplate } from '../contracts/agents.ts';
import { ADMIN_EMAIL } from '../tests/e2e/support/constants.ts';

/**
 * Signed-in traffic for the load benchmarks (mixed-load, load-with-agents): an admin's session,
 * the data its pages read, and autocannon cycling through those reads.
 */

export type Session = { cookie: string; origin: string };

const ARTICLES = 20;
const AGENTS = 10;

export async function signIn(url: string, email = ADMIN_EMAIL): Promise<Session> {
  const res = await fetch(`${url}/api/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, name: 'Bench' }),
  });
  if (!res.ok) throw new Error(`sign-in answered ${res.status}`);
  return { cookie: res.headers.getSetCookie()[0]!.split(';')[0]!, origin: url };
}

async function post(url: string, path: string, session: Session, body: unknown): Promise<{ id: string; slug?: string }> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...session }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string; slug?: string };
}

/** Publishes the articles through the running server's API as its admin (quicker than seeding
 * the database before start: no second process opening it). Their dates are the server's now. */
export async function publishThroughApi(url: string, list: Array<{ title: string; category: string; excerpt: string; content?: string; readTime?: string; published?: boolean }>): Promise<void> {
  const session = await signIn(url);
  for (const { title, category, excerpt, content, readTime, published } of list) {
    await post(url, '/api/articles', session, { title, category, excerpt, content: content ?? `# ${title}\n\n${excerpt}`, readTime, published: published ?? true });
  }
}

/**
 * Gives the newest published article a cover (docs/decisions/0099): `image` uploaded as the
 * admin, then set with its alt text. Returns the article's slug.
 */
export async function coverNewestArticle(url: string, image: { bytes: Uint8Array; type: string }): Promise<string> {
  const session = await signIn(url);
  const upload = await fetch(`${url}/api/articles/images?type=${encodeURIComponent(image.type)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', ...session },
    body: new Uint8Array(image.bytes),
  });
  if (!upload.ok) throw new Error(`POST /api/articles/images answered ${upload.status}: ${await upload.text()}`);
  const { id } = (await upload.json()) as { id: string };
  const [newest] = (await (await fetch(`${url}/api/articles?limit=1`)).json()) as Array<{ id: string; slug: string }>;
  const res = await fetch(`${url}/api/articles/${newest!.id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', ...session },
    body: JSON.stringify({ coverImageId: id, coverAlt: 'A ledger of the week’s invoices' }),
  });
  if (!res.ok) throw new Error(`PATCH /api/articles/${newest!.id} answered ${res.status}: ${await res.text()}`);
  return newest!.slug;
}

/** What a signed-in admin's pages read: the dashboard, an article, the agents console (paused agents). */
async function seed(url: string, session: Session): Promise<string[]> {
  const slugs: string[] = [];
  for (let i = 0; i < ARTICLES; i++) {
    const article = await post(url, '/api/articles', session, {
      title: `Automation note ${i}`,
      category: 'Operations',
      excerpt: 'How a small team took the busywork out of its week.',
      content: `# Note ${i}\n\n${'Automation pays when it removes a decision nobody needed to make. '.repeat(30)}`,
      published: true,
    });
    slugs.push(article.slug!);
  }
  const template = findTemplate('stock-market-scanner')!;
  for (let i = 0; i < AGENTS; i++) {
    await post(url, '/api/agents', session, {
      templateId: template.id,
      name: `Scanner ${i}`,
      config: defaultAgentConfig(template),
    });
  }
  return slugs;
}

export type SignedInReads = { session: Session; requests: autocannon.Request[] };

/** Signs the admin in, seeds what the pages read, and returns the cycle of reads each connection makes. */
export async function prepareSignedInReads(url: string): Promise<SignedInReads> {
  const session = await signIn(url);
  const slugs = await seed(url, session);
  const headers = { cookie: session.cookie };
  const requests = [
    { method: 'GET' as const, path: '/api/auth/me', headers },
    { method: 'GET' as const, path: '/api/articles?limit=3', headers },
    { method: 'GET' as const, path: '/api/notifications?limit=20', headers },
    ...slugs.slice(0, 5).map((slug) => ({ method: 'GET' as const, path: `/api/articles/${slug}`, headers })),
    { method: 'GET' as const, path: '/api/agents', headers },
  ];
  return { session, requests };
}

export type LoadFigures = { requestsPerSecond: number; p50Ms: number; p99Ms: number; errors: number; non2xx: number; total: number };

/**
 * A 2 s warm-up at 20 connections, then `connections` cycling through `requests` for `seconds`;
 * `beforeLoad` runs between the two (e.g. to start background work the load must overlap).
 */
export async function runSignedInLoad(
  url: string,
  requests: autocannon.Request[],
  options: { connections: number; seconds: number; beforeLoad?: () => Promise<void> },
): Promise<LoadFigures> {
  await autocannon({ url, connections: 20, duration: 2, requests });
  await options.beforeLoad?.();
  const result = await autocannon({ url, connections: options.connections, duration: options.seconds, requests });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

export const describeLoad = (load: LoadFigures) =>
  `${load.requestsPerSecond.toFixed(0)} req/s, p50 ${load.p50Ms} ms, p99 ${load.p99Ms} ms, ${load.errors} errors, ${load.non2xx} non-2xx of ${load.total}`;
