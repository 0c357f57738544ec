import react from '@vitejs/plugin-react';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const serverTests = ['server/**/*.test.ts', 'contracts/**/*.test.ts', 'tests/fakes/**/*.test.ts', 'tests/process/**/*.test.ts', 'script/**/*.test.ts'];

// The API suites also run against a real PostgreSQL when script/test provides one.
const postgresUrl = process.env.TEST_POSTGRES_URL;

export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores: one on the 2-core CI machine. Most
    // server files wait more than they compute (fake servers, timers, PostgreSQL in its own
    // process), so one more worker than cores keeps both cores busy. At most 8: each PostgreSQL
    // test app holds up to 15 connections and script/test's cluster allows 200.
    maxWorkers: Math.min(availableParallelism() + 1, 8),
    projects: [
      {
        plugins: [react()],
        test: {
          name: 'client',
          include: ['client/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          setupFiles: ['client/test/setup.ts'],
        },
      },
      {
        test: {
          name: 'server',
          include: serverTests,
          environment: 'node',
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
