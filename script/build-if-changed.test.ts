import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILD_INPUTS, BUILD_OUTPUTS, buildIfChanged, inputsHash, STAMP, staleReason } from './build-if-changed.ts';

/** A checkout in miniature: each input the build reads, and files it does not read. */
const CHECKOUT: Record<string, string> = {
  'client/main.tsx': 'render(<App />);',
  'client/features/landing/hero.tsx': 'export const Hero = () => null;',
  'client/public/favicon.svg': '<svg/>',
  'contracts/site.ts': 'export const INSIGHTS_PAGE_SIZE = 12;',
  ...Object.fromEntries(BUILD_INPUTS.files.map((file) => [file, `// ${file}`])),
  'package.json': '{ "type": "module" }',
  'server/index.ts': 'listen();',
  'README.md': '# readme',
  'tests/e2e/landing.spec.ts': 'test();',
};

let root: string;
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
};
/** A build that writes what `npm run build` writes, and counts itself. */
let builds = 0;
const fakeBuild = () => {
  builds++;
  for (const output of BUILD_OUTPUTS) write(output, `built ${builds}`);
  return true;
};
const quiet = () => {};

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'build-if-changed-'));
  for (const [file, text] of Object.entries(CHECKOUT)) write(file, text);
  builds = 0;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('build-if-changed', () => {
  it('builds a fresh checkout, then skips while nothing the build reads changed', () => {
    expect(staleReason(root)).toBe('dist/client/index.html is missing');
    expect(buildIfChanged(root, fakeBuild, quiet)).toBe('built');
    expect(readFileSync(path.join(root, STAMP), 'utf8').trim()).toBe(inputsHash(root));
    expect(buildIfChanged(root, fakeBuild, quiet)).toBe('current');
    expect(builds).toBe(1);

    // Files the build does not read change nothing.
    write('server/index.ts', 'listen(3000);');
    write('README.md', '# changed');
    write('tests/e2e/landing.spec.ts', 'test(2);');
    expect(buildIfChanged(root, fakeBuild, quiet)).toBe('current');
    expect(builds).toBe(1);
  });

  const changes: Array<[string, () => void]> = [
    ['a client file edited', () => write('client/features/landing/hero.tsx', 'export const Hero = () => <h1 />;')],
    ['a client file added', () => write('client/features/landing/new.tsx', 'export {};')],
    ['a client file renamed', () => renameSync(path.join(root, 'client/main.tsx'), path.join(root, 'client/entry.tsx'))],
    ['a client file removed', () => rmSync(path.join(root, 'client/public/favicon.svg'))],
    ['a contract edited', () => write('contracts/site.ts', 'export const INSIGHTS_PAGE_SIZE = 10;')],
    ...BUILD_INPUTS.files.map((file): [string, () => void] => [`${file} edited`, () => write(file, `// ${file}, edited`)]),
    ['an output deleted', () => rmSync(path.join(root, 'dist/client/landing.html'))],
    ['the stamp deleted', () => rmSync(path.join(root, STAMP))],
  ];
  it.each(changes)('rebuilds after %s', (_what, change) => {
    buildIfChanged(root, fakeBuild, quiet);
    change();
    expect(staleReason(root)).not.toBeNull();
    expect(buildIfChanged(root, fakeBuild, quiet)).toBe('built');
    expect(builds).toBe(2);
    expect(buildIfChanged(root, fakeBuild, quiet)).toBe('current');
  });

  it('a failed build leaves no stamp, so the next start builds again', () => {
    buildIfChanged(root, fakeBuild, quiet);
    write('client/main.tsx', 'render(<Broken');
    expect(buildIfChanged(root, () => false, quiet)).toBe('failed');
    expect(existsSync(path.join(root, STAMP))).toBe(false);
    expect(buildIfChanged(root, fakeBuild, quiet)).toBe('built');
  });

  it('records the inputs as they were when the build started', () => {
    const editedDuringBuild = () => {
      write('client/main.tsx', 'render(<Edited />);');
      return fakeBuild();
    };
    expect(buildIfChanged(root, editedDuringBuild, quiet)).toBe('built');
    expect(buildIfChanged(root, fakeBuild, quiet)).toBe('built');
  });
});

describe('the command', () => {
  it('skips an up-to-date build and says so', () => {
    // It hashes its own checkout: run a copy of it inside the miniature one.
    write('script/build-if-changed.ts', readFileSync(fileURLToPath(new URL('./build-if-changed.ts', import.meta.url)), 'utf8'));
    for (const output of BUILD_OUTPUTS) write(output, 'built');
    write(STAMP, inputsHash(root));
    const run = spawnSync(process.execPath, [path.join(root, 'script/build-if-changed.ts')], { cwd: root, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('build: dist/ is up to date (no input changed since the last build)\n');
  });
});
