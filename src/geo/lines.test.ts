import { describe, expect, it } from 'vitest'
import { distanceToLinesM, linesBox, linesMeetBox, segmentMeetsBox } from './lines.js'

const box = { minX: 0, minY: 0, maxX: 1, maxY: 1 }

describe('segmentMeetsBox', () => {
  it('finds a segment crossing the box without a vertex inside it', () => {
    expect(segmentMeetsBox(-1, 0.5, 2, 0.5, box)).toBe(true)
    expect(segmentMeetsBox(-1, -0.5, 2, 2.5, box)).toBe(true)
  })
  it('counts a touch on the edge and rejects a miss beside a corner', () => {
    expect(segmentMeetsBox(1, 2, 1, -1, box)).toBe(true)
    expect(segmentMeetsBox(1.5, 0, 2, -1, box)).toBe(false)
    expect(segmentMeetsBox(0.5, 2, 2, 0.5, box)).toBe(false)
    expect(segmentMeetsBox(0.5, 1.5, 1.5, 0.5, box)).toBe(true)
  })
})

describe('lines', () => {
  it('boxes every part and meets a box through any part', () => {
    const lines: [number, number][][] = [
      [
        [5, 5],
        [6, 6],
      ],
      [
        [-1, 0.5],
        [-0.5, 0.5],
        [0.5, 0.5],
      ],
    ]
    expect(linesBox(lines)).toEqual({ minX: -1, minY: 0.5, maxX: 6, maxY: 6 })
    expect(linesMeetBox(lines, box)).toBe(true)
    expect(linesMeetBox([lines[0]], box)).toBe(false)
  })
  it('measures the distance to the nearest segment in metres', () => {
    // 0.001° of latitude north of an east-west line at -26°: about 110.8 m
    const d = distanceToLinesM(
      [
        [
          [28, -26],
          [28.01, -26],
        ],
      ],
      28.005,
      -25.999,
    )
    expect(d).toBeGreaterThan(110.5)
    expect(d).toBeLessThan(111)
  })
})
