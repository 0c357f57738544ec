import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../tests/e2e/support/constants.ts';
import { ROOT_DIR } from '../tests/e2e/support/app-server.ts';
import { startAppServer } from './lib.ts';
import { seedList } from './read-vs-bare.ts';
import { publishThroughApi } from './signed-in-load.ts';
import type { Benchmark, BenchResult } from './types.ts';

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
type Category = (typeof CATEGORIES)[number];
const TARGETS: Record<Category, number> = { performance: 98, accessibility: 100, 'best-practices': 100, seo: 100 };

type Audit = { numericValue?: number; score: number | null; displayValue?: string; title: string };
type Report = {
  categories: Record<Category, { score: number | null; auditRefs: Array<{ id: string; weight: number }> }>;
  audits: Record<string, Audit>;
  runtimeError?: { code: string; message: string };
};

/**
 * Lighthouse with its default (mobile) settings: a Moto G Power sized screen, simulated slow 4G
 * and a 4x slower CPU, on the production build served by our own server.
 */
async function audit(url: string): Promise<Report> {
  try {
    return await auditOnce(url);
  } catch (err) {
    // Lighthouse's own advice for a trace it could not record ("Please run Lighthouse again"):
    // one more try in a fresh browser; any other failure stands.
    if (!(err instanceof Error && /NO_NAVSTART|NO_FCP|NO_LCP/.test(err.message))) throw err;
    console.log(`  ${err.message.split('\n')[0]}; running it again`);
    return auditOnce(url);
  }
}

async function auditOnce(url: string): Promise<Report> {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'lighthouse-chromium-'));
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM_PATH,
    // chrome-launcher adds its own flags; ours keep Chromium off the network and quiet.
    chromeFlags: [...CHROMIUM_ARGS, `--user-data-dir=${userDataDir}`],
    logLevel: 'silent',
  });
  try {
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const report = result.lhr as unknown as Report;
    if (report.runtimeError) throw new Error(`Lighthouse on ${url}: ${report.runtimeError.code} ${report.runtimeError.message}`);
    return report;
  } finally {
    await chrome.kill();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

const TYPES: Record<string, string> = { '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.avif': 'image/avif', '.webp': 'image/webp' };

/** The reference: a plain static server (node:http) with the page's HTML at `/` and the built
 * files (precompressed gzip where there is one), nothing else. */
async function startStaticServer(html: string, dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    if (pathname === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    const file = path.join(dir, path.normalize(pathname).replace(/^(\.\.[/\\])+/, ''));
    if (!file.startsWith(dir) || !existsSync(file)) return void res.writeHead(404).end();
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'])) && existsSync(`${file}.gz`);
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'public, max-age=31536000, immutable',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    res.end(readFileSync(gzip ? `${file}.gz` : file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the reference server has no port');
  return { url: `http://127.0.0.1:${address.port}`, server };
}

/** What cost points: each failed audit that carries weight in a category below 100. */
function shortfalls(report: Report): string[] {
  const lines: string[] = [];
  for (const category of CATEGORIES) {
    const { score, auditRefs } = report.categories[category];
    if (score === 1) continue;
    for (const ref of auditRefs) {
      const a = report.audits[ref.id];
      if (ref.weight > 0 && a && a.score !== null && a.score < 1) lines.push(`  ${category}: ${a.title} (${a.displayValue ?? `score ${a.score}`})`);
    }
  }
  return lines;
}

/**
 * Lighthouse (mobile) on `/`, `/insights` and an article's page: the four category scores and
 * LCP, TBT and CLS.
 * The reference is Lighthouse on the same prerendered landing HTML without its scripts, served
 * with the built CSS and images by a plain static server: the best this machine and the
 * throttling allow for that page.
 */
const bench: Benchmark = {
  name: 'lighthouse',
  description: 'Lighthouse mobile on /, /insights and an article page (production build, our server): scores, LCP, TBT, CLS',
  async run({ quick, log }) {
    log('starting our server with published articles (PGlite)...');
    const server = await startAppServer();
    await publishThroughApi(server.url, seedList());
    const results: BenchResult[] = [];
    try {
      // The reference: the landing HTML our server sends, without its scripts.
      const landing = await (await fetch(`${server.url}/`)).text();
      const staticHtml = landing.replace(/<script type="module"[^>]*><\/script>/g, '').replace(/<link rel="modulepreload"[^>]*>/g, '');
      // The quick run (a smoke check, under two minutes in all) leaves the reference out.
      let referenceLcp: number | null = null;
      if (!quick) {
        const reference = await startStaticServer(staticHtml, path.join(ROOT_DIR, 'dist/client'));
        try {
          referenceLcp = (await audit(`${reference.url}/`)).audits['largest-contentful-paint']!.numericValue!;
        } finally {
          await new Promise((resolve) => reference.server.close(resolve));
        }
        log(`reference (static landing HTML, no JavaScript): LCP ${referenceLcp.toFixed(0)} ms`);
      }

      const [first] = (await (await fetch(`${server.url}/api/articles?limit=1`)).json()) as Array<{ slug: string }>;
      const article = `/insights/${first!.slug}`;
      // The quick run (a smoke check) audits `/` and an article's page.
      for (const url of quick ? ['/', article] : ['/', '/insights', article]) {
        const page = url === article ? '/insights/:slug' : url;
        log(`Lighthouse (mobile) on ${url}...`);
        const report = await audit(`${server.url}${url}`);
        for (const category of CATEGORIES) {
          const score = Math.round((report.categories[category].score ?? 0) * 100);
          results.push({ name: `lighthouse ${page} ${category}`, unit: 'score', ours: score, reference: null, ratio: null, target: `>= ${TARGETS[category]}`, met: score >= TARGETS[category] });
        }
        const metric = (id: string) => report.audits[id]!.numericValue!;
        const lcp = metric('largest-contentful-paint');
        results.push(
          { name: `lighthouse ${page} LCP`, unit: 'ms', ours: lcp, reference: referenceLcp, ratio: referenceLcp === null ? null : lcp / referenceLcp, target: '<= 2500 ms (good)', met: lcp <= 2500 },
          { name: `lighthouse ${page} TBT`, unit: 'ms', ours: metric('total-blocking-time'), reference: null, ratio: null, target: '<= 200 ms (good)', met: metric('total-blocking-time') <= 200 },
          { name: `lighthouse ${page} CLS`, unit: '', ours: metric('cumulative-layout-shift'), reference: null, ratio: null, target: '<= 0.1 (good)', met: metric('cumulative-layout-shift') <= 0.1 },
        );
        const missed = shortfalls(report);
        if (missed.length > 0) log(`what cost points on ${page}:\n${missed.join('\n')}`);
      }
    } finally {
      await server.stop();
    }
    return results;
  },
};

export default bench;

