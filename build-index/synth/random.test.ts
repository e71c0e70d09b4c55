import { describe, expect, it } from 'vitest'
import { Random, hashString } from './random.js'

const take = (r: Random, n: number): number[] => Array.from({ length: n }, () => r.uint32())

describe('Random', () => {
  it('repeats the same sequence for the same seed and stream', () => {
    expect(take(new Random(42, 'plots'), 50)).toEqual(take(new Random(42, 'plots'), 50))
  })

  it('gives different sequences for a different seed or stream', () => {
    const base = take(new Random(42, 'plots'), 20)
    expect(take(new Random(43, 'plots'), 20)).not.toEqual(base)
    expect(take(new Random(42, 'erven'), 20)).not.toEqual(base)
  })

  it('forks by label, independent of how much the parent was used', () => {
    const a = new Random(7, 'x')
    const b = new Random(7, 'x')
    take(b, 100)
    expect(take(a.fork('t'), 10)).toEqual(take(b.fork('t'), 10))
    expect(take(a.fork('t'), 10)).not.toEqual(take(a.fork('u'), 10))
  })

  it('keeps int() inside its inclusive bounds and reaches both ends', () => {
    const r = new Random(1)
    const seen = new Set<number>()
    for (let i = 0; i < 2000; i++) {
      const v = r.int(3, 7)
      expect(v).toBeGreaterThanOrEqual(3)
      expect(v).toBeLessThanOrEqual(7)
      seen.add(v)
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6, 7])
  })

  it('never picks a zero weight and follows the weights', () => {
    const r = new Random(5)
    const counts = [0, 0, 0]
    for (let i = 0; i < 10_000; i++) counts[r.weightedIndex([1, 0, 3])]++
    expect(counts[1]).toBe(0)
    expect(counts[2] / counts[0]).toBeGreaterThan(2.5)
    expect(counts[2] / counts[0]).toBeLessThan(3.5)
  })

  it('draws normals with the requested mean and spread', () => {
    const r = new Random(9)
    const xs = Array.from({ length: 20_000 }, () => r.normal(10, 2))
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length)
    expect(mean).toBeCloseTo(10, 1)
    expect(sd).toBeGreaterThan(1.9)
    expect(sd).toBeLessThan(2.1)
  })

  it('rejects seeds that are not unsigned 32-bit integers', () => {
    expect(() => new Random(-1)).toThrow(/seed/)
    expect(() => new Random(1.5)).toThrow(/seed/)
    expect(() => new Random(2 ** 32)).toThrow(/seed/)
  })

  it('hashes strings stably (FNV-1a)', () => {
    expect(hashString('')).toBe(0x811c9dc5)
    expect(hashString('a')).toBe(0xe40c292c)
  })
})
