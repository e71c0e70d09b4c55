/**
 * polygonOverlap against an independent oracle, @turf/intersect, on seeded random simple
 * polygons (convex, concave, some with holes) in degrees across South Africa. Both overlap areas
 * are measured with our own areaSqm, so the test compares the intersections, not the measures.
 */
import intersect from '@turf/intersect'
import { describe, expect, it } from 'vitest'
import { metresPerDegree } from '../geodesic.js'
import type { MultiPolygon, Polygon, Ring } from '../polygon.js'
import { areaSqm } from './measure.js'
import { polygonOverlap } from './polygon-overlap.js'
import { rng, round7 } from './test-fixtures.js'
import { MIN_OVERLAP_SQM, REL_OVERLAP } from './tolerance.js'

type Shape = 'convex' | 'concave' | 'holed'

/**
 * A simple ring around (cx, cy) degrees of `n` vertices at increasing angles, `size` metres
 * across at most: on an ellipse (convex) or at radii 0.45–1 × size (star-shaped, concave),
 * counter-clockwise, rounded to the cadastre's 1e-7° grid.
 */
function ringAround(r: () => number, cx: number, cy: number, n: number, size: number, convex: boolean): Ring {
  const k = metresPerDegree(cy)
  const rx = size * (convex ? 0.5 + 0.5 * r() : 1)
  const ry = size * (convex ? 0.5 + 0.5 * r() : 1)
  const tilt = r() * Math.PI
  const ring: Ring = []
  for (let i = 0; i < n; i++) {
    // jittered but increasing angles keep the ring simple
    const ang = (2 * Math.PI * (i + 0.8 * r())) / n
    const s = convex ? 1 : 0.45 + 0.55 * r()
    const x = s * rx * Math.cos(ang)
    const y = s * ry * Math.sin(ang)
    ring.push([
      round7(cx + (x * Math.cos(tilt) - y * Math.sin(tilt)) / k.lon),
      round7(cy + (x * Math.sin(tilt) + y * Math.cos(tilt)) / k.lat),
    ])
  }
  ring.push(ring[0])
  return ring
}

/** A polygon of the given shape: a hole, when there is one, is a convex ring within the shell's inner radius. */
function polygonOf(r: () => number, shape: Shape, cx: number, cy: number, size: number): MultiPolygon {
  const n = shape === 'convex' ? 3 + Math.floor(r() * 12) : 6 + Math.floor(r() * 24)
  const shell = ringAround(r, cx, cy, n, size, shape === 'convex')
  if (shape !== 'holed') return [[shell]]
  const k = metresPerDegree(cy)
  const off = 0.1 * size
  const hole = ringAround(
    r,
    cx + ((r() - 0.5) * off) / k.lon,
    cy + ((r() - 0.5) * off) / k.lat,
    3 + Math.floor(r() * 8),
    size * (0.1 + 0.2 * r()),
    true,
  )
  return [[shell, hole.reverse()]]
}

/** turf's a ∩ b, as a MultiPolygon ([] when empty). */
function turfIntersection(a: MultiPolygon, b: MultiPolygon): MultiPolygon {
  const feature = (mp: MultiPolygon) => ({
    type: 'Feature' as const,
    properties: {},
    geometry: { type: 'MultiPolygon' as const, coordinates: mp },
  })
  const out = intersect({ type: 'FeatureCollection', features: [feature(a), feature(b)] })
  if (!out) return []
  const g = out.geometry
  return g.type === 'Polygon' ? [g.coordinates as Polygon] : (g.coordinates as MultiPolygon)
}

describe('polygonOverlap against @turf/intersect', () => {
  it('gives the area of turf’s intersection on random convex, concave and holed polygons near South Africa', () => {
    const r = rng(2027)
    const shapes: Shape[] = ['convex', 'concave', 'holed']
    const seen = new Set<string>()
    const pairs = new Set<string>()
    let partial = 0
    for (let i = 0; i < 200; i++) {
      const cx = 18 + r() * 13
      const cy = -34 + r() * 11
      const sizeA = 10 ** (1.3 + r() * 2.2) // 20 m .. 3 km
      const sizeB = sizeA * 0.15 * 20 ** r() // 0.15 .. 3 × sizeA
      const shapeA = shapes[i % 3]
      const shapeB = shapes[Math.floor(i / 3) % 3]
      const a = polygonOf(r, shapeA, cx, cy, sizeA)
      // b's centre from within a to beyond reach, in any direction
      const k = metresPerDegree(cy)
      const dist = r() * 1.3 * (sizeA + sizeB)
      const dir = r() * 2 * Math.PI
      const b = polygonOf(r, shapeB, cx + (dist * Math.cos(dir)) / k.lon, cy + (dist * Math.sin(dir)) / k.lat, sizeB)

      const ours = polygonOverlap(a, b)
      const oursSqm = ours && ours.relationship !== 'touches' ? ours.overlapSqm : 0
      const theirs = areaSqm(turfIntersection(a, b))
      const smaller = Math.min(areaSqm(a), areaSqm(b))
      // what the sliver rule may drop, beyond which the two must agree to 1e-6
      const slack = Math.max(MIN_OVERLAP_SQM, REL_OVERLAP * smaller)
      expect(
        Math.abs(oursSqm - theirs),
        `case ${i}: ${shapeA} ∩ ${shapeB}, ours ${ours?.relationship ?? 'null'} ${oursSqm} m², turf ${theirs} m²`,
      ).toBeLessThanOrEqual(1e-6 * theirs + slack)
      seen.add(ours?.relationship ?? 'null')
      if (ours?.relationship === 'crosses') {
        pairs.add(`${shapeA} ${shapeB}`)
        if (theirs > 0.05 * smaller && theirs < 0.95 * smaller) partial++
      }
    }
    // every answer occurs, and many real partial overlaps (neither input, nor their union), of
    // every pair of shapes (the convex shortcut and the general clipper): a wrong operation fails
    expect([...seen].sort()).toEqual(['contains', 'crosses', 'null', 'within'])
    expect(pairs.size).toBe(9)
    expect(partial).toBeGreaterThan(50)
  })
})
