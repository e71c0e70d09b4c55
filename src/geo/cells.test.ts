import { describe, expect, it } from 'vitest'
import { cellsAlongLines, cellsOverPolygon, SEARCH_CELL_DEG } from './cells.js'

const key = (b: { minX: number; minY: number }) =>
  `${Math.round(b.minX / SEARCH_CELL_DEG)},${Math.round(b.minY / SEARCH_CELL_DEG)}`

describe('cells', () => {
  it('a small geometry is searched by its own box', () => {
    expect(
      cellsAlongLines([
        [
          [17, -34],
          [17.001, -34.001],
        ],
      ]),
    ).toEqual([{ minX: 17, minY: -34.001, maxX: 17.001, maxY: -34 }])
  })
  it('a long diagonal line meets about one or two cells per cell of length, not its whole box', () => {
    // 1° diagonal: 200 x 200 cells in its box, about 400 along it
    const cells = cellsAlongLines([
      [
        [17, -34],
        [18, -33],
      ],
    ])
    expect(cells.length).toBeGreaterThanOrEqual(200)
    // (it runs through cell corners: the cells touching each corner count too)
    expect(cells.length).toBeLessThanOrEqual(610)
    // every cell really meets the line y = x - 51
    for (const c of cells) expect(c.minY <= c.maxX - 51 + 1e-9 && c.maxY >= c.minX - 51 - 1e-9).toBe(true)
    expect(new Set(cells.map(key)).size).toBe(cells.length)
  })
  it('a large polygon yields its edge cells and its inner cells, none outside', () => {
    const sq: [number, number][] = [
      [17, -34],
      [17.1, -34],
      [17.1, -33.9],
      [17, -33.9],
      [17, -34],
    ]
    const cells = cellsOverPolygon([[sq]])
    // 0.1° / 0.005° = 20 cells a side, plus the cells its edges touch on their boundary (they run
    // along cell edges)
    expect(cells.length).toBeGreaterThanOrEqual(400)
    expect(cells.length).toBeLessThanOrEqual(484)
    const tri: [number, number][] = [
      [17, -34],
      [17.1, -34],
      [17, -33.9],
      [17, -34],
    ]
    const half = cellsOverPolygon([[tri]])
    expect(half.length).toBeLessThan(cells.length * 0.65)
    for (const c of half) expect(c.minX - 17 + (c.minY + 34) <= 0.1 + 1e-9).toBe(true)
  })
})
