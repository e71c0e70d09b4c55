import { describe, expect, it } from 'vitest'
import type { Polygon, Ring } from '../polygon.js'
import { fmt, P, rectRing } from './test-fixtures.js'
import type { LineString } from './types.js'
import { lineProblems, polygonProblems } from './validity.js'

describe('lineProblems', () => {
  it('accepts a plain line, also with consecutive duplicate positions', () => {
    expect(lineProblems([P(0, 0), P(10, 0), P(10, 0), P(20, 5)])).toEqual([])
  })

  it('names a bow-tie crossing', () => {
    expect(lineProblems([P(0, 0), P(10, 10), P(10, 0), P(0, 10)])).toEqual([`line crosses itself near ${fmt(P(5, 5))}`])
  })

  it('names a touch, a doubling back, and too few positions', () => {
    expect(lineProblems([P(0, 0), P(10, 0), P(10, 10), P(5, 0)])).toEqual([`line crosses itself near ${fmt(P(5, 0))}`])
    expect(lineProblems([P(0, 0), P(10, 0), P(5, 0)])).toEqual([`line crosses itself near ${fmt(P(10, 0))}`])
    expect(lineProblems([P(0, 0), P(0, 0)])).toEqual(['line has fewer than 2 distinct positions'])
    expect(lineProblems([P(0, 0), [NaN, 1]])).toEqual(['position 1 is not a finite [lon, lat] pair'])
  })

  it('lists three places of a long zig-zag, then says there are more (indexed path beyond 32 segments)', () => {
    const zig: LineString = [P(0, 0)]
    for (let k = 1; k <= 40; k++) zig.push(P(k * 10, k % 2 ? 10 : 0))
    zig.push(P(0, 5))
    const problems = lineProblems(zig)
    expect(problems).toHaveLength(4)
    expect(problems.slice(0, 3).every((m) => m.startsWith('line crosses itself near '))).toBe(true)
    expect(problems[3]).toBe('line crosses itself in further places')
  })
})

describe('polygonProblems', () => {
  it('accepts an erf with a hole', () => {
    expect(polygonProblems([rectRing(0, 0, 30, 30), rectRing(10, 10, 20, 20)])).toEqual([])
  })

  it('names a figure-eight ring', () => {
    expect(polygonProblems([[P(0, 0), P(10, 10), P(10, 0), P(0, 10), P(0, 0)]])).toEqual([
      `ring 0 crosses itself near ${fmt(P(5, 5))}`,
    ])
  })

  it('names a hole outside the shell, one crossing it, and holes crossing each other', () => {
    const shell = rectRing(0, 0, 30, 30)
    expect(polygonProblems([shell, rectRing(40, 0, 50, 10)])).toEqual(['ring 1 (a hole) lies outside the shell'])
    expect(polygonProblems([shell, rectRing(25, 10, 35, 20)])).toEqual([
      `ring 1 (a hole) crosses or touches the shell near ${fmt(P(30, 10))}`,
    ])
    expect(polygonProblems([shell, rectRing(5, 5, 15, 15), rectRing(10, 10, 20, 20)])).toEqual([
      `ring 2 crosses or touches ring 1 near ${fmt(P(15, 10))}`,
    ])
  })

  it('checks 3,000 holes in well under a second, naming the one that touches another and the one outside', () => {
    // before, each hole was checked against every other: 900 holes took 2 s, 4 000 a minute
    const poly: Polygon = [rectRing(-10, -10, 200, 200)]
    for (let k = 0; k < 3000; k++)
      poly.push(rectRing(3 * (k % 60), 3 * Math.floor(k / 60), 3 * (k % 60) + 2, 3 * Math.floor(k / 60) + 2))
    poly.push(rectRing(2, 2, 2.5, 2.5), rectRing(300, 300, 310, 310))
    const t0 = performance.now()
    expect(polygonProblems(poly)).toEqual([
      `ring 3001 crosses or touches ring 1 near ${fmt(P(2, 2))}`,
      'ring 3002 (a hole) lies outside the shell',
    ])
    expect(performance.now() - t0).toBeLessThan(1000)
  })

  it('names open, short, degenerate and non-numeric rings, and an empty polygon', () => {
    expect(polygonProblems([[P(0, 0), P(10, 0), P(10, 10), P(0, 10)]])).toEqual([
      'ring 0 is not closed: its first and last positions differ',
    ])
    expect(polygonProblems([[P(0, 0), P(10, 0), P(0, 0)]])).toEqual(['ring 0 has 3 positions; a ring needs at least 4'])
    expect(polygonProblems([[P(0, 0), P(10, 0), P(10, 0), P(0, 0)]])).toEqual([
      'ring 0 has fewer than 3 distinct positions',
    ])
    expect(polygonProblems([[P(0, 0), P(10, 0), [1, Infinity], P(0, 0)]])).toEqual([
      'ring 0 position 2 is not a finite [lon, lat] pair',
    ])
    expect(polygonProblems([] as Polygon)).toEqual(['polygon has no rings'])
  })

  it('finds a crossing in a large ring (indexed path)', () => {
    const ring: Ring = []
    for (let k = 0; k < 100; k++)
      ring.push(P(100 * Math.cos((2 * Math.PI * k) / 100), 100 * Math.sin((2 * Math.PI * k) / 100)))
    ;[ring[10], ring[60]] = [ring[60], ring[10]]
    ring.push(ring[0])
    const problems = polygonProblems([ring])
    expect(problems.length).toBeGreaterThan(0)
    expect(problems[0]).toMatch(/^ring 0 crosses itself near /)
  })
})
