/**
 * Polygon intersection and union for the overlay: polygon-clipping first, polyclip-ts when it
 * gives up.
 *
 * Why two libraries: polyclip-ts (the maintained fork turf 7 uses) does every predicate in
 * bignumber.js, which made clipping half of the national build's encumbrance overlap pass.
 * polygon-clipping, the float original with the same API and geometry format, is 2.6x faster
 * over the whole pass (the same 153 203 overlaps on the sample, areas equal to the centimetre),
 * but on rare near-degenerate inputs it throws "Unable to complete output ring" instead of
 * answering. Those inputs go to polyclip-ts, which answers them; `fallbacks()` counts them.
 */
import fast from 'polygon-clipping'
import { difference as exactDifference, intersection as exactIntersection, union as exactUnion } from 'polyclip-ts'
import type { MultiPolygon, Polygon } from './polygon.js'

type Geom = Polygon | MultiPolygon
type Op = (a: Geom, ...more: Geom[]) => MultiPolygon

let fallbackCount = 0

/** How many operations polygon-clipping handed to polyclip-ts in this thread. */
export function fallbacks(): number {
  return fallbackCount
}

/** `fastOp`, or `exactOp` when `fastOp` throws. Exported for tests. */
export function withFallback(fastOp: Op, exactOp: Op): Op {
  return (a, ...more) => {
    try {
      return fastOp(a, ...more)
    } catch {
      fallbackCount++
      return exactOp(a, ...more)
    }
  }
}

/** a ∩ b ∩ … as a MultiPolygon ([] when empty). */
export const intersect: Op = withFallback(
  (a, ...more) => fast.intersection(a as never, ...(more as never[])) as MultiPolygon,
  (a, ...more) => exactIntersection(a, ...more) as MultiPolygon,
)

/** a ∪ b ∪ … as a MultiPolygon. */
export const unite: Op = withFallback(
  (a, ...more) => fast.union(a as never, ...(more as never[])) as MultiPolygon,
  (a, ...more) => exactUnion(a, ...more) as MultiPolygon,
)

/** a − b − … as a MultiPolygon ([] when nothing is left). */
export const subtract: Op = withFallback(
  (a, ...more) => fast.difference(a as never, ...(more as never[])) as MultiPolygon,
  (a, ...more) => exactDifference(a, ...more) as MultiPolygon,
)
