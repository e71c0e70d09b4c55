import { describe, expect, it } from 'vitest'
import { karneyDistanceM } from '../geodesic.js'
import type { Ring } from '../polygon.js'
import { lineLengthM } from './measure.js'
import { lineLineOverlap, lineOverlap } from './line-overlap.js'
import { PreparedLines } from './prepared.js'
import { K, LAT0, LON0, P, rect, rng, round7 } from './test-fixtures.js'
import type { LineString, MultiLineString } from './types.js'

describe('lineOverlap', () => {
  const erf = rect(0, 0, 20, 30)

  it('measures a line crossing the erf: 20 m inside by hand', () => {
    const o = lineOverlap([[P(-5, 15), P(25, 15)]], erf)!
    expect(o.relationship).toBe('crosses')
    expect(Math.abs(o.overlapM / 20 - 1)).toBeLessThan(0.005)
    expect(o.boundaryM).toBe(0)
    expect(o.geometry).toHaveLength(1)
    expect(lineLengthM(o.geometry)).toBeCloseTo(o.overlapM, 9)
  })

  it('reports a line along an edge as touching, overlapM 0 and boundaryM the edge length, even 1 cm off', () => {
    for (const y of [30, 30.01, 29.99]) {
      const o = lineOverlap([[P(-5, y), P(25, y)]], erf)!
      expect(o.relationship).toBe('touches')
      expect(o.overlapM).toBe(0)
      expect(Math.abs(o.boundaryM / 20 - 1)).toBeLessThan(0.005)
    }
  })

  it('reports a line ending on the boundary from outside as touching with nothing measured, even 1 cm in', () => {
    for (const x of [0, 0.01])
      expect(lineOverlap([[P(-5, 15), P(x, 15)]], erf)).toEqual({
        relationship: 'touches',
        overlapM: 0,
        boundaryM: 0,
        geometry: [],
      })
    // through a corner only
    expect(lineOverlap([[P(-5, 5), P(5, -5)]], erf)).toMatchObject({ relationship: 'touches', overlapM: 0 })
  })

  it('says within for a line wholly inside, also when it runs partly along the boundary', () => {
    expect(lineOverlap([[P(2, 2), P(10, 20)]], erf)).toMatchObject({ relationship: 'within' })
    const o = lineOverlap([[P(0, 10), P(0, 20), P(10, 20)]], erf)!
    expect(o.relationship).toBe('within')
    expect(Math.abs(o.boundaryM / 10 - 1)).toBeLessThan(0.005)
    expect(Math.abs(o.overlapM / 10 - 1)).toBeLessThan(0.005)
    expect(o.geometry).toHaveLength(1)
  })

  it('keeps interior and boundary lengths apart for a line that runs along an edge and then in', () => {
    const o = lineOverlap([[P(-5, 0), P(10, 0), P(10, 20), P(10, 40)]], erf)!
    expect(o.relationship).toBe('crosses')
    expect(Math.abs(o.boundaryM / 10 - 1)).toBeLessThan(0.005)
    expect(Math.abs(o.overlapM / 30 - 1)).toBeLessThan(0.005)
  })

  it('returns null when apart', () => {
    expect(lineOverlap([[P(30, 0), P(30, 30)]], erf)).toBeNull()
  })

  it(
    'agrees with Liang–Barsky clipping (up to the tolerance) on random routes through a block of erven, plain and ' +
      'prepared alike',
    () => {
      const r = rng(29)
      const seen = new Set<string>()
      for (let i = 0; i < 40; i++) {
        // long walks across many erven, and short ones that can stay inside one
        const stepDeg = i % 4 === 1 ? 0.00002 : 0.0004
        const route: LineString = [P(r() * 100, r() * 100)]
        for (let k = 0; k < 30; k++) {
          const [x, y] = route[route.length - 1]
          route.push([round7(x + (r() - 0.5) * stepDeg), round7(y + (r() - 0.5) * stepDeg)])
        }
        // some routes run exactly along the erf lines
        if (i % 5 === 0) route.push(P(0, 30), P(60, 30), P(60, 90))
        const prepared = new PreparedLines([route])
        for (let gx = 0; gx < 100; gx += 20)
          for (let gy = 0; gy < 100; gy += 30) {
            const erf = rect(gx, gy, gx + 20, gy + 30)
            const plain = lineOverlap([route], erf)
            expect(lineOverlap(prepared, erf)).toEqual(plain)
            seen.add(plain?.relationship ?? 'null')
            // interior pieces are cut at exact crossings, so they are inside; what the clip finds
            // inside is interior or lies within the 2 cm tolerance, where it counts as boundary
            const closedLength = liangBarsky(route, erf[0][0])
            expect(plain?.overlapM ?? 0).toBeLessThan(closedLength + 0.05)
            expect(plain?.overlapM ?? 0).toBeGreaterThan(closedLength - (plain?.boundaryM ?? 0) - 0.05)
          }
      }
      expect([...seen].sort()).toEqual(['crosses', 'null', 'touches', 'within'])
    },
  )
})

/** Length in metres of a route inside a closed axis-aligned box ring: an independent clip. */
function liangBarsky(route: LineString, box: Ring): number {
  const [minX, minY] = box[0]
  const [maxX, maxY] = box[2]
  let total = 0
  for (let i = 0; i + 1 < route.length; i++) {
    const [x0, y0] = route[i]
    const [x1, y1] = route[i + 1]
    let lo = 0
    let hi = 1
    const edges: [number, number][] = [
      [-(x1 - x0), x0 - minX],
      [x1 - x0, maxX - x0],
      [-(y1 - y0), y0 - minY],
      [y1 - y0, maxY - y0],
    ]
    let empty = false
    for (const [p, q] of edges) {
      if (p === 0) {
        if (q < 0) empty = true
        continue
      }
      const t = q / p
      if (p < 0) lo = Math.max(lo, t)
      else hi = Math.min(hi, t)
    }
    if (empty || hi <= lo) continue
    total += karneyDistanceM(x0 + (x1 - x0) * lo, y0 + (y1 - y0) * lo, x0 + (x1 - x0) * hi, y0 + (y1 - y0) * hi)
  }
  return total
}

describe('lineLineOverlap', () => {
  it('says crosses with no shared length for an X', () => {
    expect(lineLineOverlap([[P(0, 0), P(10, 10)]], [[P(0, 10), P(10, 0)]])).toEqual({
      relationship: 'crosses',
      overlapM: 0,
    })
  })

  it('measures a collinear overlap: 5 m shared by hand', () => {
    const o = lineLineOverlap([[P(0, 0), P(10, 0)]], [[P(5, 0), P(20, 0)]])!
    expect(o.relationship).toBe('crosses')
    expect(Math.abs(o.overlapM / 5 - 1)).toBeLessThan(0.005)
  })

  it('says touches where they meet only at an end point of either, and null when apart', () => {
    expect(lineLineOverlap([[P(0, 0), P(10, 0)]], [[P(10, 0), P(10, 10)]])).toEqual({
      relationship: 'touches',
      overlapM: 0,
    })
    expect(lineLineOverlap([[P(0, 0), P(10, 0)]], [[P(5, 0), P(5, 10)]])).toEqual({
      relationship: 'touches',
      overlapM: 0,
    })
    expect(lineLineOverlap([[P(0, 0), P(10, 0)]], [[P(10.01, 0), P(20, 0)]])).toEqual({
      relationship: 'touches',
      overlapM: 0,
    })
    expect(lineLineOverlap([[P(0, 0), P(10, 0)]], [[P(0, 1), P(10, 1)]])).toBeNull()
  })

  it('says crosses when an interior vertex of one lies on the other', () => {
    expect(lineLineOverlap([[P(0, 0), P(5, 5), P(10, 0)]], [[P(0, 5), P(10, 5)]])).toMatchObject({
      relationship: 'crosses',
    })
  })

  it('gives the same answers prepared as plain on random lines', () => {
    const r = rng(41)
    const seen = new Set<string>()
    const walk = (n: number): LineString => {
      const out: LineString = [P(r() * 100, r() * 100)]
      for (let k = 0; k < n; k++)
        out.push(P((out[k][0] - LON0) * K.lon + (r() - 0.5) * 40, (out[k][1] - LAT0) * K.lat + (r() - 0.5) * 40))
      return out
    }
    for (let i = 0; i < 200; i++) {
      const a: MultiLineString = [walk(20), walk(5)]
      const b: MultiLineString = i % 4 === 0 ? [a[0].slice(3, 8)] : [walk(3)]
      const plain = lineLineOverlap(a, b)
      expect(lineLineOverlap(new PreparedLines(a), b)).toEqual(plain)
      seen.add(plain?.relationship ?? 'null')
    }
    expect([...seen].sort()).toEqual(['crosses', 'null'])
  })
})
