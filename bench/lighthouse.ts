import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../tests/e2e/support/constants.ts';
import { ROOT_DIR } from '../tests/e2e/support/app-server.ts';
import { startAppServer } from './lib.ts';
import { seedList } from './read-vs-bare.ts';
import { makePng } from '../tests/fakes/sample-images.ts';
import { coverNewestArticle, publishThroughApi } from './signed-in-load.ts';
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

/** A page's HTML as our server sends it, without any script: no module entry, no preload, no
 * JSON data for hydration. What the page would be if it were plain static HTML. */
function withoutScripts(html: string): string {
  return html.replace(/<script\b[^>]*>[\s\S]*?<\/script>\s*/gi, '').replace(/<link\b[^>]*\brel="modulepreload"[^>]*>\s*/gi, '');
}

/** The reference: a plain static server (node:http) with each page's HTML at the page's own path
 * (gzip-compressed, as a static server sends HTML) and the built files (precompressed gzip where
 * there is one), nothing else. */
async function startStaticServer(pages: Map<string, string>, dir: string, media: Map<string, Buffer>): Promise<{ url: string; server: Server }> {
  const gzipped = new Map([...pages].map(([pathname, html]) => [pathname, gzipSync(html)]));
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    const acceptsGzip = /\bgzip\b/.test(String(req.headers['accept-encoding']));
    // The article images the pages name, saved from our server as files would be.
    const image = media.get(pathname);
    if (image) return void res.writeHead(200, { 'content-type': 'image/webp', 'cache-control': 'public, max-age=31536000, immutable' }).end(image);
    const html = gzipped.get(pathname);
    if (html) {
      const headers = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' };
      if (acceptsGzip) return void res.writeHead(200, { ...headers, 'content-encoding': 'gzip' }).end(html);
      return void res.writeHead(200, headers).end(pages.get(pathname));
    }
    const file = path.join(dir, path.normalize(pathname).replace(/^(\.\.[/\\])+/, ''));
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end();
    const gzip = acceptsGzip && existsSync(`${file}.gz`);
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

/** Every article image (docs/decisions/0099) a page's HTML names, in src or srcset. */
const mediaPathsIn = (html: string): string[] => [...new Set(html.match(/\/media\/articles\/[0-9a-f-]{36}\/\d+\.webp/g) ?? [])];

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

type Items = { details?: { items?: Array<Record<string, unknown>> } };
const itemsOf = (report: Report, id: string) => ((report.audits[id] as Items | undefined)?.details?.items ?? []);
const shortUrl = (url: unknown) => String(url).replace(/^https?:\/\/[^/]+/, '');

/** Where the main thread went and what held it (Lighthouse's simulated 4x slower CPU): the
 * work by kind, the long tasks with their script, and what blocked the first render. */
function blocking(report: Report): string[] {
  const ms = (n: unknown) => `${Number(n).toFixed(0)} ms`;
  const breakdown = itemsOf(report, 'mainthread-work-breakdown').map((i) => `${String(i.groupLabel)} ${ms(i.duration)}`);
  const tasks = itemsOf(report, 'long-tasks').map((i) => `${shortUrl(i.url)} ${ms(i.duration)} at ${ms(i.startTime)}`);
  const renderBlocking = itemsOf(report, 'render-blocking-insight').map((i) => `${shortUrl(i.url)} (${ms(i.wastedMs)})`);
  return [
    `  main thread: ${breakdown.join(', ') || 'nothing'}`,
    `  long tasks: ${tasks.join('; ') || 'none'}`,
    `  render-blocking: ${renderBlocking.join(', ') || 'none'}`,
  ];
}

type Side = 'ours' | 'static';
type Figures = { best: Report; lcp: number; tbt: number; cls: number; scores: Record<Category, number> };

const metric = (report: Report, id: string) => report.audits[id]!.numericValue!;

/** The best of a page's audits on one side: each metric's best figure (the lowest LCP, TBT and
 * CLS, the highest scores); the report with the best performance score (then LCP) is the one
 * whose shortfalls are listed. */
function bestOf(reports: Report[]): Figures {
  const score = (r: Report, c: Category) => Math.round((r.categories[c].score ?? 0) * 100);
  const best = [...reports].sort((a, b) => score(b, 'performance') - score(a, 'performance') || metric(a, 'largest-contentful-paint') - metric(b, 'largest-contentful-paint'))[0]!;
  return {
    best,
    lcp: Math.min(...reports.map((r) => metric(r, 'largest-contentful-paint'))),
    tbt: Math.min(...reports.map((r) => metric(r, 'total-blocking-time'))),
    cls: Math.min(...reports.map((r) => metric(r, 'cumulative-layout-shift'))),
    scores: Object.fromEntries(CATEGORIES.map((c) => [c, Math.max(...reports.map((r) => score(r, c)))])) as Record<Category, number>,
  };
}

/** LCP within this factor of the same page served as static HTML without scripts. */
const LCP_RATIO_TARGET = 1.2;

/**
 * Lighthouse (mobile) on `/`, `/insights` and an article's page, each compared with the same
 * page served as static HTML without its scripts (the HTML our server sends, every script
 * removed, with the built CSS and images, from a plain static server) in the same run: the best
 * this machine and Lighthouse's throttling allow for that page. Each page is audited a few times
 * on both sides, alternating which goes first, and the best of each side is compared (a shared
 * machine's drift falls on both; Lighthouse's simulated timings follow the order in which the
 * unthrottled browser happened to paint and run scripts, so one audit can be off by half).
 */
const bench: Benchmark = {
  name: 'lighthouse',
  description: 'Lighthouse mobile on /, /insights and an article page (production build, our server) against the same pages as static HTML without scripts: scores, LCP, TBT, CLS',
  async run({ quick, log }) {
    log('starting our server with published articles (PGlite)...');
    const server = await startAppServer();
    await publishThroughApi(server.url, seedList());
    // The newest article has a cover (docs/decisions/0099): its page's LCP element, and a card on
    // / and /insights. A 1600 x 900 picture with detail (compresses like a photo, not a flat fill).
    const coveredSlug = await coverNewestArticle(server.url, { bytes: makePng(1600, 900), type: 'image/png' });
    const results: BenchResult[] = [];
    const reportDir = process.env.LIGHTHOUSE_REPORTS;
    if (reportDir) mkdirSync(reportDir, { recursive: true });
    let reference: { url: string; server: Server } | null = null;
    try {
      const article = `/insights/${coveredSlug}`;
      // The quick run (a smoke check, under two minutes in all) audits `/` and its reference once.
      const pages = quick ? ['/'] : ['/', '/insights', article];
      const rounds = quick ? 1 : 3;
      const staticPages = new Map<string, string>();
      for (const url of pages) staticPages.set(url, withoutScripts(await (await fetch(`${server.url}${url}`)).text()));
      const media = new Map<string, Buffer>();
      for (const file of [...staticPages.values()].flatMap(mediaPathsIn)) media.set(file, Buffer.from(await (await fetch(`${server.url}${file}`)).arrayBuffer()));
      reference = await startStaticServer(staticPages, path.join(ROOT_DIR, 'dist/client'), media);
      const origins: Record<Side, string> = { ours: server.url, static: reference.url };

      for (const url of pages) {
        const page = url === article ? '/insights/:slug (with a cover)' : url;
        const reports: Record<Side, Report[]> = { ours: [], static: [] };
        for (let round = 0; round < rounds; round++) {
          // Alternating which side goes first, so neither always follows the other.
          for (const side of round % 2 === 0 ? (['ours', 'static'] as const) : (['static', 'ours'] as const)) {
            const report = await audit(`${origins[side]}${url}`);
            reports[side].push(report);
            if (reportDir) writeFileSync(path.join(reportDir, `${page.replace(/[/:]+/g, '_').replace(/^_|_$/g, '') || 'landing'}-${side}-${round + 1}.json`), JSON.stringify(report));
            log(`${page} ${side.padEnd(6)} audit ${round + 1}/${rounds}: performance ${Math.round((report.categories.performance.score ?? 0) * 100)}, LCP ${metric(report, 'largest-contentful-paint').toFixed(0)} ms, TBT ${metric(report, 'total-blocking-time').toFixed(0)} ms`);
          }
        }
        const ours = bestOf(reports.ours);
        const plain = bestOf(reports.static);
        const each = (side: Side, id: string) => reports[side].map((r) => metric(r, id).toFixed(0)).join(', ');
        const of = rounds > 1 ? `best of ${rounds}` : 'one audit';
        for (const category of CATEGORIES) {
          const score = ours.scores[category];
          const isPerformance = category === 'performance';
          results.push({
            name: `lighthouse ${page} ${category}`,
            unit: 'score',
            ours: score,
            reference: isPerformance ? plain.scores.performance : null,
            ratio: isPerformance ? score / plain.scores.performance : null,
            target: `>= ${TARGETS[category]}`,
            met: score >= TARGETS[category],
            ...(isPerformance ? { note: `${of}; reference: the page as static HTML without scripts` } : {}),
          });
        }
        const lcpRatio = ours.lcp / plain.lcp;
        results.push(
          {
            // The article's LCP (its cover) against the same page as static HTML: issue 34 item 3's figure.
            name: url === article ? 'article-lcp: lighthouse /insights/:slug (with a cover) LCP' : `lighthouse ${page} LCP`,
            unit: 'ms',
            ours: ours.lcp,
            reference: plain.lcp,
            ratio: lcpRatio,
            target: `<= ${LCP_RATIO_TARGET}x the page as static HTML without scripts`,
            met: lcpRatio <= LCP_RATIO_TARGET,
            note: `${of}; ours ${each('ours', 'largest-contentful-paint')} ms, static ${each('static', 'largest-contentful-paint')} ms`,
          },
          { name: `lighthouse ${page} TBT`, unit: 'ms', ours: ours.tbt, reference: plain.tbt, ratio: null, target: '<= 200 ms (good)', met: ours.tbt <= 200, note: `${of}; ours ${each('ours', 'total-blocking-time')} ms` },
          { name: `lighthouse ${page} CLS`, unit: '', ours: ours.cls, reference: plain.cls, ratio: null, target: '<= 0.1 (good)', met: ours.cls <= 0.1 },
        );
        const missed = shortfalls(ours.best);
        if (missed.length > 0) log(`what cost points on ${page} (our best audit):\n${missed.join('\n')}`);
        log(`what held the main thread on ${page} (our best audit):\n${blocking(ours.best).join('\n')}`);
      }
    } finally {
      const closing = reference?.server;
      if (closing) await new Promise((resolve) => closing.close(resolve));
      await server.stop();
    }
    return results;
  },
};

export default bench;
