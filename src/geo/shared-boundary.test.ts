import { describe, expect, it } from 'vitest'
import { metresPerDegree } from './geodesic.js'
import { type MultiPolygon, type Ring, sharedBoundaryM } from './polygon.js'

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
