import { describe, expect, it } from 'vitest'
import { GridIndex } from './grid-index.js'

function lcg(seed: number) {
  let s = seed >>> 0
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32
}

describe('GridIndex', () => {
  it('finds exactly the boxes holding a point (edges included), in item order', () => {
    const rnd = lcg(5)
    const n = 3000
    const boxes = new Float64Array(n * 4)
    for (let i = 0; i < n; i++) {
      const x = 16 + rnd() * 17
      const y = -35 + rnd() * 13
      const w = rnd() ** 3 * 2
      const h = rnd() ** 3 * 2
      boxes.set([x, y, x + w, y + h], 4 * i)
    }
    const grid = new GridIndex(boxes)
    for (let k = 0; k < 5000; k++) {
      // a random point, or a box corner (on its edge)
      const i0 = Math.floor(rnd() * n)
      const [x, y] = k % 4 === 0 ? [boxes[4 * i0 + 2], boxes[4 * i0 + 3]] : [15 + rnd() * 19, -36 + rnd() * 15]
      const want: number[] = []
      for (let i = 0; i < n; i++)
        if (x >= boxes[4 * i] && y >= boxes[4 * i + 1] && x <= boxes[4 * i + 2] && y <= boxes[4 * i + 3]) want.push(i)
      const got: number[] = []
      grid.forEachAt(x, y, (i) => {
        got.push(i)
      })
      expect(got).toEqual(want)
      if (k % 4 === 0) expect(got).toContain(i0)
    }
  })

  it('cellAt names the cell forEachAt reads (tolerance before the first row and column included), -1 off the grid', () => {
    const rnd = lcg(9)
    const n = 500
    const boxes = new Float64Array(n * 4)
    for (let i = 0; i < n; i++) {
      const x = 16 + rnd() * 17
      const y = -35 + rnd() * 13
      boxes.set([x, y, x + rnd() * 0.5, y + rnd() * 0.5], 4 * i)
    }
    const grid = new GridIndex(boxes)
    let minX = Infinity
    let minY = Infinity
    for (let i = 0; i < n; i++) {
      minX = Math.min(minX, boxes[4 * i])
      minY = Math.min(minY, boxes[4 * i + 1])
    }
    const tol = 1e-3
    const points: [number, number][] = [
      [minX - tol / 2, minY - tol / 2],
      [minX - 2 * tol, minY],
      [100, 0],
      [Number.NaN, -30],
    ]
    for (let k = 0; k < 3000; k++) points.push([15 + rnd() * 19, -36 + rnd() * 15])
    for (const [x, y] of points) {
      const want: number[] = []
      grid.forEachAt(x, y, (i) => void want.push(i), tol)
      const got: number[] = []
      const k = grid.cellAt(x, y, tol)
      if (k >= 0) {
        for (let p = grid.offsets[k]; p < grid.offsets[k + 1]; p++) {
          const i = grid.items[p]
          const b = grid.boxes
          if (x < b[4 * i] - tol || y < b[4 * i + 1] - tol || x > b[4 * i + 2] + tol || y > b[4 * i + 3] + tol) continue
          got.push(i)
        }
      }
      expect(got).toEqual(want)
    }
    expect(grid.cellAt(100, 0)).toBe(-1)
    expect(grid.cellAt(Number.NaN, -30)).toBe(-1)
  })

  it('stops when the callback returns true, and answers nothing for an empty index', () => {
    const grid = new GridIndex(new Float64Array([0, 0, 1, 1, 0, 0, 2, 2]))
    const seen: number[] = []
    grid.forEachAt(0.5, 0.5, (i) => {
      seen.push(i)
      return true
    })
    expect(seen).toEqual([0])
    new GridIndex(new Float64Array(0)).forEachAt(0, 0, () => {
      throw new Error('no item')
    })
  })
})
