import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import { loadConfig } from '../../server/config.ts';
import { until } from '../../server/test/until.ts';
import { ADMIN_EMAIL } from '../e2e/support/constants.ts';
import { freePort, ROOT_DIR } from '../e2e/support/app-server.ts';
import { startFakeExchanges, type FakeExchanges } from '../fakes/exchanges.ts';
import { healthCommand, readCompose, readEnvFile, service, serviceEnvironment } from '../support/container/compose.ts';
import { buildImages, IMAGES, podman, podmanInstalled, podmanOk, type ImagesStatus } from '../support/container/podman.ts';

/**
 * Issue 33 item 5: the product as containers, built and run with Debian's podman. The images come
 * from script/container-images (a Node base and PostgreSQL made from Debian packages, as no image
 * registry is reachable here; then `podman build -f Containerfile`), which script/test starts in
 * the background early; this file waits for it. PostgreSQL, the web and the worker then run as
 * compose.yaml describes them: each one's environment and health check read from that file, the
 * secrets from an env file as deploy/compose.env.example says.
 *
 * One difference, on purpose: the containers share the host's network (`--network host`) instead
 * of a network of their own. The market data comes from the fake exchanges of tests/fakes/ on the
 * host, and the server accepts a market base URL only at the provider's own host or a loopback
 * address (server/config.ts, MARKET_HOSTS: outbound calls go nowhere else); the host's loopback is
 * the container's only when they share the network. It also needs no bridge, iptables or
 * slirp4netns, which restricted kernels refuse. So the addresses compose's network gives
 * (`postgres:5432`, port 3000, the worker's 9100) become free ports on 127.0.0.1; `wiring` below
 * lists every value that differs from the file, and nothing else does.
 */

const COMPOSE_FILE = path.join(ROOT_DIR, 'compose.yaml');
const ENV_EXAMPLE = path.join(ROOT_DIR, 'deploy/compose.env.example');

const images: ImagesStatus = podmanInstalled()
  ? await buildImages()
  : { state: 'unavailable', message: 'podman is not installed (Debian package podman; script/test installs it as root)', runArgs: [] };
const title = 'containers: PostgreSQL, the web and the worker from compose.yaml, run by podman';

describe.skipIf(images.state === 'unavailable')(images.state === 'unavailable' ? `${title} (skipped: ${images.message})` : title, () => {
  const compose = readCompose(COMPOSE_FILE);
  const suffix = randomBytes(4).toString('hex');
  const names = { postgres: `axiom-test-postgres-${suffix}`, web: `axiom-test-web-${suffix}`, worker: `axiom-test-worker-${suffix}` };
  const volume = `axiom-test-database-${suffix}`;
  const postgresPassword = randomBytes(12).toString('hex');
  let exchanges: FakeExchanges;
  let files: string;
  let webUrl: string;
  let workerHealthPort: number;

  /** Starts a container the way compose would, on the host's network (see above). */
  const start = (name: string, args: string[]) => podmanOk(['run', '--detach', '--name', name, '--network', 'host', ...images.runArgs, ...args]);
  const environmentArgs = (env: Record<string, string>) => Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
  const logs = async (name: string) => {
    const result = await podman(['logs', '--tail', '60', name]);
    return `--- ${name}:\n${result.stdout}${result.stderr}`;
  };
  const allLogs = async () => (await Promise.all(Object.values(names).map(logs))).join('\n');

  beforeAll(async () => {
    if (images.state !== 'ready') throw new Error(`the container images could not be built: ${images.message}`);
    files = mkdtempSync(path.join(tmpdir(), 'containers-'));
    exchanges = await startFakeExchanges();
    const [postgresPort, webPort] = await Promise.all([freePort(), freePort()]);
    workerHealthPort = await freePort();
    webUrl = `http://127.0.0.1:${webPort}`;
    // .env, as an operator fills it from deploy/compose.env.example: the test's secrets, local
    // sign-in instead of Google (passkeys need https), and the fake exchanges.
    const dotEnv: Record<string, string> = {
      POSTGRES_PASSWORD: postgresPassword,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      PUBLIC_URL: webUrl,
      TRUST_PROXY: 'false',
      ALLOW_LOCAL_AUTH: 'true',
      ADMIN_EMAILS: ADMIN_EMAIL,
      ...exchanges.env,
    };
    const envFile = path.join(files, '.env');
    writeFileSync(envFile, Object.entries(dotEnv).map(([k, v]) => `${k}=${v}\n`).join(''), { mode: 0o600 });

    // The host's network instead of compose's (see the comment at the top): the only differences.
    const databaseUrl = (url: string) => Object.assign(new URL(url), { hostname: '127.0.0.1', port: String(postgresPort) }).href;
    const wiring = {
      postgres: { PGPORT: String(postgresPort) },
      web: { HOST: '127.0.0.1', PORT: String(webPort) },
      worker: { HOST: '127.0.0.1', WORKER_HEALTH_PORT: String(workerHealthPort) },
    };
    const environment = (name: 'web' | 'worker') => {
      const env: Record<string, string> = { ...serviceEnvironment(compose, name, dotEnv), ...wiring[name] };
      return { ...env, DATABASE_URL: databaseUrl(env.DATABASE_URL!) };
    };

    const postgres = service(compose, 'postgres');
    const [volumeName, volumePath] = postgres.volumes![0]!.split(':') as [string, string];
    expect(Object.keys(compose.volumes ?? {})).toContain(volumeName);
    await podmanOk(['volume', 'create', volume]);
    await start(names.postgres, [
      ...environmentArgs({ ...serviceEnvironment(compose, 'postgres', dotEnv), ...wiring.postgres }),
      '--volume', `${volume}:${volumePath}`,
      '--health-cmd', healthCommand(postgres.healthcheck!, dotEnv),
      IMAGES.postgres,
    ]);
    // compose's depends_on: the web and the worker start once PostgreSQL accepts the app's password.
    expect(Object.keys(service(compose, 'web').depends_on ?? {})).toEqual(['postgres']);
    const appUrl = environment('web').DATABASE_URL;
    await until(
      async () => {
        const client = new pg.Client({ connectionString: appUrl, connectionTimeoutMillis: 2_000 });
        try {
          await client.connect();
          return 'ready';
        } catch (err) {
          return String(err);
        } finally {
          await client.end().catch(() => {});
        }
      },
      (state) => state === 'ready',
      60_000,
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await logs(names.postgres)}`);
    });

    // Both at once, as `compose up` starts them: migrations run once, under the advisory lock.
    const worker = service(compose, 'worker');
    await Promise.all([
      start(names.web, ['--env-file', envFile, ...environmentArgs(environment('web')), IMAGES.product]),
      start(names.worker, ['--env-file', envFile, ...environmentArgs(environment('worker')), '--health-cmd', healthCommand(worker.healthcheck!, dotEnv), IMAGES.product, ...worker.command!]),
    ]);
    const answers = async (url: string) => (await fetch(url, { signal: AbortSignal.timeout(2_000) }).catch(() => null))?.status ?? 0;
    await until(
      async () => Promise.all([answers(`${webUrl}/api/health/ready`), answers(`http://127.0.0.1:${workerHealthPort}/api/health/ready`)]),
      (statuses) => statuses.every((s) => s === 200),
      90_000,
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await allLogs()}`);
    });
  }, 180_000);

  afterAll(async () => {
    await podman(['rm', '--force', '--volumes', '--time', '5', ...Object.values(names)]);
    await podman(['volume', 'rm', '--force', volume]);
    await exchanges?.close();
    if (files) rmSync(files, { recursive: true, force: true });
  }, 60_000);

  it('each container passes its health check: the image\'s own for the web, compose.yaml\'s for the worker and PostgreSQL', async () => {
    const configured = await podmanOk(['image', 'inspect', '--format', '{{json .Config.Healthcheck}}', IMAGES.product]);
    expect(JSON.parse(configured)).toMatchObject({ Test: ['CMD', 'node', '-e', expect.stringContaining('/api/health/ready')] });
    for (const name of Object.values(names)) {
      const check = await podman(['healthcheck', 'run', name]);
      expect(check.code, `${name}: ${check.stdout}${check.stderr}\n${await logs(name)}`).toBe(0);
    }
  }, 60_000);

  it('runs as a numeric user that is not root, and holds only production dependencies and the built client', async () => {
    expect(await podmanOk(['image', 'inspect', '--format', '{{.Config.User}}', IMAGES.product])).toBe('1000:1000');
    for (const name of [names.web, names.worker]) expect(await podmanOk(['exec', name, 'id', '-u'])).toBe('1000');
    // The server's user reads the app and cannot change it.
    expect((await podman(['exec', names.web, 'touch', 'server/index.ts'])).code).not.toBe(0);
    const has = async (file: string) => (await podman(['exec', names.web, 'test', '-e', file])).code === 0;
    expect(await has('node_modules/fastify/package.json')).toBe(true);
    expect(await has('dist/client/index.html')).toBe(true);
    for (const devOnly of ['vitest', 'vite', 'eslint', 'typescript', '@playwright/test']) expect(await has(`node_modules/${devOnly}`), devOnly).toBe(false);
    for (const source of ['tests', 'client', 'docs', '.git']) expect(await has(source), source).toBe(false);
  }, 60_000);

  it('signs in, creates an agent, and the worker container runs it on the fake exchanges', async () => {
    const ask = (route: string, init: { method?: string; body?: unknown; cookie?: string } = {}) =>
      fetch(`${webUrl}${route}`, {
        method: init.method ?? 'GET',
        headers: { ...(init.cookie ? { cookie: init.cookie } : {}), ...(init.body !== undefined ? { 'content-type': 'application/json', origin: webUrl } : {}) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    const signIn = await ask('/api/auth/local/login', { method: 'POST', body: { email: ADMIN_EMAIL, name: 'Container operator' } });
    expect(signIn.status, await signIn.clone().text()).toBe(200);
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    expect(await (await ask('/api/auth/me', { cookie })).json()).toMatchObject({ user: { email: ADMIN_EMAIL, role: 'admin' } });

    const template = findTemplate('crypto-market-monitor')!;
    const config = defaultAgentConfig(template);
    config.notifications = { ...config.notifications, email: false, inApp: true, thresholds: [{ type: 'priceChange', value: 0, message: 'Price moved' }] };
    const created = await ask('/api/agents', { method: 'POST', cookie, body: { templateId: template.id, name: 'In a container', config } });
    expect(created.status, await created.clone().text()).toBe(201);
    const agentId = ((await created.json()) as { id: string }).id;
    const queued = await ask(`/api/agents/${agentId}/run`, { method: 'POST', cookie, body: {} });
    expect(queued.status).toBe(202);
    const { runId } = (await queued.json()) as { runId: number };

    // The web container runs no agents (compose.yaml: RUN_WORKERS "false"): only the worker can.
    const runs = await until(
      async () => (await (await ask(`/api/agents/${agentId}/runs`, { cookie })).json()) as Array<{ id: number; status: string }>,
      (list) => ['success', 'failed', 'error'].includes(list.find((r) => r.id === runId)?.status ?? ''),
      60_000,
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await allLogs()}`);
    });
    expect(runs.find((r) => r.id === runId)?.status).toBe('success');
    expect(exchanges.requests().filter((r) => r.kind === 'candles').length).toBeGreaterThan(0);
  }, 90_000);
});

describe('compose.yaml and deploy/compose.env.example', () => {
  const compose = readCompose(COMPOSE_FILE);
  const example = readEnvFile(readFileSync(ENV_EXAMPLE, 'utf8'));

  it('the web and the worker get a valid production configuration once the example\'s secrets are filled in', () => {
    expect(example.SESSION_SECRET).toBe('');
    expect(example.POSTGRES_PASSWORD).toBe('');
    const dotEnv = { ...example, SESSION_SECRET: randomBytes(32).toString('hex'), POSTGRES_PASSWORD: 'a-password' };
    for (const name of ['web', 'worker']) {
      expect(service(compose, name).env_file).toBe('.env');
      const config = loadConfig({ ...dotEnv, ...serviceEnvironment(compose, name, dotEnv) });
      expect(config).toMatchObject({ env: 'production', host: '0.0.0.0', database: { kind: 'postgres', url: 'postgres://axiom:a-password@postgres:5432/axiom' } });
    }
    expect(loadConfig({ ...dotEnv, ...serviceEnvironment(compose, 'web', dotEnv) }).runtime.runWorkers).toBe(false);
    expect(loadConfig({ ...dotEnv, ...serviceEnvironment(compose, 'worker', dotEnv) }).runtime.workerHealthPort).toBe(9100);
    // Unfilled, compose itself refuses to start (and so would the server, without SESSION_SECRET).
    expect(() => serviceEnvironment(compose, 'web', example)).toThrow(/POSTGRES_PASSWORD/);
  });

  it('the services wait for PostgreSQL to be healthy, and the worker is the same image with its own command and check', () => {
    for (const name of ['web', 'worker']) expect(service(compose, name).depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(service(compose, 'worker').image).toBe(service(compose, 'web').image);
    expect(service(compose, 'worker').command).toEqual(['node', 'server/worker.ts']);
    expect(healthCommand(service(compose, 'worker').healthcheck!, {})).toBe('["node","server/worker-health.ts"]');
    expect(healthCommand(service(compose, 'postgres').healthcheck!, {})).toBe('pg_isready -U "$POSTGRES_USER" -d "$POSTGRES_DB"');
  });
});
