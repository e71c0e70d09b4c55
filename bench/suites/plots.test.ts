import { describe, expect, it } from 'vitest'
import type { SuiteRecord } from '../lib/suite.js'
import { plotsSuite, type PlotsData } from './plots.js'

const summary = (p50Us: number) => ({ n: 100, p50Us, p99Us: p50Us * 2, meanUs: p50Us, minUs: 1, maxUs: p50Us * 3 })
const row = (op: string, variant: PlotsData['rows'][number]['variant'], p50Us: number, opsPerS: number) => ({
  op,
  variant,
  all: summary(p50Us),
  near: summary(p50Us),
  random: summary(1),
  opsPerS,
  meanResults: op === 'radius' ? 80 : 1,
})

function record(scale: string, radiusP50: number): SuiteRecord<PlotsData> {
  return {
    name: 'plots',
    ranAt: '2026-11-26T19:48:00Z',
    durationS: 24,
    machine: { cpuModel: 'x', cores: 2, ramGiB: 24, node: 'v20', platform: 'linux x64', load1: 1 },
    dataset: { scale, counts: {} as SuiteRecord['dataset']['counts'], sizeBytes: 1 },
    seed: 1,
    quick: false,
    failures: [],
    data: {
      probes: 20000,
      rounds: 3,
      rows: [
        row('reverse', 'service', 12, 40_000),
        row('reverse', 'index only', 9, 50_000),
        row('radius', 'service', radiusP50, 12_500),
        row('radius', 'service, plots as objects', 60, 20_000),
        row('radius', 'index only', 40, 25_000),
      ],
    },
  }
}

describe('plots suite report', () => {
  it('says what a missed radius target is made of, from the untimed pass: the index search and the rest, per plot', () => {
    const text = plotsSuite.render(record('national', 112))
    expect(text).toContain('missed by 12.0 µs')
    // 1e6 / 12,500 = 80 µs per answer; index 1e6 / 25,000 = 40 µs; the rest 40 µs over 80 plots
    expect(text).toContain(
      'What limits it: radius: per answer in the untimed pass, 80.0 µs, of which the index search 40.0 µs',
    )
    expect(text).toContain('40.0 µs, ~500 ns per plot answered (making the plots as objects instead: 10.0 µs')
    expect(text).not.toContain('reverse: per answer')
  })

  it('says nothing of limits when the targets are met, or below national scale', () => {
    expect(plotsSuite.render(record('national', 90))).not.toContain('What limits it')
    expect(plotsSuite.render(record('sample', 112))).not.toContain('What limits it')
  })
})
