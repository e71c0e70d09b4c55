/**
 * Test-only fixtures shared by the overlay's test files: local metres around a known place,
 * rounded to the cadastre's grid, rectangles, random star polygons and a seeded generator.
 */
import { metresPerDegree } from '../geodesic.js'
import type { MultiPolygon, Ring } from '../polygon.js'

// local metres around a known place in Johannesburg, rounded to the cadastre's 1e-7° grid
export const LON0 = 28.04
export const LAT0 = -26.2
export const K = metresPerDegree(LAT0)
export const round7 = (v: number) => Math.round(v * 1e7) / 1e7
export const P = (x: number, y: number): [number, number] => [round7(LON0 + x / K.lon), round7(LAT0 + y / K.lat)]
export const rectRing = (x0: number, y0: number, x1: number, y1: number): Ring => [
  P(x0, y0),
  P(x1, y0),
  P(x1, y1),
  P(x0, y1),
  P(x0, y0),
]
export const rect = (x0: number, y0: number, x1: number, y1: number): MultiPolygon => [[rectRing(x0, y0, x1, y1)]]
/** A position as the problem messages print it. */
export const fmt = ([x, y]: [number, number]) => `${x.toFixed(5)},${y.toFixed(5)}`

/** A star-shaped ring of n vertices, radius 0.7–1 × size metres, centred at random in [0, spread)² metres. */
export function star(r: () => number, n: number, spread: number, size: number): Ring {
  const cx = r() * spread
  const cy = r() * spread
  const ring: Ring = []
  for (let k = 0; k < n; k++) {
    const ang = (2 * Math.PI * k) / n
    const rad = size * (0.7 + 0.3 * r())
    ring.push(P(cx + rad * Math.cos(ang), cy + rad * Math.sin(ang)))
  }
  ring.push(ring[0])
  return ring
}

// seeded so failures are repeatable
export function rng(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32
}
