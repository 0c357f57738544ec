import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { fakeAiEnv } from './tests/fakes/ai-providers.ts';
import { ADMIN_EMAIL, CHROMIUM_IGNORED_DEFAULT_ARGS, CHROMIUM_PATH, JOURNEY_CHROMIUM_ARGS } from './tests/e2e/support/constants.ts';

// The browser journeys run against the built client served by the real server, on a free port
// with a fresh embedded database. script/test builds the client before calling Playwright.
const indexHtml = fileURLToPath(new URL('./dist/client/index.html', import.meta.url));
if (!existsSync(indexHtml)) {
  throw new Error(
    `Playwright: ${indexHtml} is missing. Build the client first (npx vite build, or npm run build); ` +
      'script/test does this before the browser journeys.',
  );
}

/** A port nobody listens on right now (asked synchronously: the config cannot await). */
function freePort(): number {
  const probe = spawnSync(
    process.execPath,
    ['-e', 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'],
    { encoding: 'utf8' },
  );
  const port = Number(probe.stdout.trim());
  if (!Number.isInteger(port) || port <= 0) throw new Error(`Playwright: could not find a free port (${probe.stderr})`);
  return port;
}

// The config is evaluated by the runner and again in every worker; the runner picks the port
// and data directory once and the workers inherit them through the environment.
if (!process.env.E2E_PORT) {
  process.env.E2E_PORT = String(freePort());
  process.env.E2E_FAKE_AI_PORT = String(freePort());
  const dataDir = mkdtempSync(path.join(tmpdir(), 'e2e-data-'));
  process.env.E2E_DATA_DIR = dataDir;
  // The web server is stopped before the runner exits; the database goes with it.
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
}
const port = Number(process.env.E2E_PORT);
const fakeAiRoot = `http://127.0.0.1:${process.env.E2E_FAKE_AI_PORT}`;
// Every AI provider points at the local fake, except that Gemini has no key, so the journeys
// can show SPEC's 'API Configuration Error' panel.
const { GOOGLE_GENERATIVE_AI_API_KEY: _noGeminiKey, ...aiEnv } = fakeAiEnv(fakeAiRoot);
const baseURL = `http://127.0.0.1:${port}`;
const ci = Boolean(process.env.CI);

export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './tests/e2e/global-setup.ts',
  fullyParallel: false,
  forbidOnly: ci,
  // Three on the 2-core machine, CI too: the journeys share one server and wait on the browser,
  // timers and the server more than they compute. Measured (2026-11-28, the whole suite, 137
  // journeys): two workers 6.2 min with the processes using 0.7 of a core on average; three
  // 5.3 min; four 5.6 min.
  workers: 3,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 7_000 },
  reporter: 'list',
  outputDir: 'test-results',
  use: {
    baseURL,
    locale: 'en-US',
    timezoneId: 'UTC',
    viewport: { width: 1280, height: 720 },
    // A failed journey keeps its trace: each action, the console and the network. Without the
    // screencast and a DOM snapshot per action, which cost about a quarter of the suite's CPU
    // (the browser encoding frames all along, for traces nearly all thrown away); the failure's
    // screenshot and Playwright's page snapshot at the error still show the page.
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: false },
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: CHROMIUM_PATH, args: [...JOURNEY_CHROMIUM_ARGS], ignoreDefaultArgs: CHROMIUM_IGNORED_DEFAULT_ARGS },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: [
    {
      command: 'node tests/fakes/ai-providers.ts',
      url: `${fakeAiRoot}/__control/requests`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: { FAKE_AI_PORT: process.env.E2E_FAKE_AI_PORT! },
    },
    {
      command: 'node server/index.ts',
      url: `${baseURL}/api/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
      gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
      env: {
        NODE_ENV: 'test',
        // Always the embedded database in a fresh directory, whatever the caller's environment.
        DATABASE_URL: '',
        DATA_DIR: process.env.E2E_DATA_DIR!,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: baseURL,
        ADMIN_EMAILS: ADMIN_EMAIL,
        AUTH_PROVIDER: 'local',
        LOG_LEVEL: 'warn',
        // Every test signs in through the API from 127.0.0.1; the production limit (10 a minute
        // per IP) would throttle the suite, so it is raised here only.
        SIGN_IN_RATE_LIMIT: '10000',
        // Agents run on generated candles: the journeys never call a real exchange.
        MARKET_DATA: 'simulated',
        // The channels journey's receiver listens on 127.0.0.1 (plain http, tests only).
        OUTBOUND_ALLOW_LOOPBACK: 'true',
        // Admins may share chats as links (issue 32; off by default), for the XSS journey's shared page.
        CHAT_SHARE_ROLES: 'admin',
        ...aiEnv,
      },
    },
  ],
});
