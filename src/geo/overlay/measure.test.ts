import geographiclib from 'geographiclib-geodesic'
import { describe, expect, it } from 'vitest'
import { karneyDistanceM, metresPerDegree } from '../geodesic.js'
import type { MultiPolygon, Ring } from '../polygon.js'
import { areaSqm, lineLengthM } from './measure.js'
import { rect, rectRing, rng } from './test-fixtures.js'
import type { LineString } from './types.js'

const { Geodesic } = geographiclib

/** The reference: GeographicLib's ellipsoidal area of geodesic polygons. */
function geographicLibSqm(mp: MultiPolygon): number {
  let total = 0
  for (const poly of mp)
    poly.forEach((ring, i) => {
      const p = Geodesic.WGS84.Polygon(false)
      for (const [x, y] of ring.slice(0, -1)) p.AddPoint(y, x)
      total += (i === 0 ? 1 : -1) * Math.abs(p.Compute(false, true).area ?? 0)
    })
  return total
}

describe('areaSqm', () => {
  it('matches GeographicLib to 1e-5 for a 50 km × 50 km square at -30°', () => {
    const k = metresPerDegree(-30)
    const w = 50_000 / k.lon
    const h = 50_000 / k.lat
    const sq: MultiPolygon = [
      [
        [
          [27, -30],
          [27 + w, -30],
          [27 + w, -30 + h],
          [27, -30 + h],
          [27, -30],
        ],
      ],
    ]
    const exact = geographicLibSqm(sq)
    expect(exact).toBeGreaterThan(2.49e9)
    expect(Math.abs(areaSqm(sq) / exact - 1)).toBeLessThan(1e-5)
  })

  it('matches GeographicLib to 1e-6 for a 1 m² square', () => {
    const sq = rect(0, 0, 1, 1)
    expect(Math.abs(areaSqm(sq) / geographicLibSqm(sq) - 1)).toBeLessThan(1e-6)
  })

  it('hands rings with edges over 10 km to GeographicLib (a thin 150 km triangle, where the sphere is 3e-4 off)', () => {
    const tri: MultiPolygon = [
      [
        [
          [27, -30],
          [28.5, -30],
          [28, -29.97],
          [27, -30],
        ],
      ],
    ]
    expect(Math.abs(areaSqm(tri) / geographicLibSqm(tri) - 1)).toBeLessThan(1e-9)
  })

  it('stays within 1e-6 of GeographicLib on random polygons from 100 m² to 2 500 km², and within its 1e-4 m² below', () => {
    const r = rng(3)
    for (let i = 0; i < 200; i++) {
      const n = 3 + Math.floor(r() * 30)
      const radiusDeg = 10 ** (-5 + r() * 4.4) // ~1 m .. ~28 km
      const cx = 17 + r() * 15
      const cy = -34 + r() * 12
      const ring: Ring = []
      for (let k = 0; k < n; k++) {
        const a = (2 * Math.PI * k) / n
        const rad = radiusDeg * (0.5 + 0.5 * r())
        ring.push([cx + rad * Math.cos(a), cy + rad * Math.sin(a)])
      }
      ring.push(ring[0])
      const mp: MultiPolygon = [[ring]]
      const exact = geographicLibSqm(mp)
      if (exact >= 100) expect(Math.abs(areaSqm(mp) / exact - 1)).toBeLessThan(1e-6)
      else expect(Math.abs(areaSqm(mp) - exact)).toBeLessThan(1e-4)
    }
  })

  it('subtracts holes whatever the winding', () => {
    const shell = rectRing(0, 0, 30, 30)
    const hole = rectRing(10, 10, 20, 20)
    const withHole = areaSqm([[shell, hole]])
    expect(withHole).toBeCloseTo(areaSqm([[shell]]) - areaSqm([[hole]]), 6)
    expect(areaSqm([[[...shell].reverse(), hole]])).toBeCloseTo(withHole, 6)
    expect(withHole).toBeCloseTo(800, 0)
  })
})

describe('lineLengthM', () => {
  it('measures a 200 km line as GeographicLib does, to a millimetre', () => {
    const line: LineString = [
      [26, -29],
      [27.6, -30.3],
    ]
    const exact = karneyDistanceM(26, -29, 27.6, -30.3)
    expect(exact).toBeGreaterThan(200_000)
    expect(exact).toBeLessThan(215_000)
    expect(Math.abs(lineLengthM([line]) - exact)).toBeLessThan(0.001)
  })

  it('sums a 400-vertex route and several parts segment by segment', () => {
    const r = rng(5)
    const route: LineString = [[26, -29]]
    for (let i = 0; i < 399; i++) route.push([route[i][0] + 0.004 + r() * 0.002, route[i][1] - 0.002 + r() * 0.001])
    let exact = 0
    for (let i = 0; i < 399; i++) exact += karneyDistanceM(route[i][0], route[i][1], route[i + 1][0], route[i + 1][1])
    expect(exact).toBeGreaterThan(190_000)
    expect(Math.abs(lineLengthM([route.slice(0, 200), route.slice(199)]) - exact)).toBeLessThan(0.01)
  })
})
