import { describe, expect, it } from 'vitest'
import type { Ring } from '../polygon.js'
import { ringContacts, ringsContacts } from './contacts.js'
import { P, rectRing, rng, star } from './test-fixtures.js'

/** ringsContacts the slow way: ringContacts for every pair. */
function pairwise(rings: Ring[], use: (r: number) => boolean = () => true) {
  const out: { a: number; b: number; at: [number, number] }[] = []
  for (let a = 0; a < rings.length; a++)
    for (let b = 0; b < a; b++) {
      if (!use(a) || !use(b)) continue
      const hits = ringContacts(rings[a], rings[b], 1)
      if (hits.length) out.push({ a, b, at: hits[0] })
    }
  return out
}

describe('ringsContacts (every pair of rings that meet, from one index)', () => {
  it('finds the place ringContacts finds first, for every pair, among random overlapping stars', () => {
    const r = rng(5)
    for (let trial = 0; trial < 20; trial++) {
      // small stars (the pairwise brute-force path) and large ones (its indexed path), crowded so many meet
      const rings = Array.from({ length: 12 }, (_, i) => star(r, i % 3 ? 6 : 40, 80, 10 + r() * 20))
      const expected = pairwise(rings)
      expect(expected.length).toBeGreaterThan(0)
      expect(ringsContacts(rings)).toEqual(expected)
      const odd = (k: number) => k % 2 === 1
      expect(ringsContacts(rings, odd)).toEqual(pairwise(rings, odd))
    }
  })

  it('names a touch at a corner and none for rings apart, whatever their number', () => {
    const holes: Ring[] = []
    for (let k = 0; k < 3000; k++)
      holes.push(rectRing(3 * (k % 60), 3 * Math.floor(k / 60), 3 * (k % 60) + 2, 3 * Math.floor(k / 60) + 2))
    expect(ringsContacts(holes)).toEqual([])
    holes.push(rectRing(2, 2, 2.5, 2.5))
    expect(ringsContacts(holes)).toEqual([{ a: 3000, b: 0, at: P(2, 2) }])
  })
})
