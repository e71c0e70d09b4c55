import { intersection } from 'polyclip-ts'
import { describe, expect, it } from 'vitest'
import type { MultiPolygon } from '../polygon.js'
import { areaSqm } from './measure.js'
import { polygonOverlap } from './polygon-overlap.js'
import { PreparedPolygon } from './prepared.js'
import { K, LAT0, LON0, rect, rectRing, rng, round7, star } from './test-fixtures.js'

/** Extent in local metres of a multipolygon (for checking clipped geometry by hand). */
function extentM(mp: MultiPolygon) {
  const xs = mp.flat(2).map(([x]) => (x - LON0) * K.lon)
  const ys = mp.flat(2).map(([, y]) => (y - LAT0) * K.lat)
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]
}

describe('polygonOverlap', () => {
  // two adjacent erven of 20 m × 30 m sharing the edge x = 20
  const erfA = rect(0, 0, 20, 30)
  const erfB = rect(20, 0, 40, 30)

  it('splits a 10 m strip across two adjacent erven into 200 m² each (a third of each erf)', () => {
    const strip = rect(-5, 10, 45, 20)
    for (const erf of [erfA, erfB]) {
      const o = polygonOverlap(strip, erf)!
      expect(o.relationship).toBe('crosses')
      // 20 m × 10 m by hand; the 1e-7° grid moves edges by up to 0.6 cm
      expect(Math.abs(o.overlapSqm / 200 - 1)).toBeLessThan(0.005)
      expect(Math.abs((100 * o.overlapSqm) / areaSqm(erf) - 100 / 3)).toBeLessThan(100 / 3 / 200)
      expect(Math.abs(areaSqm(o.geometry) - o.overlapSqm)).toBeLessThan(1e-9)
      const [x0, y0, x1, y1] = extentM(o.geometry)
      expect([x1 - x0, y0, y1]).toEqual([expect.closeTo(20, 1), expect.closeTo(10, 1), expect.closeTo(20, 1)])
    }
  })

  it('reports a strip sharing one edge with an erf as touching, overlap 0, even 1 cm off', () => {
    for (const y of [30, 30 - 0.01, 30 + 0.01]) {
      expect(polygonOverlap(rect(-5, y, 45, y + 10), erfA)).toEqual({
        relationship: 'touches',
        overlapSqm: 0,
        geometry: [],
      })
    }
    // the neighbouring erf itself touches too
    expect(polygonOverlap(erfB, erfA)).toEqual({ relationship: 'touches', overlapSqm: 0, geometry: [] })
  })

  it('counts a strip reaching 5 cm into the erf (beyond the 2 cm tolerance) as crossing', () => {
    const strip = rect(-5, 29.95, 45, 40)
    const o = polygonOverlap(strip, erfA)!
    expect(o.relationship).toBe('crosses')
    // 20 m × the depth after rounding to the 1e-7° grid (5.5 cm)
    const depthM = (erfA[0][0][2][1] - strip[0][0][0][1]) * K.lat
    expect(depthM).toBeGreaterThan(2 * 0.02)
    expect(Math.abs(o.overlapSqm / (20 * depthM) - 1)).toBeLessThan(0.005)
  })

  it('says contains for an encumbrance equal to the erf, also when its vertices are 1 cm off', () => {
    const same = polygonOverlap(erfA, erfA)!
    expect(same.relationship).toBe('contains')
    expect(same.overlapSqm).toBeCloseTo(areaSqm(erfA), 9)
    expect(same.geometry).toBe(erfA)
    const noisy: MultiPolygon = [
      [erfA[0][0].map(([x, y], i) => [round7(x + (i % 2 ? 1e-7 : -1e-7)), round7(y + 1e-7)] as [number, number])],
    ]
    noisy[0][0][4] = noisy[0][0][0]
    expect(polygonOverlap(noisy, erfA)!.relationship).toBe('contains')
    expect(polygonOverlap(rect(-5, -5, 25, 35), erfA)).toMatchObject({
      relationship: 'contains',
      overlapSqm: areaSqm(erfA),
    })
  })

  it('says within for an encumbrance inside the erf, and for one sharing part of its boundary', () => {
    const inside = rect(5, 5, 10, 15)
    expect(polygonOverlap(inside, erfA)).toMatchObject({
      relationship: 'within',
      overlapSqm: areaSqm(inside),
      geometry: inside,
    })
    expect(Math.abs(areaSqm(inside) / 50 - 1)).toBeLessThan(0.005)
    const westHalf = rect(0, 0, 10, 30)
    expect(polygonOverlap(westHalf, erfA)).toMatchObject({ relationship: 'within', overlapSqm: areaSqm(westHalf) })
  })

  it('returns null when apart, and for an erf sitting in a hole of the encumbrance', () => {
    expect(polygonOverlap(rect(50, 0, 60, 10), erfA)).toBeNull()
    const ring = [[rectRing(-10, -10, 50, 50), rectRing(-5, -5, 25, 35)]]
    expect(polygonOverlap(ring, erfA)).toBeNull()
    expect(polygonOverlap(ring, rect(-8, -8, -6, -6))).toMatchObject({ relationship: 'contains' })
  })

  it('touches at a single shared corner', () => {
    expect(polygonOverlap(rect(20, 30, 30, 40), erfA)).toEqual({ relationship: 'touches', overlapSqm: 0, geometry: [] })
  })

  it('finds overlapping interiors where boundaries only coincide (multipolygons sharing a part)', () => {
    const shared = rectRing(0, 0, 10, 10)
    const a: MultiPolygon = [[shared], [rectRing(100, 0, 110, 10)]]
    const b: MultiPolygon = [[shared], [rectRing(0, 100, 10, 110)]]
    const o = polygonOverlap(a, b)!
    expect(o.relationship).toBe('crosses')
    expect(o.overlapSqm).toBeCloseTo(areaSqm([[shared]]), 6)
  })

  it('agrees with polyclip on random star polygons against erven, plain and prepared alike', () => {
    const r = rng(17)
    const seen = new Set<string>()
    for (let i = 0; i < 60; i++) {
      // beyond 64 edges the subject is cut to a box first
      const a: MultiPolygon = [[star(r, 5 + Math.floor(r() * 120), 60, [4, 15, 60][i % 3])]]
      const prepared = new PreparedPolygon(a)
      for (let gx = 0; gx < 60; gx += 20)
        for (let gy = 0; gy < 60; gy += 30) {
          const erf = rect(gx, gy, gx + 20, gy + 30)
          const plain = polygonOverlap(a, erf)
          expect(polygonOverlap(prepared, erf)).toEqual(plain)
          const reference = areaSqm(intersection(a, erf))
          seen.add(plain?.relationship ?? 'null')
          if (!plain) expect(reference).toBe(0)
          else if (plain.relationship === 'touches') expect(reference).toBeLessThan(0.05)
          else expect(Math.abs(plain.overlapSqm - reference)).toBeLessThan(1e-6 * reference + 0.01)
        }
    }
    expect([...seen].sort()).toEqual(['contains', 'crosses', 'null', 'touches', 'within'])
  })

  it('answers for a large prepared area with a hole: inside, in the hole, across its edge', () => {
    const area: MultiPolygon = [[rectRing(-1000, -1000, 1000, 1000), rectRing(100, 100, 200, 200)]]
    const prepared = new PreparedPolygon(area)
    expect(prepared.areaSqm).toBeCloseTo(areaSqm(area), 6)
    expect(polygonOverlap(prepared, rect(0, 0, 20, 30))).toMatchObject({ relationship: 'contains' })
    expect(polygonOverlap(prepared, rect(120, 120, 140, 150))).toBeNull()
    const straddling = polygonOverlap(prepared, rect(190, 150, 210, 180))!
    expect(straddling.relationship).toBe('crosses')
    expect(Math.abs(straddling.overlapSqm / 300 - 1)).toBeLessThan(0.005)
  })
})
