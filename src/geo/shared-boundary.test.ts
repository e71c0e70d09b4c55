import { describe, expect, it } from 'vitest'
import { metresPerDegree } from './geodesic.js'
import type { MultiPolygon, Ring } from './polygon.js'
import { sharedBoundaryM } from './shared-boundary.js'

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

  it('gives nothing for edges that only meet near a corner, at an angle, though within 2 cm there', () => {
    // left's edge along 18° E ends at (18, -34); right's starts 1 cm east and 1 cm north of that
    // corner and runs on southwards 40° off it: over left's last centimetre the two are 1–1.9 cm
    // apart, which is a corner contact, not a shared stretch
    const s = 100
    const c: [number, number] = [18 + 0.01 / m.lon, -34 + 0.01 / m.lat]
    const sin = Math.sin((40 * Math.PI) / 180)
    const cos = Math.cos((40 * Math.PI) / 180)
    const left: MultiPolygon = [
      [
        [
          [18, -34],
          [18, -33.999],
          [17.9995, -33.9995],
          [18, -34],
        ],
      ],
    ]
    const right: MultiPolygon = [[[c, [c[0] + (s * sin) / m.lon, c[1] - (s * cos) / m.lat], [18.002, c[1]], c]]]
    expect(sharedBoundaryM(left, right)).toBe(0)
    expect(sharedBoundaryM(right, left)).toBe(0)
  })
})
