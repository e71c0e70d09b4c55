import { describe, expect, it } from 'vitest'
import { FLAG_LINE } from '../../data/encumbrance-format.js'
import { AtGeometries, GENERATION_BYTES, KEEP_FROM_BYTES } from './at-geometry.js'
import type { EncumbranceStatements } from './store.js'

/** Records 1..n: odd ids areas, even ids lines (id 2 k: the strip when k is odd); blob size by id. */
function fakeStore(n: number, size: (id: number) => number) {
  const reads: number[] = []
  const blob = (id: number) => Buffer.alloc(size(id), id & 0xff)
  const st = {
    geomOfArea: {
      get: (id: number) => {
        reads.push(id)
        return blob(id)
      },
    },
    geomOfLine: {
      get: (id: number) => {
        reads.push(id)
        return [blob(id), (id / 2) % 2 === 0 ? 1 : 0]
      },
    },
  } as unknown as EncumbranceStatements
  const flags = Uint8Array.from({ length: n }, (_, k) => ((k + 1) % 2 === 0 ? FLAG_LINE : 0))
  return { geometries: new AtGeometries(st, flags), reads }
}

describe('AtGeometries', () => {
  it('gives each record its blob and kind, reading a large one once and a small one each time', () => {
    const { geometries, reads } = fakeStore(8, (id) => (id <= 4 ? KEEP_FROM_BYTES : KEEP_FROM_BYTES - 1))
    for (let round = 0; round < 3; round++)
      for (let id = 1; id <= 8; id++) {
        const g = geometries.of(id)
        expect(g.blob.length).toBe(id <= 4 ? KEEP_FROM_BYTES : KEEP_FROM_BYTES - 1)
        expect(g.blob[0]).toBe(id)
        // areas and strips are polygons; an undimensioned line (ids 4 and 8 here) its lines
        expect(g.line).toBe(id === 4 || id === 8)
      }
    expect(reads.filter((id) => id <= 4)).toEqual([1, 2, 3, 4])
    expect(reads.filter((id) => id > 4)).toHaveLength(12)
  })

  it('keeps two generations: the previous one still answers, the one before is read again', () => {
    const size = 1 << 20
    const g = GENERATION_BYTES / size
    expect(g).toBeGreaterThanOrEqual(2)
    const { geometries, reads } = fakeStore(4 * g, () => size)
    const ask = (...ids: number[]) => {
      reads.length = 0
      for (const id of ids) geometries.of(id)
      return [...reads]
    }
    const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, k) => a + k)
    // generation 1 holds 1..g; g + 1 starts generation 2, 1..g the old one
    expect(ask(...range(1, g))).toEqual(range(1, g))
    expect(ask(g + 1, 1, 2)).toEqual([g + 1])
    // 1 and 2 are kept again in generation 2; filling it (g + 2 onwards) makes a third
    expect(ask(...range(g + 2, 2 * g))).toEqual(range(g + 2, 2 * g))
    expect(ask(2 * g + 1)).toEqual([2 * g + 1])
    // generation 1 is gone but for 1 and 2, asked during generation 2
    expect(ask(1, 2, 3)).toEqual([3])
  })
})
