import { describe, expect, it } from 'vitest'
import { ringSignedArea2, type Ring } from './polygon.js'
import { ringSelfIntersects, simplifyPreserveTopology } from './simplify.js'

/** The plain O(n²) test the grid version must agree with. */
function bruteSelfIntersects(ring: Ring): boolean {
  const n = ring.length - 1
  const o = (p: number[], q: number[], r: number[]) =>
    Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      if (j === i + 1 || (i === 0 && j === n - 1)) continue
      const [a, b, c, d] = [ring[i], ring[i + 1], ring[j], ring[j + 1]]
      if (o(a, b, c) !== o(a, b, d) && o(c, d, a) !== o(c, d, b)) return true
    }
  return false
}

function lcg(seed: number) {
  let s = seed >>> 0
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32
}

/** A star-shaped ring of n vertices around (28, -26) with radial noise; `tangle` swaps two vertices. */
function starRing(n: number, rnd: () => number, tangle: boolean): Ring {
  const ring: Ring = []
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n
    const r = 0.1 * (0.6 + 0.4 * rnd())
    ring.push([28 + r * Math.cos(a), -26 + r * Math.sin(a)])
  }
  if (tangle) {
    const i = Math.floor(rnd() * (n - 10))
    ;[ring[i], ring[i + 5]] = [ring[i + 5], ring[i]]
  }
  ring.push([ring[0][0], ring[0][1]])
  return ring
}

describe('ringSelfIntersects', () => {
  it('agrees with the brute-force test on long rings (grid path) and short ones', () => {
    const rnd = lcg(7)
    let crossing = 0
    for (let k = 0; k < 60; k++) {
      const ring = starRing(k % 2 ? 300 : 40, rnd, k % 3 === 0)
      const want = bruteSelfIntersects(ring)
      if (want) crossing++
      expect(ringSelfIntersects(ring)).toBe(want)
    }
    // both outcomes were exercised
    expect(crossing).toBeGreaterThan(5)
    expect(crossing).toBeLessThan(60)
  })
})

describe('simplifyPreserveTopology on a long ring', () => {
  it('keeps a simple ring simple and of the same orientation, with fewer vertices', () => {
    const ring = starRing(20_000, lcg(3), false)
    const [[out]] = simplifyPreserveTopology([[ring]], 200)
    expect(out.length).toBeLessThan(ring.length)
    expect(out.length).toBeGreaterThanOrEqual(4)
    expect(ringSelfIntersects(out)).toBe(false)
    expect(Math.sign(ringSignedArea2(out))).toBe(Math.sign(ringSignedArea2(ring)))
  })
})
