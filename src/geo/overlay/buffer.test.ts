import { describe, expect, it } from 'vitest'
import { locatePoint } from '../polygon.js'
import { bufferLines } from './buffer.js'
import { areaSqm, lineLengthM } from './measure.js'
import { P } from './test-fixtures.js'
import type { LineString } from './types.js'
import { polygonProblems } from './validity.js'

describe('bufferLines', () => {
  it('gives a straight line of length L an area of L × width, with flat ends', () => {
    const line: LineString = [P(0, 0), P(100, 0)]
    const strip = bufferLines([line], 5)
    expect(strip).toHaveLength(1)
    expect(Math.abs(areaSqm(strip) / (lineLengthM([line]) * 10) - 1)).toBeLessThan(1e-3)
    // flat: nothing beyond the end point along the line, all of the width beside it
    expect(locatePoint(strip, ...P(100.5, 0))).toBe(-1)
    expect(locatePoint(strip, ...P(99.5, 4.9))).toBe(1)
    expect(polygonProblems(strip[0])).toEqual([])
  })

  it('rounds the outside of a bend: an L of 2 × 100 m, 10 m wide, covers 2000 − 25(1 − π/4) m²', () => {
    const strip = bufferLines([[P(0, 0), P(100, 0), P(100, 100)]], 5)
    expect(strip).toHaveLength(1)
    expect(Math.abs(areaSqm(strip) / (2000 - 25 * (1 - Math.PI / 4)) - 1)).toBeLessThan(1e-3)
    // the outer corner is cut round: (104, -4) is 5.66 m from the bend, outside
    expect(locatePoint(strip, ...P(104, -4))).toBe(-1)
    expect(locatePoint(strip, ...P(103, -3))).toBe(1)
    expect(polygonProblems(strip[0])).toEqual([])
  })

  it('merges parts and skips parts without length', () => {
    const strips = bufferLines(
      [
        [P(0, 0), P(50, 0)],
        [P(0, 100), P(0, 100)],
        [P(25, -20), P(25, 20)],
      ],
      2,
    )
    expect(strips).toHaveLength(1)
    expect(Math.abs(areaSqm(strips) / (50 * 4 + 40 * 4 - 16) - 1)).toBeLessThan(5e-3)
  })

  it('refuses a width that is not positive', () => {
    expect(() => bufferLines([[P(0, 0), P(1, 0)]], 0)).toThrow(RangeError)
  })
})
describe('bufferLines on surveyed lines that once defeated the merge', () => {
  it('a zig-zag with acute bends (a national water servitude) gives one simple strip of length x width', () => {
    const l: [number, number][] = [
      [27.1254167, -31.5963651],
      [27.1269167, -31.5930369],
      [27.1284167, -31.592972],
      [27.1299166, -31.5871572],
      [27.1314166, -31.5965895],
      [27.1329166, -31.5864717],
    ]
    const b = bufferLines([l], 0.55)
    expect(b).toHaveLength(1)
    expect(polygonProblems(b[0])).toEqual([])
    const want = lineLengthM([l]) * 1.1
    expect(Math.abs(areaSqm(b) - want) / want).toBeLessThan(0.005)
  })
  it('a long straight line whose rounded positions bend left and right by a hair stays one strip', () => {
    const l: [number, number][] = [
      [18.9670918, -33.7053435],
      [18.9673209, -33.705331],
      [18.96755, -33.7053186],
      [18.9677791, -33.7053061],
      [18.9680083, -33.7052936],
      [18.9682374, -33.7052811],
    ]
    const b = bufferLines([l], 0.95)
    expect(b).toHaveLength(1)
    expect(polygonProblems(b[0])).toEqual([])
    const want = lineLengthM([l]) * 1.9
    expect(Math.abs(areaSqm(b) - want) / want).toBeLessThan(0.001)
  })
})
