import { describe, expect, it } from 'vitest'
import type { MultiPolygon } from '../polygon.js'
import { lineOverlap } from './line-overlap.js'
import { polygonOverlap } from './polygon-overlap.js'
import { PreparedLines, PreparedPolygon } from './prepared.js'
import { K, LAT0, LON0, P, rect, rectRing, rng, star } from './test-fixtures.js'
import type { LineString } from './types.js'

describe('nearBox (the overlap pass passes over parcels whose box a geometry does not come near)', () => {
  const boxOf = (mp: MultiPolygon) => {
    const xs = mp.flat(2).map((p) => p[0])
    const ys = mp.flat(2).map((p) => p[1])
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] as const
  }

  it('measures the margin in metres: a box 5 cm off an edge is near within 10 cm, not within 1 cm', () => {
    const area = new PreparedPolygon(rect(0, 0, 100, 10))
    const box = boxOf(rect(100.05, 0, 120, 10))
    expect(area.nearBox(...box, 0.1)).toBe(true)
    expect(area.nearBox(...box, 0.01)).toBe(false)
    const line = new PreparedLines([[P(0, 5), P(100, 5)]])
    expect(line.nearBox(...boxOf(rect(20, 5.05, 40, 20)), 0.1)).toBe(true)
    expect(line.nearBox(...boxOf(rect(20, 5.5, 40, 20)), 0.1)).toBe(false)
  })

  it('says near for a box inside the polygon, or holding it, and not for one in its hole or beside a diagonal edge', () => {
    const area = new PreparedPolygon([[rectRing(-1000, -1000, 1000, 1000), rectRing(100, 100, 200, 200)]])
    expect(area.nearBox(...boxOf(rect(0, 0, 20, 30)), 0.1)).toBe(true)
    expect(area.nearBox(...boxOf(rect(-2000, -2000, 2000, 2000)), 0.1)).toBe(true)
    expect(area.nearBox(...boxOf(rect(120, 120, 140, 150)), 0.1)).toBe(false)
    // the triangle's box covers the erf's box; its hypotenuse passes 7 m from the erf's corner
    const triangle = new PreparedPolygon([[[P(0, 0), P(100, 0), P(0, 100), P(0, 0)]]])
    expect(triangle.nearBox(...boxOf(rect(55, 55, 60, 60)), 0.1)).toBe(false)
    // the plain line goes through a box only its own box overlaps otherwise
    const diagonal = new PreparedLines([[P(0, 0), P(100, 100)]])
    expect(diagonal.nearBox(...boxOf(rect(40, 45, 60, 55)), 0.1)).toBe(true)
    expect(diagonal.nearBox(...boxOf(rect(0, 60, 20, 80)), 0.1)).toBe(false)
  })

  it(
    'never passes over an erf that polygonOverlap or lineOverlap finds meeting (random stars and walks against a ' +
      'block)',
    () => {
      const r = rng(41)
      let met = 0
      let skipped = 0
      for (let i = 0; i < 40; i++) {
        const area = new PreparedPolygon([[star(r, 5 + Math.floor(r() * 80), 100, [4, 15, 60][i % 3])]])
        const route: LineString = [P(r() * 100, r() * 100)]
        for (let k = 0; k < 20; k++)
          route.push(
            P((route[k][0] - LON0) * K.lon + (r() - 0.5) * 40, (route[k][1] - LAT0) * K.lat + (r() - 0.5) * 40),
          )
        const line = new PreparedLines([route])
        for (let gx = 0; gx < 100; gx += 20)
          for (let gy = 0; gy < 100; gy += 30) {
            const erf = rect(gx, gy, gx + 20, gy + 30)
            for (const [prepared, meets] of [
              [area, polygonOverlap(area, erf)],
              [line, lineOverlap(line, erf)],
            ] as const) {
              const near = prepared.nearBox(...boxOf(erf), 0.1)
              if (meets) {
                met++
                expect(near).toBe(true)
              } else if (!near) skipped++
            }
          }
      }
      // both kinds of answer occur, so the test can fail either way
      expect(met).toBeGreaterThan(100)
      expect(skipped).toBeGreaterThan(100)
    },
  )
})
