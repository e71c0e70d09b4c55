import { describe, expect, it } from 'vitest'
import {
  LpiHashIndex,
  checkLpiHashHeader,
  encodeLpiHash,
  lpiBucketBits,
  lpiBucketHash,
  lpiFingerprint,
} from './lpi-hash.js'

/** Seeded LPIs: 21 characters, some repeated (versions of one parcel). */
function lpis(n: number, seed = 3): string[] {
  let s = seed
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32
  const out: string[] = []
  for (let k = 0; k < n; k++) {
    if (k && rnd() < 0.1) out.push(out[Math.floor(rnd() * out.length)])
    else
      out.push(
        `T0JR${String.fromCharCode(65 + Math.floor(rnd() * 26))}${String(Math.floor(rnd() * 1e16)).padStart(16, '0')}`,
      )
  }
  return out
}

function build(list: string[], bits?: number): LpiHashIndex {
  const h1 = new Uint32Array(list.map(lpiBucketHash))
  const h2 = new Uint32Array(list.map(lpiFingerprint))
  const bytes = encodeLpiHash(h1, h2, list.length, bits)
  return new LpiHashIndex(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer)
}

describe('LPI hash index', () => {
  it('finds every id of every LPI, ascending, and nothing for an LPI it does not hold (shared buckets included)', () => {
    const list = lpis(5000)
    const want = new Map<string, number[]>()
    list.forEach((l, k) => {
      want.set(l, [...(want.get(l) ?? []), k + 1])
    })
    expect([...want.values()].some((ids) => ids.length > 1)).toBe(true)
    for (const bits of [undefined, 0, 3]) {
      const ix = build(list, bits)
      expect(ix.size).toBe(5000)
      for (const [l, ids] of want) expect(ix.candidates(l), `${l} bits ${bits}`).toEqual(ids)
      // absent LPIs: a candidate would need a 32-bit fingerprint collision
      for (const l of lpis(500, 99)) if (!want.has(l)) expect(ix.candidates(l)).toEqual([])
      expect(ix.candidates('')).toEqual([])
    }
  })

  it('hashes by code unit: case, length and position all count', () => {
    const a = 'T0JR00000000012300000'
    for (const b of ['t0JR00000000012300000', 'T0JR0000000001230000', 'T0JR00000000021300000']) {
      expect(lpiBucketHash(b)).not.toBe(lpiBucketHash(a))
      expect(lpiFingerprint(b)).not.toBe(lpiFingerprint(a))
    }
    expect(lpiBucketHash(a)).toBe(lpiBucketHash(`${a}`))
  })

  it('uses about two entries per bucket', () => {
    expect(lpiBucketBits(0)).toBe(0)
    expect(lpiBucketBits(2)).toBe(0)
    expect(lpiBucketBits(7_857_490)).toBe(22)
    expect(2 ** lpiBucketBits(7_857_490)).toBeGreaterThanOrEqual(7_857_490 / 2)
  })

  it('an empty index answers nothing', () => {
    const ix = build([])
    expect(ix.size).toBe(0)
    expect(ix.candidates('T0JR00000000012300000')).toEqual([])
  })

  it('refuses bytes that are not an index of its version, or cut short', () => {
    const bytes = encodeLpiHash(new Uint32Array([1, 2]), new Uint32Array([3, 4]), 2)
    expect(checkLpiHashHeader(bytes)).toBeNull()
    const other = bytes.slice()
    other[0] = 0
    expect(checkLpiHashHeader(other)).toBe('not an LPI hash index')
    const later = bytes.slice()
    later[4] = 2
    expect(checkLpiHashHeader(later)).toBe('LPI hash format v2, expected v1')
    expect(() => new LpiHashIndex(bytes.slice(0, bytes.length - 4).buffer)).toThrow(/bytes, its header implies/)
    expect(() => new LpiHashIndex(other.buffer)).toThrow('not an LPI hash index')
  })
})
