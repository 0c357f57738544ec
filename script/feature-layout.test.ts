import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Every feature folder has the same inside (decision 0021): api/<feature>-api.ts for the server
// calls, components/ for screens, hooks/ for use-* hooks, lib/ for the rest; tests beside their file.
const ROOT = path.resolve(import.meta.dirname, '..');
const FEATURES = path.join(ROOT, 'client/features');
const FOLDERS = ['api', 'components', 'hooks', 'lib'];


const features = readdirSync(FEATURES).filter((name) => statSync(path.join(FEATURES, name)).isDirectory());
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => statSync(path.join(dir, file)).isFile());

/** What is wrong with a file's place inside its feature, or null. */
function misplaced(feature: string, file: string): string | null {
  const [folder = '', ...rest] = file.split(/[\\/]/);
  const name = rest.join('/');
  if (!FOLDERS.includes(folder) || rest.length !== 1) return `must sit directly in one of ${FOLDERS.join(', ')}`;
  if (folder === 'api' && !new RegExp(`^${feature}-api(\\.test)?\\.tsx?$`).test(name)) return `api/ holds only ${feature}-api.ts`;
  if (folder === 'hooks' && !/^use-/.test(name)) return 'hooks/ holds use-* hooks';
  return null;
}

describe('client feature folders', () => {
  it('knows the layout rules', () => {
    expect(misplaced('chat', 'chat-screen.tsx')).toMatch(/directly in one of/);
    expect(misplaced('chat', 'components/deep/x.tsx')).toMatch(/directly in one of/);
    expect(misplaced('articles', 'api/article-queries.ts')).toBe('api/ holds only articles-api.ts');
    expect(misplaced('landing', 'hooks/reveal.ts')).toBe('hooks/ holds use-* hooks');
    expect(misplaced('articles', 'api/articles-api.ts')).toBeNull();
    expect(misplaced('articles', 'components/article-form.test.tsx')).toBeNull();
  });

  it.each(features)('%s follows api/ components/ hooks/ lib/', (feature) => {
    const wrong = filesUnder(path.join(FEATURES, feature))
      .map((file) => [file, misplaced(feature, file)])
      .filter(([, problem]) => problem);
    expect(wrong).toEqual([]);
  });

  // One name per feature: a feature that calls the server (it has api/, or a server module of
  // its name) is named like its module and its contract.
  it.each(features.filter((feature) => existsSync(path.join(FEATURES, feature, 'api')) || existsSync(path.join(ROOT, 'server/modules', feature))))(
    '%s has the server module and contract of the same name',
    (feature) => {
      expect(existsSync(path.join(ROOT, 'server/modules', feature))).toBe(true);
      expect(existsSync(path.join(ROOT, 'contracts', `${feature}.ts`))).toBe(true);
    },
  );
});
