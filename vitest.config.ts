import { defineConfig } from 'vitest/config'

/**
 * Two projects run side by side, one file at a time each: the end-to-end files (servers, load,
 * a browser, builds, timed bounds) in one, the unit files beside the code in the other. On CI's
 * 2 cores the unit files then run while the end-to-end ones wait on their servers, instead of
 * after them, and no two end-to-end files load the machine at once (docs/operations.md "Running").
 */
const e2e = ['test/**/*.test.ts', 'bench/*.test.ts']

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
          maxWorkers: 1,
        },
      },
    ],
  },
})
