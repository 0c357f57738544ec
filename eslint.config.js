import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import ts from 'typescript';

const ROOT = import.meta.dirname;
/** A path as the tables below name it: relative to the repository, with forward slashes. */
const fromRoot = (file) => path.relative(ROOT, file).split(path.sep).join('/');

// Imports flow one way (DESIGN section 2). The first row whose prefix the importing file starts
// with lists the only folders of ours it may import; imports are resolved first, so `../server`,
// `./../server` and `../contracts/../server` are all the server. Files in no row (tests/,
// bench/, script/, the other tools' configs) may import anything.
const LAYERS = [
  ['contracts/', ['contracts/']],
  ['client/', ['client/', 'contracts/']],
  ['vite.config.ts', ['client/', 'contracts/']],
  ['server/integrations/', ['server/integrations/', 'server/lib/', 'server/config.ts', 'contracts/']],
  ['server/lib/', ['server/lib/', 'server/config.ts', 'contracts/']],
  ['server/db/', ['server/db/', 'server/lib/', 'server/config.ts', 'contracts/']],
  ['server/modules/', ['server/modules/', 'server/integrations/', 'server/db/', 'server/lib/', 'server/config.ts', 'contracts/']],
  ['server/', ['server/', 'contracts/']],
];

/** The other server modules a module may import; any module not listed imports none. */
const MODULE_USES = {
  auth: ['users'],
  // The worker process assembles the channels service too, to deliver its jobs, and publishes its
  // runs to the web processes' consoles (docs/decisions/0042).
  // It assembles the alert brief writer of the chat module too (docs/decisions/0044), and evaluates
  // the owners' conditions with the conditions engine (issue 30).
  runtime: ['agents', 'channels', 'chat', 'conditions', 'events', 'market', 'notifications'],
  // Open streams end with their session.
  events: ['auth'],
  backtest: ['agents', 'conditions', 'market', 'notifications', 'runtime'],
  // The assistants' tools read with the owner's own services (docs/decisions/0076), the role from users.
  'agent-tools': ['agents', 'backtest', 'conditions', 'market', 'notifications', 'proposals', 'runtime', 'users'],
  // Applying a proposal goes through the agents service's own create and update.
  proposals: ['agents'],
  // "Use my agents": the chat's tool loop calls the assistants' tools (docs/decisions/0076); an
  // answer's sources come from the documents' retrieval and the web search (issue 32).
  chat: ['agent-tools', 'documents', 'web-search'],
  // The conditions engine reads the indicators (issue 30).
  conditions: ['market'],
  // "Describe it" spends the chat's budget with the chat's assistants (docs/decisions/0075).
  'conditions-draft': ['chat'],
  // The MCP server authenticates access tokens and serves the agent tools (docs/decisions/0078).
  mcp: ['auth', 'agent-tools'],
  // Embedding calls spend the chat's budget (docs/decisions/0081).
  documents: ['chat'],
  // Passkey accounts start sessions as every sign-in does and make their users (docs/decisions/0092).
  passkeys: ['auth', 'users'],
  // Scheduled articles are published by a job on the job queue (docs/decisions/0098); article
  // images are checked and decoded by the chat images' byte checks and decoders (docs/decisions/0099).
  articles: ['runtime', 'chat'],
};

/** The only packages a layer may import; layers not listed may import any. Contracts are read by
 * the browser and the server alike, so they lean on zod alone. */
const PACKAGES = { 'contracts/': ['zod'] };

/** Tests and their helpers may also import test support and fakes, and on the server any module;
 * production code never imports them. */
const isTestCode = (file) => /\.(test|spec)\.tsx?$/.test(file) || file.startsWith('server/test/');
const TEST_SUPPORT = ['tests/', 'server/test/'];

const moduleOf = (file) => /^server\/modules\/([^/]+)\//.exec(file)?.[1];
const within = (file, folders) => folders.some((folder) => file === folder || (folder.endsWith('/') && file.startsWith(folder)));

/** Reports a relative import (or re-export, or dynamic import) that LAYERS or MODULE_USES forbid. */
const layers = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const file = fromRoot(context.filename);
    const row = LAYERS.find(([prefix]) => file.startsWith(prefix));
    if (!row) return {};
    const [layer, folders] = row;
    const test = isTestCode(file);
    const allowed = test ? [...(file.startsWith('server/') ? ['server/', 'contracts/'] : folders), ...TEST_SUPPORT] : folders;
    const own = moduleOf(file);
    const packages = test ? undefined : PACKAGES[layer];
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string') return;
      if (!source.startsWith('.')) {
        const name = source.startsWith('@') ? source.split('/').slice(0, 2).join('/') : source.split('/')[0];
        if (packages && !packages.includes(name)) {
          context.report({ node, message: `${layer} may import only the packages ${packages.join(', ')}, not '${source}' (DESIGN section 2).` });
        }
        return;
      }
      const target = fromRoot(path.resolve(path.dirname(context.filename), source));
      if (!within(target, allowed) || (!test && within(target, TEST_SUPPORT))) {
        context.report({ node, message: `${layer} may import only ${allowed.join(', ')} of ours, not '${target}' (imports flow one way: DESIGN section 2).` });
        return;
      }
      const other = moduleOf(target);
      if (!test && own && other && other !== own && !(MODULE_USES[own] ?? []).includes(other)) {
        const uses = MODULE_USES[own] ?? [];
        context.report({
          node,
          message: `Module '${own}' imports module '${other}', but may import ${uses.length ? uses.join(', ') : 'no other module'} (MODULE_USES in eslint.config.js).`,
        });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

const featureOf = (file) => /client\/features\/([^/]+)\//.exec(file.split(path.sep).join('/'))?.[1];

/** Resolves each relative import and reports one that lands in another feature's folder. */
const featureBoundaries = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const own = featureOf(context.filename);
    return {
      ImportDeclaration(node) {
        const source = node.source.value;
        if (!own || typeof source !== 'string' || !source.startsWith('.')) return;
        const target = featureOf(path.resolve(path.dirname(context.filename), source) + '/');
        if (target && target !== own) {
          context.report({ node, message: `Feature '${own}' imports feature '${target}'; move shared code to client/lib or client/components.` });
        }
      },
    };
  },
};

/** The file a relative import names: as written (our imports name their extension), else with one. */
function resolveImport(fromFile, source) {
  const base = path.resolve(path.dirname(fromFile), source);
  return [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate) && statSync(candidate).isFile()) ?? null;
}

/** Each file's relative imports (type-only, re-exports and import() too), read from disk once per
 * version of the file: one lint run reads each file once whatever the number that reach it. */
const importsCache = new Map();
function importsOf(file) {
  const version = statSync(file).mtimeMs;
  const cached = importsCache.get(file);
  if (cached?.version === version) return cached.targets;
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = importedFiles.filter(({ fileName }) => fileName.startsWith('.')).flatMap(({ fileName }) => resolveImport(file, fileName) ?? []);
  importsCache.set(file, { version, targets });
  return targets;
}

/**
 * Reports an import that leads back to its own file through our imports (a circle: two files
 * that each need the other, even for types only, belong apart from what they share). One walk
 * per file over what its imports reach, each file visited once.
 */
const noCycle = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const self = context.filename;
    const visited = new Set();
    /** The chain of files from `start` back to `self`, or null when `start` does not lead back. */
    const pathBack = (start) => {
      const cameFrom = new Map([[start, null]]);
      const stack = [start];
      while (stack.length > 0) {
        const file = stack.pop();
        if (file === self) {
          const chain = [];
          for (let at = file; at !== null; at = cameFrom.get(at)) chain.unshift(at);
          return chain;
        }
        if (visited.has(file)) continue;
        visited.add(file);
        for (const next of importsOf(file)) {
          if (next === self || !visited.has(next)) {
            if (!cameFrom.has(next)) cameFrom.set(next, file);
            stack.push(next);
          }
        }
      }
      return null;
    };
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = resolveImport(self, source);
      if (!target || target === self) return;
      const chain = pathBack(target);
      if (chain) {
        context.report({
          node,
          message: `Import circle: ${[self, ...chain].map(fromRoot).join(' -> ')}. Move what they share to a file each can import (imports flow one way).`,
        });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

const local = { rules: { layers, 'feature-boundaries': featureBoundaries, 'no-cycle': noCycle } };

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', '.tmp/**', 'data/**', 'test-results/**', 'playwright-report/**', 'server/db/migrations/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
    },
  },
  {
    files: ['client/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ['client/features/**/*.{ts,tsx}'],
    plugins: { local },
    rules: { 'local/feature-boundaries': 'error' },
  },
  {
    files: ['**/*.{js,ts,tsx}'],
    plugins: { local },
    rules: { 'local/layers': 'error', 'local/no-cycle': 'error' },
  },
  {
    // Every browser journey fails on uncaught page errors and CSP violations only through the
    // fixtures (tests/e2e/fixtures.ts): a spec must take `test` from there and open extra pages
    // with its openPage fixture, never with a context nothing watches.
    files: ['tests/e2e/**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='@playwright/test'] > ImportSpecifier[imported.name='test']",
          message: "Import test from './fixtures.ts': it fails the test on page errors and CSP violations.",
        },
        {
          selector: "CallExpression[callee.object.name='browser'][callee.property.name=/^new(Page|Context)$/]",
          message: 'Use the openPage fixture: a context made here is not watched for page errors and CSP violations.',
        },
      ],
    },
  },
);
