import path from 'node:path';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Imports flow one way (DESIGN section 2): contracts import nothing of ours; client and server
// import contracts but never each other; client features do not import each other.
const restrict = (patterns) => ['error', { patterns }];

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
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': restrict([
        { group: ['**/server/**'], message: 'The client never imports server code; share through contracts/.' },
      ]),
    },
  },
  {
    files: ['client/features/**/*.{ts,tsx}'],
    plugins: { local: { rules: { 'feature-boundaries': featureBoundaries } } },
    rules: { 'local/feature-boundaries': 'error' },
  },
  {
    files: ['server/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([{ group: ['**/client/**'], message: 'The server never imports client code.' }]),
    },
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
  {
    files: ['contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['**/server/**', '**/client/**', '**/tests/**'], message: 'contracts/ imports nothing of ours.' },
      ]),
    },
  },
);
