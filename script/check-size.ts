// A page's JavaScript budget, checked on the build output: the scripts a page loads before any
// interaction are the module scripts written into its HTML, its entry script, its modulepreload
// links and the scripts a public page loads once it has painted (`data-hydrate`,
// vite.config.ts) (landing.html is `/`, index.html every other route), plus everything they
// import statically. Dynamic `import()` is not followed (those chunks load on demand;
// tests/e2e/performance.spec.ts measures what the browser really fetches at load).
//
//   node script/check-size.ts [--page landing.html] [--budget-kb 80] [--dir dist/client]
//
// Prints each file with its gzip size (zlib level 9) and the total; exits 1 over the budget,
// 2 when the build is missing.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { parseAst } from 'vite';

export const DEFAULT_BUDGET_KB = 80;
export const DEFAULT_PAGE = 'landing.html';

export type SizedFile = { file: string; bytes: number; gzipBytes: number };
export type SizeReport = { files: SizedFile[]; totalGzipBytes: number };

/** Script URLs index.html loads without any interaction: module entry scripts, modulepreload
 * links, and the scripts a script tag names in `data-hydrate` (the public pages' entry, loaded
 * once the page has painted). */
export function initialScriptUrls(html: string): string[] {
  const urls: string[] = [];
  for (const tag of html.match(/<(?:script|link)\b[^>]*>/gi) ?? []) {
    const attr = (name: string) => new RegExp(`(?<![\\w-])${name}\\s*=\\s*(["'])(.*?)\\1`, 'i').exec(tag)?.[2];
    if (/^<script/i.test(tag)) {
      const src = attr('src');
      if (src) urls.push(src);
      urls.push(...(attr('data-hydrate') ?? '').split(/\s+/).filter(Boolean));
    } else if (attr('rel')?.toLowerCase().split(/\s+/).includes('modulepreload')) {
      const href = attr('href');
      if (href) urls.push(href);
    }
  }
  return urls;
}

/**
 * Specifiers of the static imports and re-exports of an emitted ES module
 * (`import{a as b}from"./x.js"`, `import"./x.js"`, `export*from"./x.js"`,
 * `export{a}from"./x.js"`), read from its syntax tree with Vite's parser, so `import("./x.js")`
 * and text that merely looks like an import inside strings or comments are not counted.
 */
export function staticImports(code: string): string[] {
  const specifiers = new Set<string>();
  for (const node of parseAst(code).body) {
    if (
      (node.type === 'ImportDeclaration' || node.type === 'ExportAllDeclaration' || node.type === 'ExportNamedDeclaration') &&
      node.source &&
      typeof node.source.value === 'string'
    ) {
      specifiers.add(node.source.value);
    }
  }
  return [...specifiers];
}

/** Maps a URL from index.html (`/assets/x.js`, `./assets/x.js`) to a file in the build. */
function fileForUrl(clientDir: string, url: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(url)) return null; // another origin: not ours to count
  const clean = url.split(/[?#]/)[0]!;
  return path.join(clientDir, clean.startsWith('/') ? clean.slice(1) : clean);
}

/** Every JavaScript file a page loads before interaction, in discovery order, each once. */
export function initialScripts(clientDir: string, page = 'index.html'): string[] {
  const indexFile = path.join(clientDir, page);
  const queue = initialScriptUrls(readFileSync(indexFile, 'utf8'))
    .map((url) => fileForUrl(clientDir, url))
    .filter((f): f is string => f !== null);
  const seen = new Set<string>();
  const ordered: string[] = [];
  while (queue.length > 0) {
    const file = path.resolve(queue.shift()!);
    if (seen.has(file)) continue;
    seen.add(file);
    if (!existsSync(file)) throw new Error(`${path.relative(clientDir, file)} is referenced but missing from the build`);
    ordered.push(file);
    for (const specifier of staticImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('./') || specifier.startsWith('../')) queue.push(path.resolve(path.dirname(file), specifier));
      else if (specifier.startsWith('/')) queue.push(path.join(clientDir, specifier.slice(1)));
      else throw new Error(`${path.relative(clientDir, file)} imports "${specifier}", which the browser cannot resolve`);
    }
  }
  return ordered;
}

/** The text of each module script written into a page (no `src`): the public pages' boot. */
export function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script type="module"(?![^>]*\ssrc=)[^>]*>([\s\S]+?)<\/script>/g)].map(([, text]) => text!);
}

export function measure(clientDir: string, page = 'index.html'): SizeReport {
  const sized = (file: string, data: Buffer) => ({ file, bytes: data.length, gzipBytes: gzipSync(data, { level: 9 }).length });
  const files = [
    ...inlineScripts(readFileSync(path.join(clientDir, page), 'utf8')).map((text) => sized(`${page} (its own script)`, Buffer.from(text))),
    ...initialScripts(clientDir, page).map((file) => sized(path.relative(clientDir, file), readFileSync(file))),
  ];
  return { files, totalGzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0) };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function main(): number {
  const { values } = parseArgs({
    options: { 'budget-kb': { type: 'string' }, dir: { type: 'string' }, page: { type: 'string' } },
    allowPositionals: false,
  });
  const budgetKb = values['budget-kb'] === undefined ? DEFAULT_BUDGET_KB : Number(values['budget-kb']);
  if (!Number.isFinite(budgetKb) || budgetKb <= 0) {
    console.error(`check-size: --budget-kb must be a positive number, got "${values['budget-kb']}"`);
    return 2;
  }
  const clientDir = path.resolve(values.dir ?? 'dist/client');
  const page = values.page ?? DEFAULT_PAGE;
  if (!existsSync(path.join(clientDir, page))) {
    console.error(`check-size: ${path.join(clientDir, page)} is missing; build the client first (npm run build)`);
    return 2;
  }

  const report = measure(clientDir, page);
  const budget = budgetKb * 1024;
  console.log(`JavaScript ${page} loads before any interaction (gzip -9):`);
  for (const f of report.files) console.log(`  ${kb(f.gzipBytes).padStart(9)}  (${kb(f.bytes).padStart(9)} raw)  ${f.file}`);
  console.log(`  ${kb(report.totalGzipBytes).padStart(9)}  total; budget ${kb(budget)} (${((report.totalGzipBytes / budget) * 100).toFixed(1)}% used)`);
  if (report.totalGzipBytes > budget) {
    console.error(`check-size: FAIL: ${kb(report.totalGzipBytes - budget)} over the ${kb(budget)} budget`);
    return 1;
  }
  console.log('check-size: OK');
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    process.exitCode = main();
  } catch (err) {
    console.error(`check-size: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 2;
  }
}
