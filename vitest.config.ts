import { defineConfig } from 'vitest/config'

/**
 * Two projects, run one after the other: the unit files beside the code two at a time, then the
 * end-to-end files (servers, load, a browser, builds, timed bounds) one at a time, so no two of
 * them load the machine at once. On CI's 2 cores vitest's default is one file at a time for all
 * (docs/operations.md "Running").
 */
// bench/lib/paced.test.ts times a paced load: with the end-to-end files, alone
const e2e = ['test/**/*.test.ts', 'bench/*.test.ts', 'bench/lib/paced.test.ts']

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'e2e', include: e2e, maxWorkers: 1 },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'build-index/**/*.test.ts', 'bench/*/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: ['bench/lib/paced.test.ts'],
        },
      },
    ],
  },
})
