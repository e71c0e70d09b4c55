import { describe, expect, it } from 'vitest'
import { labelPoint } from './label-point.js'
import { containsPoint, locatePoint, type MultiPolygon } from './polygon.js'

const ring = (pts: [number, number][]): [number, number][] => [...pts, pts[0]]

describe('labelPoint', () => {
  it('puts a U-shaped erf’s label in the erf, not in the notch where its box centre falls', () => {
    // 30 x 30 m at 34°S, a notch 10 m wide cut from the top down to 5 m above the bottom
    const d = 0.0001
    const u: MultiPolygon = [
      [
        ring([
          [18, -34],
          [18 + 3 * d, -34],
          [18 + 3 * d, -34 + 3 * d],
          [18 + 2 * d, -34 + 3 * d],
          [18 + 2 * d, -34 + 0.5 * d],
          [18 + d, -34 + 0.5 * d],
          [18 + d, -34 + 3 * d],
          [18, -34 + 3 * d],
        ]),
      ],
    ]
    expect(containsPoint(u, 18 + 1.5 * d, -34 + 1.5 * d)).toBe(false)
    const [x, y] = labelPoint(u)
    expect(locatePoint(u, x, y)).toBe(1)
  })

  it('keeps out of a hole that holds the box centre, and out of the parcel lying in it', () => {
    const outer: [number, number][] = ring([
      [28, -26],
      [28.001, -26],
      [28.001, -25.999],
      [28, -25.999],
    ])
    const hole: [number, number][] = ring([
      [28.0002, -25.9998],
      [28.0002, -25.9992],
      [28.0008, -25.9992],
      [28.0008, -25.9998],
    ])
    const farm: MultiPolygon = [[outer, hole]]
    const [x, y] = labelPoint(farm)
    expect(locatePoint(farm, x, y)).toBe(1)
    expect(locatePoint([[hole]], x, y)).toBe(-1)
  })

  it('labels the largest part of a multipolygon', () => {
    const small = ring([
      [20, -30],
      [20.0001, -30],
      [20.0001, -29.9999],
      [20, -29.9999],
    ])
    const large = ring([
      [21, -30],
      [21.01, -30],
      [21.01, -29.99],
      [21, -29.99],
    ])
    const [x, y] = labelPoint([[small], [large]])
    expect(x).toBeGreaterThan(21)
    expect(x).toBeLessThan(21.01)
    expect(y).toBeGreaterThan(-30)
    // the pole of a square is its centre (within the search's precision)
    expect(x).toBeCloseTo(21.005, 4)
    expect(y).toBeCloseTo(-29.995, 4)
  })

  it('gives a vertex of a part with no interior', () => {
    const flat = ring([
      [22, -31],
      [22.001, -31],
      [22.002, -31],
    ])
    expect(labelPoint([[flat]])).toEqual([22, -31])
  })
})
