import react from '@vitejs/plugin-react';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const serverTests = ['server/**/*.test.ts', 'contracts/**/*.test.ts', 'tests/fakes/**/*.test.ts', 'tests/process/**/*.test.ts', 'script/**/*.test.ts'];

// The API suites also run against a real PostgreSQL when script/test provides one.
const postgresUrl = process.env.TEST_POSTGRES_URL;

/**
 * The files that take longest, in seconds on a 2-core machine (the default reporter of a whole
 * run prints each file's; with --reporter=json, each file's end minus its start). They
 * go first, so the workers finish together instead of one of them running a long file alone at
 * the end. A file not listed goes after them, in vitest's own order (its cache of the last run's
 * durations when there is one, else the largest files first); a stale entry only costs time.
 */
const LONG_FILES: Record<string, Record<string, number>> = {
  // From a whole script/test run from a fresh clone on a 2-core machine (2026-11-29, after
  // decision 0106: the PGlite test apps reuse their instance, so the API files are shorter).
  server: {
    'server/modules/notifications/alert-briefs.api.test.ts': 27,
    'server/test/hostile-input.api.test.ts': 27,
    'tests/process/pglite-backup.process.test.ts': 25,
    'tests/process/production-path.process.test.ts': 20,
    'tests/process/slow-clients.process.test.ts': 18,
    'tests/process/interrupted-answers.process.test.ts': 18,
    'server/modules/runtime/runtime-faults.api.test.ts': 15,
    'server/db/pglite-template.test.ts': 14,
    'tests/process/scheduled-articles.process.test.ts': 14,
    'tests/process/shutdown-under-load.process.test.ts': 13,
    'tests/process/server-entry.process.test.ts': 13,
    'server/modules/runtime/runtime.api.test.ts': 12,
    'server/integrations/ai/tools.test.ts': 11,
    'server/modules/backtest/backtest.api.test.ts': 10,
    'server/test/permission-matrix.api.test.ts': 8,
    'server/modules/auth/google.api.test.ts': 8,
    'server/modules/chat/images.api.test.ts': 8,
    'tests/process/mcp.process.test.ts': 7,
    'tests/process/database-outage.process.test.ts': 6,
  },
  'server-postgres': {
    'server/modules/notifications/alert-briefs.api.test.ts': 23,
    'server/modules/runtime/runtime-faults.api.test.ts': 22,
    'server/test/hostile-input.api.test.ts': 14,
    'server/modules/backtest/backtest.api.test.ts': 12,
    'server/modules/auth/google.api.test.ts': 10,
    'server/modules/auth/auth.api.test.ts': 10,
    'server/modules/runtime/runtime.api.test.ts': 9,
    'server/modules/chat/answers.api.test.ts': 5,
    'server/modules/documents/retrieval.api.test.ts': 5,
    'server/modules/articles/article-images.api.test.ts': 5,
  },
};
/** Files run after all others: the container test waits for the images script/test builds in the
 * background (minutes on a fresh machine), so it goes when everything else is done. */
const LAST_FILES = new Set(['tests/process/container.process.test.ts']);
/** Server files first (the long ones of both databases, then the rest), the client's short ones
 * last to fill the gaps. A worker runs the next file of its own project without starting again
 * (isolate: false below), so each project's files stay together. */
const PROJECT_ORDER = ['server', 'server-postgres', 'client'];

class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const vitestOrder = await super.sort(files);
    const seconds = (spec: TestSpecification) => LONG_FILES[spec.project.name]?.[path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join('/')] ?? 0;
    const group = (spec: TestSpecification) => {
      const project = PROJECT_ORDER.indexOf(spec.project.name);
      if (LAST_FILES.has(path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join('/'))) return 2 * PROJECT_ORDER.length;
      // Long files of both server projects, then the rest of each project.
      return seconds(spec) > 0 ? project : PROJECT_ORDER.length + project;
    };
    return vitestOrder
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => group(a.spec) - group(b.spec) || seconds(b.spec) - seconds(a.spec) || a.index - b.index)
      .map(({ spec }) => spec);
  }
}

export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores: one on the 2-core CI machine. Most
    // server files wait more than they compute (fake servers, timers, PostgreSQL in its own
    // process), so one more worker than cores keeps both cores busy. At most 8: each PostgreSQL
    // test app holds up to 15 connections and script/test's cluster allows 200.
    maxWorkers: Math.min(availableParallelism() + 1, 8),
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        plugins: [react()],
        test: {
          name: 'client',
          include: ['client/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          // Each file still runs in a context of its own, but in a worker thread kept for the next
          // file: two thirds less CPU than a new process per file importing React and setting up
          // happy-dom again (the client's files mock modules, so they do not share modules).
          pool: 'vmThreads',
          setupFiles: ['tests/support/broadcast-channel.ts', 'client/test/setup.ts'],
        },
      },
      {
        test: {
          name: 'server',
          include: serverTests,
          environment: 'node',
          // One module graph per worker instead of one per file: importing the app and
          // compiling PGlite's WebAssembly again for each file cost about a third of the run's
          // CPU. Every file builds its own app, database and fakes, and closes them.
          isolate: false,
          globalSetup: ['server/test/global-setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 60_000,
        },
      },
      ...(postgresUrl
        ? [
            {
              test: {
                name: 'server-postgres',
                include: ['server/**/*.api.test.ts'],
                environment: 'node',
                isolate: false,
                globalSetup: ['server/test/global-setup.ts'],
                testTimeout: 20_000,
                hookTimeout: 60_000,
                env: { TEST_DATABASE: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
