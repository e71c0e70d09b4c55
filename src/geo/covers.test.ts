import { describe, expect, it } from 'vitest'
import { coversByArea } from './covers.js'
import { containsPoint, type MultiPolygon, type Ring } from './polygon.js'

/** What the neighbours used to ask: every shell vertex of `inner` inside or on `outer`. */
const coversPolygon = (outer: MultiPolygon, inner: MultiPolygon) =>
  inner.every((poly) => poly[0].every(([x, y]) => containsPoint(outer, x, y)))

const box = (x0: number, y0: number, x1: number, y1: number, clockwise = false): Ring => {
  const r: Ring = [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
    [x0, y0],
  ]
  return clockwise ? r.reverse() : r
}

// a farm of 0.01° with a hole of 0.002° in its middle, and the erf that fills the hole exactly
const farm: MultiPolygon = [[box(18, -34, 18.01, -33.99), box(18.004, -33.996, 18.006, -33.994, true)]]
const inHole: MultiPolygon = [[box(18.004, -33.996, 18.006, -33.994)]]
const inside: MultiPolygon = [[box(18.001, -33.999, 18.002, -33.998)]]
const overEdge: MultiPolygon = [[box(18.009, -33.999, 18.011, -33.998)]]

describe('coversByArea', () => {
  it('does not count a parcel lying in the hole of another as covered, though every vertex is on the hole', () => {
    expect(coversPolygon(farm, inHole)).toBe(true) // what the vertex test said
    expect(coversByArea(farm, inHole)).toBe(false)
    expect(coversByArea(inHole, farm)).toBe(false)
  })

  it('counts a parcel inside another, edges shared or not, and itself, as covered', () => {
    expect(coversByArea(farm, inside)).toBe(true)
    const portion: MultiPolygon = [[box(18, -34, 18.005, -33.99)]]
    expect(coversByArea([[box(18, -34, 18.01, -33.99)]], portion)).toBe(true)
    expect(coversByArea(portion, portion)).toBe(true)
  })

  it('does not count a parcel crossing the notch of a concave one, though its vertices are inside', () => {
    // a U: the square [18, 18.01] less a notch [18.004, 18.006] x [-33.997, -33.99] from the top;
    // the erf's four corners are in the U, its top edge runs across the notch
    const u: MultiPolygon = [
      [
        [
          [18, -34],
          [18.01, -34],
          [18.01, -33.99],
          [18.006, -33.99],
          [18.006, -33.997],
          [18.004, -33.997],
          [18.004, -33.99],
          [18, -33.99],
          [18, -34],
        ],
      ],
    ]
    const across: MultiPolygon = [[box(18.001, -33.9985, 18.009, -33.994)]]
    expect(coversPolygon(u, across)).toBe(true)
    expect(coversByArea(u, across)).toBe(false)
    expect(coversByArea(u, [[box(18.001, -33.9995, 18.009, -33.998)]])).toBe(true)
  })

  it('does not count a parcel reaching outside, nor one whose hole leaves part of it uncovered', () => {
    expect(coversByArea(farm, overEdge)).toBe(false)
    // every vertex of this erf is inside the farm, but its middle crosses the farm's hole
    const acrossHole: MultiPolygon = [[box(18.003, -33.9955, 18.007, -33.9945)]]
    expect(coversPolygon(farm, acrossHole)).toBe(true)
    expect(coversByArea(farm, acrossHole)).toBe(false)
  })
})
