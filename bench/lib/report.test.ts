import { describe, expect, it } from 'vitest'
import { cpuCheckMs, cpuCheckWork } from './machine.js'
import { renderMarkdown } from './report.js'
import type { Suite, SuiteRecord } from './suite.js'

const suite: Suite<{ n: number }> = {
  name: 'demo',
  title: 'Demo',
  summary: 'a demo suite',
  run: async () => ({ n: 1 }),
  render: (r: SuiteRecord<{ n: number }>) => `n = ${r.data.n}`,
} as unknown as Suite<{ n: number }>
const record = (staleCode?: string): SuiteRecord<{ n: number }> => ({
  name: 'demo',
  ranAt: '2026-11-25T16:00:00.000Z',
  durationS: 1,
  machine: { cpuModel: 'cpu', cores: 2, ramGiB: 23.5, node: 'v20', platform: 'linux x64', load1: 0.5 },
  dataset: {
    scale: 'national',
    counts: { botswana: 1, south_africa: 2 },
    sizeBytes: 2 ** 20,
    ...(staleCode ? { staleCode } : {}),
  },
  seed: 1,
  quick: false,
  failures: [],
  data: { n: 1 },
})

describe('renderMarkdown', () => {
  it('marks a section measured on a dataset made by older code, and only such a section', () => {
    const stale = renderMarkdown(
      { format: 1, suites: { demo: record('build-index, src/data or src/geo changed since the dataset was built') } },
      [suite],
      [],
    )
    expect(stale).toContain(
      "**Dataset made by older code than this run's:** build-index, src/data or src/geo changed since the dataset " +
        'was built (`--rebuild` to refresh).',
    )
    expect(stale).toContain('n = 1')
    const fresh = renderMarkdown({ format: 1, suites: { demo: record() } }, [suite], [])
    expect(fresh).not.toContain('older code')
    expect(fresh).toContain('Dataset **national**')
  })

  it("gives each section's CPU check at its start and end, and leaves it out of records made before it", () => {
    const checked = { ...record(), machine: { ...record().machine, cpuCheckMs: 18.4 }, cpuCheckEndMs: 31.07 }
    expect(renderMarkdown({ format: 1, suites: { demo: checked } }, [suite], [])).toContain(
      'linux x64, load 0.5 at start, CPU check 18.4 ms at start and 31.07 ms at end. ',
    )
    expect(renderMarkdown({ format: 1, suites: { demo: record() } }, [suite], [])).toContain(
      'linux x64, load 0.5 at start. ',
    )
  })
})

describe('cpuCheckMs', () => {
  it('times the same work every time: a fixed checksum, a positive median', () => {
    // the seeded numbers, sorted and walked: any change to the workload changes this sum
    expect(cpuCheckWork()).toBe(cpuCheckWork())
    expect(cpuCheckWork()).toBeCloseTo(23767832.114259012, 6)
    const ms = cpuCheckMs()
    expect(ms).toBeGreaterThan(0)
    expect(ms).toBeLessThan(5000)
  })
})
