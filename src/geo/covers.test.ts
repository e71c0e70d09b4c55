import { describe, expect, it } from 'vitest'
import { coversByArea } from './covers.js'
import { metresPerDegree } from './geodesic.js'
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

describe('coversByArea: within the 2 cm that stored boundaries may differ by', () => {
  // a farm and its west half, whose beacons on the farm's south and north sides the farm's ring
  // does not carry (T-junctions): rounded to 1e-7°, they lie 0.5 mm and 6 mm outside it
  const farm2: MultiPolygon = [
    [
      [
        [27, -26],
        [27.0039753, -25.9996396],
        [27.0036762, -25.9969452],
        [26.9997009, -25.9973057],
        [27, -26],
      ],
    ],
  ]
  const westHalf: MultiPolygon = [
    [
      [
        [27, -26],
        [27.0019877, -25.9998198],
        [27.0016885, -25.9971254],
        [26.9997009, -25.9973057],
        [27, -26],
      ],
    ],
  ]
  const m = metresPerDegree(-34)

  it('counts a portion whose beacons are rounded a few millimetres outside its farm as covered', () => {
    expect(coversPolygon(farm2, westHalf)).toBe(false) // what the exact vertex test said
    expect(coversByArea(farm2, westHalf)).toBe(true)
    expect(coversByArea(westHalf, farm2)).toBe(false)
  })

  it('does the same where the farm is not convex, so the part outside is clipped and measured', () => {
    // the U of the test above, and a portion of its left arm with a beacon 5 mm west of the U's
    // west side; 3 cm west it is not covered
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
    const arm = (out: number): MultiPolygon => [
      [
        [
          [18, -34],
          [18.004, -34],
          [18.004, -33.995],
          [18, -33.995],
          [18 - out / m.lon, -33.9975],
          [18, -34],
        ],
      ],
    ]
    expect(coversByArea(u, arm(0.005))).toBe(true)
    expect(coversByArea(u, arm(0.03))).toBe(false)
  })

  it('does not count a large parcel across a small notch as covered, though the notch is under 2 cm × its perimeter', () => {
    // a square of 0.01° (about 1 km) less a notch of 0.00005° (about 5 m) from its top edge: the
    // whole square leaves the 5 m × 5 m notch outside, no sliver; 2 cm × 4 km would be 80 m²
    const notched: MultiPolygon = [
      [
        [
          [18, -34],
          [18.01, -34],
          [18.01, -33.99],
          [18.00505, -33.99],
          [18.00505, -33.99005],
          [18.005, -33.99005],
          [18.005, -33.99],
          [18, -33.99],
          [18, -34],
        ],
      ],
    ]
    expect(coversByArea(notched, [[box(18, -34, 18.01, -33.99)]])).toBe(false)
    expect(coversByArea(notched, [[box(18, -34, 18.005, -33.99)]])).toBe(true)
  })

  it('still does not count a parcel filling or lying in a hole as covered, rounded off the hole’s ring or not', () => {
    // the erf filling the farm's hole, moved 5 mm east: its west corners lie in the hole 5 mm off its
    // ring, its east corners in the farm 5 mm beyond it; and an erf well inside the hole
    const dx = 0.005 / m.lon
    expect(coversByArea(farm, [[box(18.004 + dx, -33.996, 18.006 + dx, -33.994)]])).toBe(false)
    expect(coversByArea(farm, [[box(18.0045, -33.9955, 18.0055, -33.9945)]])).toBe(false)
  })
})
