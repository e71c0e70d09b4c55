import { describe, expect, it } from 'vitest'
import { BandedPolygon } from './banded-pip.js'
import { containsPoint, type MultiPolygon, type Ring } from './polygon.js'

function lcg(seed: number) {
  let s = seed >>> 0
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32
}

/** A star-shaped ring (counter-clockwise) of n vertices with radial noise. */
function star(cx: number, cy: number, r: number, n: number, rnd: () => number, clockwise = false): Ring {
  const ring: Ring = []
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n
    const rr = r * (0.5 + 0.5 * rnd())
    ring.push([cx + rr * Math.cos(a), cy + rr * Math.sin(a)])
  }
  if (clockwise) ring.reverse()
  ring.push([ring[0][0], ring[0][1]])
  return ring
}

describe('BandedPolygon', () => {
  it('answers exactly as containsPoint, holes, several polygons, vertices and edges included', () => {
    const rnd = lcg(11)
    const mp: MultiPolygon = [
      [star(28, -26, 0.5, 2000, rnd), star(28, -26, 0.1, 300, rnd, true)],
      [star(29.5, -26, 0.3, 50, rnd)],
    ]
    const banded = new BandedPolygon(mp)
    let inside = 0
    for (let k = 0; k < 20_000; k++) {
      const x = 27.3 + rnd() * 2.6
      const y = -26.7 + rnd() * 1.4
      const want = containsPoint(mp, x, y)
      if (want) inside++
      expect(banded.contains(x, y)).toBe(want)
    }
    expect(inside).toBeGreaterThan(2000)
    // every vertex and every edge midpoint is on the boundary, hence inside (closed set)
    for (const poly of mp)
      for (const ring of poly)
        for (let i = 0; i < ring.length - 1; i++) {
          expect(banded.contains(ring[i][0], ring[i][1])).toBe(true)
          const mx = (ring[i][0] + ring[i + 1][0]) / 2
          const my = (ring[i][1] + ring[i + 1][1]) / 2
          expect(banded.contains(mx, my)).toBe(containsPoint(mp, mx, my))
        }
  })

  it('a horizontal edge and a point level with a vertex', () => {
    const square: MultiPolygon = [
      [
        [
          [0, 0],
          [1, 0],
          [1, 1],
          [0, 1],
          [0, 0],
        ],
      ],
    ]
    const b = new BandedPolygon(square)
    for (const [x, y, want] of [
      [0.5, 0, true],
      [0.5, 1, true],
      [1, 0.5, true],
      [0.5, 0.5, true],
      [1.5, 0.5, false],
      [0.5, -1e-6, false],
      [-0.1, 1, false],
    ] as const)
      expect(b.contains(x, y), `${x},${y}`).toBe(want)
  })
})
