import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Three projects in two groups, run one group after the other (docs/operations.md "Running"):
 *
 * 1. `unit` (the files beside the code) and `browser` (the map page in Chromium) together, three
 *    files at a time. The browser file is started first: it takes two to three minutes, most of
 *    them Chromium drawing in software while the unit files use the rest of the 2 cores, so the
 *    group lasts about as long as the unit files alone.
 * 2. `e2e` (servers, load, builds, timed bounds), one file at a time, so no two of them load the
 *    machine at once.
 *
 * vitest puts projects with one worker into a group of their own, and projects with the same
 * `maxWorkers` and group order into one group sharing that many workers.
 */
const browser = ['test/map.browser.test.ts']
// bench/lib/paced.test.ts times a paced load: with the end-to-end files, alone
const e2e = ['test/**/*.test.ts', 'bench/*.test.ts', 'bench/lib/paced.test.ts']

/** vitest's order (slowest known first, else largest), with the browser file always first. */
class BrowserFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const first = (f: TestSpecification) => (f.project.name === 'browser' ? 0 : 1)
    return sorted.sort((a, b) => first(a) - first(b))
  }
}

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 3,
    sequence: { sequencer: BrowserFirst },
    projects: [
      {
        extends: true,
        test: { name: 'e2e', include: e2e, exclude: browser, maxWorkers: 1 },
      },
      {
        extends: true,
        test: { name: 'browser', include: browser },
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
