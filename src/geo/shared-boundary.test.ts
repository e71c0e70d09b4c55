import { describe, expect, it } from 'vitest'
import { metresPerDegree } from './geodesic.js'
import type { MultiPolygon, Ring } from './polygon.js'
import { SHARED_EDGE_TOL_M, sharedBoundaryM } from './shared-boundary.js'

const box = (x0: number, y0: number, x1: number, y1: number): Ring => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
  [x0, y0],
]
const m = metresPerDegree(-34)
// an erf 0.001° square at 34° S; its east edge is 0.001° of latitude long
const erf: MultiPolygon = [[box(18, -34, 18.001, -33.999)]]
const edge = 0.001 * m.lat
const eastOf = (dx: number): MultiPolygon => [[box(18.001 + dx, -34, 18.002, -33.999)]]

describe('sharedBoundaryM: edges within 2 cm run together', () => {
  it('gives the whole edge for an exact shared edge', () => {
    expect(sharedBoundaryM(erf, eastOf(0))).toBeCloseTo(edge, 6)
  })

  it('gives the whole edge when the neighbour was surveyed or rounded a centimetre or so away', () => {
    // 1e-7° of longitude (the storage step) and 1.5 cm apart
    expect(sharedBoundaryM(erf, eastOf(1e-7))).toBeCloseTo(edge, 6)
    expect(sharedBoundaryM(erf, eastOf(0.015 / m.lon))).toBeCloseTo(edge, 6)
    // a neighbour whose edge has a vertex of its own halfway, 1 cm off the line
    const kinked: MultiPolygon = [
      [
        [
          [18.001, -34],
          [18.002, -34],
          [18.002, -33.999],
          [18.001, -33.999],
          [18.001 + 0.01 / m.lon, -33.9995],
          [18.001, -34],
        ],
      ],
    ]
    expect(sharedBoundaryM(erf, kinked)).toBeCloseTo(edge, 3)
  })

  it('gives nothing for edges 5 cm apart, or for a shared corner only', () => {
    expect(sharedBoundaryM(erf, eastOf(0.05 / m.lon))).toBe(0)
    expect(sharedBoundaryM(erf, [[box(18.001, -33.999, 18.002, -33.998)]])).toBeLessThan(0.05)
  })

  it('gives the overlap of edges that share part of their length', () => {
    const half: MultiPolygon = [[box(18.001, -33.9995, 18.002, -33.998)]]
    expect(sharedBoundaryM(erf, half)).toBeCloseTo(edge / 2, 3)
  })
})

describe('sharedBoundaryM: the same answer either way round and however each side splits its edges', () => {
  // a farm's side (31.5904, -33.58) to (31.5936126, -33.5797084), 300 m long, and an erf of 60 m
  // along the middle of it; the erf's corners on the side are T-junctions, rounded to 1e-7°
  const farmSide: MultiPolygon = [
    [
      [
        [31.5904, -33.58],
        [31.5936126, -33.5797084],
        [31.5934965, -33.5788121],
        [31.5902839, -33.5791037],
        [31.5904, -33.58],
      ],
    ],
  ]
  const erfOnSide: MultiPolygon = [
    [
      [
        [31.5923276, -33.579825],
        [31.5916851, -33.5798834],
        [31.5917431, -33.5803315],
        [31.5923856, -33.5802732],
        [31.5923276, -33.579825],
      ],
    ],
  ]

  it('gives the erf’s whole side in both orders (the erf first used to give 0)', () => {
    expect(sharedBoundaryM(farmSide, erfOnSide)).toBeCloseTo(59.998, 2)
    expect(sharedBoundaryM(erfOnSide, farmSide)).toBeCloseTo(59.998, 2)
  })

  it('gives the whole edge when one side carries vertices of its own along it, rounded off the line', () => {
    // the erf's east edge in four pieces, its vertices a few millimetres either side of the line
    const k = 0.004 / m.lon
    const split: MultiPolygon = [
      [
        [
          [18, -34],
          [18.001, -34],
          [18.001 + k, -33.99975],
          [18.001 - k, -33.9995],
          [18.001 + k, -33.99925],
          [18.001, -33.999],
          [18, -33.999],
          [18, -34],
        ],
      ],
    ]
    for (const b of [eastOf(0), eastOf(0.015 / m.lon)]) {
      expect(sharedBoundaryM(split, b)).toBeCloseTo(edge, 2)
      expect(sharedBoundaryM(b, split)).toBeCloseTo(edge, 2)
    }
    expect(sharedBoundaryM(split, eastOf(0.05 / m.lon))).toBe(0)
    expect(sharedBoundaryM(eastOf(0.05 / m.lon), split)).toBe(0)
  })

  it('counts a stretch that two edges of the other run along once', () => {
    // two parts of the neighbour along the erf's east edge, overlapping by a fifth of it
    const twoParts: MultiPolygon = [[box(18.001, -34, 18.002, -33.9994)], [box(18.001, -33.9996, 18.0015, -33.999)]]
    expect(sharedBoundaryM(erf, twoParts)).toBeCloseTo(edge, 6)
  })

  it('measures only the centimetre or so where edges meeting near a corner at 40° are within 2 cm', () => {
    // left's edge along 18° E ends at (18, -34), where its south edge comes in from the west;
    // right's starts 1 cm east and 1 cm north of that corner and runs on southwards 40° off it.
    // Over left's last centimetre the two are 1–1.84 cm apart straight across; along right's edge,
    // left's boundary lies across its first 1 cm × (cos 40° − sin 40°) = 1.2 mm (then it lies
    // behind c). A corner contact: centimetres, far below the 0.5 m of touching
    const s = 100
    const c: [number, number] = [18 + 0.01 / m.lon, -34 + 0.01 / m.lat]
    const sin = Math.sin((40 * Math.PI) / 180)
    const cos = Math.cos((40 * Math.PI) / 180)
    const left: MultiPolygon = [
      [
        [
          [18, -34],
          [18, -33.999],
          [17.999, -34],
          [18, -34],
        ],
      ],
    ]
    const right: MultiPolygon = [[[c, [c[0] + (s * sin) / m.lon, c[1] - (s * cos) / m.lat], [18.002, c[1]], c]]]
    expect(sharedBoundaryM(left, right)).toBeCloseTo(0.01, 6)
    expect(sharedBoundaryM(right, left)).toBeCloseTo(0.01 * (cos - sin), 6)
  })
})

// two erven at Cape Town: a's east edge runs 20 m due north from V; b's west edge runs `len`
// metres from `off` metres east of V (negative: west, across a's edge), `deg` degrees east of north
// (negative: west of north); b's north edge is level, so meets a's at right angles if at all
const ct = metresPerDegree(-33.93)
const at = (x: number, y: number): [number, number] => [18.45 + x / ct.lon, -33.93 + y / ct.lat]
function pair(deg: number, len: number, off = 0): [MultiPolygon, MultiPolygon] {
  const r = (deg * Math.PI) / 180
  const [fx, fy] = [off + len * Math.sin(r), len * Math.cos(r)]
  const a: MultiPolygon = [[[at(0, 0), at(0, 20), at(-20, 20), at(-20, 0), at(0, 0)]]]
  const b: MultiPolygon = [[[at(off, 0), at(off + 20, 0), at(off + 20, fy), at(fx, fy), at(off, 0)]]]
  return [a, b]
}
/**
 * How far along a's edge b's lies within 2 cm straight across, worked out on its own: b's offset
 * east of a's edge is off + y tan θ, for y from 0 to len cos θ.
 */
function within2cm(deg: number, len: number, off = 0): number {
  const tan = Math.tan((deg * Math.PI) / 180)
  const [y1, y2] = [(-SHARED_EDGE_TOL_M - off) / tan, (SHARED_EDGE_TOL_M - off) / tan]
  const from = Math.max(0, Math.min(y1, y2))
  const to = Math.min(len * Math.cos((deg * Math.PI) / 180), Math.max(y1, y2))
  return Math.max(0, to - from)
}
/** sharedBoundaryM of the pair, both ways round. */
const both = (deg: number, len: number, off = 0) => {
  const [a, b] = pair(deg, len, off)
  return [sharedBoundaryM(a, b), sharedBoundaryM(b, a)]
}

describe('sharedBoundaryM: boundaries parting at a small angle, wherever their vertices (issue #39 item 4)', () => {
  it('counts the 3.10 m two 16 m edges parting at 0.37° from a shared vertex run within 2 cm', () => {
    // the Cape Town pair: 10.3 cm apart 16 m on, within 2 cm over the first 2 cm / tan 0.37°
    expect(within2cm(0.37, 16)).toBeCloseTo(3.097, 3)
    for (const got of both(0.37, 16)) expect(got).toBeCloseTo(within2cm(0.37, 16), 4)
  })

  it('counts 2 cm / tan θ at 0.1° (11.46 m) and 1° (1.15 m)', () => {
    expect(within2cm(0.1, 16)).toBeCloseTo(11.459, 3)
    expect(within2cm(1, 16)).toBeCloseTo(1.1458, 4)
    for (const deg of [0.1, 1]) for (const got of both(deg, 16)) expect(got).toBeCloseTo(within2cm(deg, 16), 6)
    // parting across a instead, b's edge leaves a's south edge too, at 90° − θ: the last
    // 2 cm × tan θ of that edge has b's within 2 cm of it (along b's edge that stretch is counted already)
    for (const deg of [0.1, 1]) {
      const tan = Math.tan((deg * Math.PI) / 180)
      expect(both(-deg, 16)).toEqual([
        expect.closeTo(within2cm(deg, 16) + SHARED_EDGE_TOL_M * tan, 6),
        expect.closeTo(within2cm(deg, 16), 6),
      ])
    }
  })

  it('gives 0.45 m and 0.55 m, either side of the 0.5 m of touching, parting at 2.55° and 2.08°', () => {
    for (const want of [0.45, 0.55]) {
      const deg = (Math.atan(SHARED_EDGE_TOL_M / want) * 180) / Math.PI
      for (const got of both(deg, 16)) expect(got).toBeCloseTo(want, 5)
    }
  })

  it('counts the whole of b’s edge while it stays within 2 cm, measured along each parcel’s own edge', () => {
    // parting at 0.05° for 16 m: 1.4 cm apart at the end, so all of it; 1 m at 1° (1.7 cm apart at
    // the end): all of it, 1 m along b's edge and the 1 m × cos 1° of a's edge beside it
    const cos = (deg: number) => Math.cos((deg * Math.PI) / 180)
    expect(both(0.05, 16)).toEqual([expect.closeTo(16 * cos(0.05), 6), expect.closeTo(16, 6)])
    expect(both(1, 1)).toEqual([expect.closeTo(cos(1), 6), expect.closeTo(1, 6)])
  })

  it('counts where edges that share no vertex cross or come within 2 cm', () => {
    // b's edge starts 5 cm east of a's and crosses it at 0.37°, 7.7 m north of V: within 2 cm
    // over 4 cm / tan 0.37° = 6.19 m in the middle of both edges
    expect(within2cm(-0.37, 16, 0.05)).toBeCloseTo(6.194, 3)
    for (const got of both(-0.37, 16, 0.05)) expect(got).toBeCloseTo(within2cm(-0.37, 16, 0.05), 4)
    // b's starts 1 cm east of V and parts at 0.37°: within 2 cm for 1 cm / tan 0.37° = 1.55 m
    expect(within2cm(0.37, 16, 0.01)).toBeCloseTo(1.5485, 3)
    for (const got of both(0.37, 16, 0.01)) expect(got).toBeCloseTo(within2cm(0.37, 16, 0.01), 4)
  })

  it('counts a parallel edge 1.9 cm away whole, and one 2.1 cm away not at all', () => {
    for (const got of both(0, 16, 0.019)) expect(got).toBeCloseTo(16, 6)
    for (const got of both(0, 16, 0.021)) expect(got).toBe(0)
    expect(sharedBoundaryM(erf, eastOf(0.019 / m.lon))).toBeCloseTo(edge, 6)
    expect(sharedBoundaryM(erf, eastOf(0.021 / m.lon))).toBe(0)
  })
})
