import { describe, expect, it } from 'vitest'
import { httpRoundsSection, type HttpRoundsData } from './http-rounds.js'
import { targetLines } from './http-targets.js'
import { loadResult } from './test-fixtures.js'

describe('targetLines', () => {
  it('holds each row to the targets it can be held to, with the margin of a miss', () => {
    const lines = targetLines([
      { endpoint: '/parcels/at', workers: 1, connections: 50, ratio: 0.3, p50Ms: 5, p99Ms: 9.5 },
      { endpoint: '/parcels/at', workers: 1, connections: 1, ratio: null, p50Ms: 0.08, p99Ms: 0.3 },
      { endpoint: '/parcels/at', workers: 2, connections: 50, ratio: 0.65, p50Ms: 2, p99Ms: 5.9 },
    ])
    expect(lines).toEqual([
      '/parcels/at, 1 worker(s): p99 9.50 ms (target ≤ 6 ms) → missed by 3.50 ms',
      '/parcels/at, 1 connection: p50 80.0 µs (target ≤ 100 µs) → met',
      '/parcels/at, 2 workers: 0.65x hello (target ≥ 0.6x) → met',
      '/parcels/at, 2 worker(s): p99 5.90 ms (target ≤ 6 ms) → met',
    ])
    expect(targetLines([{ endpoint: 'x', workers: 2, connections: 50, ratio: 0.45, p50Ms: 1, p99Ms: 1 }])[0]).toBe(
      'x, 2 workers: 0.45x hello (target ≥ 0.6x) → missed by 0.15x',
    )
    expect(targetLines([{ endpoint: 'x', workers: 1, connections: 1, ratio: null, p50Ms: 0.121, p99Ms: 1 }])).toEqual([
      'x, 1 connection: p50 121 µs (target ≤ 100 µs) → missed by 21.0 µs',
    ])
    expect(
      targetLines([
        { endpoint: 'x', workers: 1, connections: 1, ratio: 0.5, p50Ms: 0.121, p99Ms: 1, helloP50Ms: 0.064 },
      ]),
    ).toEqual([
      'x, 1 connection: p50 121 µs (target ≤ 100 µs) → missed by 21.0 µs; the hello-world on 1 connection: p50 64.0 µs',
    ])
  })
})

describe('httpRoundsSection', () => {
  const data: HttpRoundsData = {
    tool: 'wrk',
    durationS: 10,
    paths: 2000,
    check: { probes: 25, agreed: 25 },
    runs: [
      { target: 'hello', workers: 1, round: 1, result: loadResult(26_000, 50, 1.9, 3) },
      { target: 'hello', workers: 1, round: 1, result: loadResult(16_000, 1, 0.06, 0.1) },
      { target: 'server', workers: 1, round: 1, result: loadResult(7_800, 50, 6, 9) },
      { target: 'server', workers: 1, round: 1, result: loadResult(9_000, 1, 0.11, 0.2) },
      { target: 'hello', workers: 1, round: 2, result: loadResult(28_000, 50, 1.8, 3) },
      { target: 'hello', workers: 1, round: 2, result: loadResult(14_000, 1, 0.07, 0.1) },
      { target: 'server', workers: 1, round: 2, result: loadResult(7_000, 50, 7, 10) },
      { target: 'server', workers: 1, round: 2, result: loadResult(8_000, 1, 0.12, 0.25) },
      { target: 'hello', workers: 2, round: 1, result: loadResult(45_000, 50, 1, 2.5) },
      { target: 'server', workers: 2, round: 1, result: loadResult(15_000, 50, 3, 5) },
    ],
    profiles: [
      {
        endpoint: 'hello',
        reqPerS: 26_000,
        breakdown: {
          busyMs: 10,
          requests: 260_000,
          rows: [{ component: 'socket writes (kernel, loopback)', share: 1, usPerRequest: 25 }],
        },
      },
      {
        endpoint: '/parcels/at',
        reqPerS: 7_000,
        breakdown: {
          busyMs: 10,
          requests: 70_000,
          rows: [
            { component: 'service code (index, queries, answer building)', share: 0.6, usPerRequest: 60 },
            { component: 'socket writes (kernel, loopback)', share: 0.4, usPerRequest: 25 },
          ],
        },
      },
    ],
  }

  it('reports the 1-connection run of one worker, the targets at national scale and the profile', () => {
    const md = httpRoundsSection(data, {
      endpoint: '/parcels/at',
      points: 'points',
      agreement: 'identical',
      targets: true,
      scale: 'national',
    }).join('\n')
    // 50 connections, 1 worker: median of 7,800 and 7,000 over the hello median of 26,000 and 28,000
    expect(md).toContain('| 1 | 50 | 27,000 | 1.900 | 7,400 | 7,800, 7,000 | 0.27x |')
    // one connection: next to the floor's own 1-connection runs (median 15,000 req/s; p50 of the run nearest it)
    expect(md).toMatch(/\| 1 \| 1 \| 15,000 \| 0\.0[67]0 \| 8,500 \| 9,000, 8,000 \| 0\.57x \|/)
    expect(md).toContain('| 2 | 50 | 45,000 | 1.000 | 15,000 | 15,000 | 0.33x | 3.000 | 5.000 | 0 |')
    expect(md).toContain('Issue 7 targets:')
    expect(md).toContain('- /parcels/at, 2 workers: 0.33x hello (target ≥ 0.6x) → missed by 0.27x')
    expect(md).toMatch(
      /- \/parcels\/at, 1 connection: p50 1[12]0 µs \(target ≤ 100 µs\) → missed by [12]0\.0 µs; the hello-world on 1 connection: p50 [67]0\.0 µs/,
    )
    expect(md).toContain('| component | hello-world µs | /parcels/at µs |')
    // the endpoint's largest component first, then the total
    expect(md.indexOf('| service code')).toBeLessThan(md.indexOf('| socket writes'))
    expect(md).toContain('| **total CPU per request** | **25.0** | **85.0** |')
  })

  it('leaves out the target lines where they do not apply, and says when the scale is not national', () => {
    expect(
      httpRoundsSection(data, {
        endpoint: '/encumbrances/parcel/{lpi}',
        points: 'p',
        agreement: 'a',
        targets: false,
        scale: 'national',
      }).join('\n'),
    ).not.toContain('Issue 7 targets')
    expect(
      httpRoundsSection(data, {
        endpoint: '/parcels/at',
        points: 'p',
        agreement: 'a',
        targets: true,
        scale: 'tiny',
      }).join('\n'),
    ).toContain('Issue 7 targets (they apply at national scale; shown for reference):')
  })

  it('reads records from before the 1-connection runs and profiles', () => {
    const old: HttpRoundsData = {
      ...data,
      runs: data.runs.filter((r) => r.result.connections === 50),
      profiles: undefined,
    }
    // between the two: the endpoint on 1 connection, the floor not
    const mid = httpRoundsSection(
      { ...data, runs: data.runs.filter((r) => r.target === 'server' || r.result.connections === 50) },
      { endpoint: '/parcels/at', points: 'p', agreement: 'a', targets: true, scale: 'national' },
    ).join('\n')
    expect(mid).toContain('| 1 | 1 |  |  | 8,500 | 9,000, 8,000 |  |')
    expect(mid).not.toContain('the hello-world on 1 connection')
    const md = httpRoundsSection(old, {
      endpoint: '/parcels/at',
      points: 'p',
      agreement: 'a',
      targets: true,
      scale: 'national',
    }).join('\n')
    expect(md).not.toContain('| 1 | 1 |')
    expect(md).not.toContain('What limits it')
    expect(md).not.toContain('1 connection: p50')
  })
})
