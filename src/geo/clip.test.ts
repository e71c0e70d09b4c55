import { describe, expect, it } from 'vitest'
import { intersection as exactIntersection } from 'polyclip-ts'
import { fallbacks, intersect, unite, withFallback } from './clip.js'
import type { MultiPolygon } from './polygon.js'
import { areaSqm } from './overlay/measure.js'

const square = (x: number, y: number, s: number): MultiPolygon => [
  [
    [
      [x, y],
      [x + s, y],
      [x + s, y + s],
      [x, y + s],
      [x, y],
    ],
  ],
]
// an L-shaped (non-convex) farm portion and a bent strip through it
const L: MultiPolygon = [
  [
    [
      [28, -26],
      [28.02, -26],
      [28.02, -25.99],
      [28.01, -25.99],
      [28.01, -25.98],
      [28, -25.98],
      [28, -26],
    ],
  ],
]
const strip: MultiPolygon = [
  [
    [
      [27.99, -25.995],
      [28.015, -25.995],
      [28.015, -25.97],
      [28.014, -25.97],
      [28.014, -25.994],
      [27.99, -25.994],
      [27.99, -25.995],
    ],
  ],
]

describe('clip', () => {
  it('intersects and unites like polyclip-ts (areas to the square centimetre)', () => {
    const got = intersect(L, strip)
    const want = exactIntersection(L, strip) as MultiPolygon
    expect(got.length).toBe(want.length)
    expect(areaSqm(got)).toBeCloseTo(areaSqm(want), 4)
    expect(areaSqm(got)).toBeGreaterThan(0)
    // two unit squares side by side unite into one polygon of twice the area
    const u = unite(square(28, -26, 0.01), square(28.01, -26, 0.01))
    expect(u).toHaveLength(1)
    expect(Math.abs(areaSqm(u) - 2 * areaSqm(square(28, -26, 0.01)))).toBeLessThan(0.01)
    expect(intersect(square(28, -26, 0.01), square(29, -26, 0.01))).toEqual([])
  })

  it('hands an operation the fast library cannot complete to the exact one, and counts it', () => {
    const before = fallbacks()
    const op = withFallback(
      () => {
        throw new Error('Unable to complete output ring')
      },
      (a, b) => exactIntersection(a as MultiPolygon, b as MultiPolygon) as MultiPolygon,
    )
    expect(areaSqm(op(L, strip))).toBeCloseTo(areaSqm(exactIntersection(L, strip) as MultiPolygon), 6)
    expect(fallbacks()).toBe(before + 1)
  })
})
