import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A built client with the public pages' template and a stand-in for the server renderer
 * (dist/prerender), so /insights and article pages are rendered with their data and head as in
 * production. Returns the client directory for createTestApp's clientDir. */
export function siteBuildDir(): string {
  const build = mkdtempSync(path.join(tmpdir(), 'build-'));
  const dir = path.join(build, 'client');
  mkdirSync(dir);
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><head><title>%SITE_NAME% · Intelligent business automation</title>\n<meta name="description" content="Site description" />\n<!--app-config--></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(path.join(dir, 'site.html'), '<!doctype html><html><head><title>%SITE_NAME%</title><!--app-config--></head><body><div id="root"><!--site-page--></div></body></html>');
  mkdirSync(path.join(build, 'prerender'));
  writeFileSync(path.join(build, 'prerender', 'prerender.js'), 'export function renderSitePage() { return "<main></main>"; }');
  return dir;
}
