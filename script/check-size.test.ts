import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialScriptUrls, initialScripts, inlineScripts, measure, staticImports } from './check-size.ts';

const script = fileURLToPath(new URL('./check-size.ts', import.meta.url));

// A small build: an entry and a modulepreload link, a shared chunk imported twice, a re-export,
// an import cycle, a dynamic import (not followed) and an import-looking string (not followed).
const files: Record<string, string> = {
  'index.html': [
    '<!doctype html><html><head>',
    '<script type="application/json" id="app-config">{"siteName":"x"}</script>',
    '<script type="module" crossorigin src="/assets/entry.js"></script>',
    '<link rel="modulepreload" crossorigin href="/assets/preloaded.js">',
    '<link rel="stylesheet" crossorigin href="/assets/style.css">',
    '<script src="https://cdn.example.com/other-origin.js"></script>',
    '</head><body><div id="root"></div></body></html>',
  ].join('\n'),
  'assets/entry.js':
    'import{a as b}from"./shared.js";import"./side.js";' +
    'const s="import{x}from\\"./in-string.js\\"";' +
    'import(`./lazy.js`).then(()=>{});console.log(b,s,import.meta.url);export{b};',
  'assets/shared.js': 'export*from"./reexported.js";export const a=1;',
  'assets/side.js': 'import{a}from"./shared.js";console.log(a);',
  'assets/reexported.js': 'import"./entry.js";export const r=2;',
  'assets/preloaded.js': 'export{v}from"./vendor/lib.js";',
  'assets/vendor/lib.js': `export const v=${JSON.stringify('x'.repeat(5000))};`,
  'assets/lazy.js': 'import"./only-lazy.js";export default 1;',
  'assets/only-lazy.js': 'export const big=1;',
  'assets/in-string.js': 'export const x=1;',
  'assets/style.css': 'body{color:red}',
};
const counted = ['assets/entry.js', 'assets/preloaded.js', 'assets/shared.js', 'assets/side.js', 'assets/vendor/lib.js', 'assets/reexported.js'];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'check-size-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('check-size', () => {
  it('reads module entry scripts and modulepreload links from index.html', () => {
    expect(initialScriptUrls(files['index.html']!)).toEqual([
      '/assets/entry.js',
      '/assets/preloaded.js',
      'https://cdn.example.com/other-origin.js',
    ]);
  });

  it('finds static imports and re-exports, not dynamic imports or strings', () => {
    expect(staticImports(files['assets/entry.js']!).sort()).toEqual(['./shared.js', './side.js']);
    expect(staticImports(files['assets/shared.js']!)).toEqual(['./reexported.js']);
    expect(staticImports(files['assets/preloaded.js']!)).toEqual(['./vendor/lib.js']);
    expect(staticImports('import x,{y as z}from"./a.js";import*as n from"./b.js";export{q};')).toEqual(['./a.js', './b.js']);
  });

  it('follows static imports through the build, each file once, cycles included', () => {
    expect(initialScripts(dir).map((f) => path.relative(dir, f))).toEqual(counted);
  });

  it('sums the gzip -9 sizes of exactly those files', () => {
    const report = measure(dir);
    expect(report.files.map((f) => f.file)).toEqual(counted);
    const expected = counted.map((f) => gzipSync(Buffer.from(files[f]!), { level: 9 }).length);
    expect(report.files.map((f) => f.gzipBytes)).toEqual(expected);
    expect(report.totalGzipBytes).toBe(expected.reduce((a, b) => a + b, 0));
  });

  it('counts the script written into a public page and the scripts it loads once the page has painted (data-hydrate), with their imports', () => {
    const site = mkdtempSync(path.join(tmpdir(), 'check-size-site-'));
    try {
      mkdirSync(path.join(site, 'assets'));
      const boot = 'import(document.body.dataset.x).then(()=>{});';
      const html = `<script type="application/json" id="app-config">{}</script><script type="module" data-hydrate="/assets/page.js /assets/dep.js">${boot}</script>`;
      writeFileSync(path.join(site, 'landing.html'), html);
      writeFileSync(path.join(site, 'assets/page.js'), 'import"./dep.js";import"./deeper.js";');
      writeFileSync(path.join(site, 'assets/dep.js'), 'export const d=1;');
      writeFileSync(path.join(site, 'assets/deeper.js'), 'export const e=1;');
      expect(initialScriptUrls(html)).toEqual(['/assets/page.js', '/assets/dep.js']);
      expect(inlineScripts(html)).toEqual([boot]);
      const report = measure(site, 'landing.html');
      expect(report.files.map((f) => f.file)).toEqual(['landing.html (its own script)', 'assets/page.js', 'assets/dep.js', 'assets/deeper.js']);
      expect(report.files[0]!.gzipBytes).toBe(gzipSync(Buffer.from(boot), { level: 9 }).length);
    } finally {
      rmSync(site, { recursive: true, force: true });
    }
  });

  it('fails clearly when a statically imported chunk is missing', () => {
    const broken = mkdtempSync(path.join(tmpdir(), 'check-size-broken-'));
    try {
      mkdirSync(path.join(broken, 'assets'));
      writeFileSync(path.join(broken, 'index.html'), '<script type="module" src="/assets/a.js"></script>');
      writeFileSync(path.join(broken, 'assets/a.js'), 'import"./gone.js";');
      expect(() => initialScripts(broken)).toThrow(/assets\/gone\.js is referenced but missing/);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('exits 1 over the budget, 0 within it, 2 without a build', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [script, '--page', 'index.html', ...args], { encoding: 'utf8' });
    const over = run('--dir', dir, '--budget-kb', '0.1');
    expect(over.status).toBe(1);
    expect(over.stderr).toMatch(/FAIL/);
    for (const f of counted) expect(over.stdout).toContain(f);

    const within = run('--dir', dir, '--budget-kb', '100');
    expect(within.status).toBe(0);
    expect(within.stdout).toMatch(/total; budget 100\.0 KB/);

    expect(run('--dir', path.join(dir, 'nowhere')).status).toBe(2);
  });
});
