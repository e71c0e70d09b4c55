/**
 * Polygon geometry as every domain's build stores it (docs/decisions.md "Ingest"): coordinates
 * rounded to 1e-7°, unclosed rings closed, duplicate consecutive vertices dropped, winding set
 * to RFC 7946, self-intersections resolved keeping all covered area (a union, as PostGIS
 * ST_MakeValid does, via polyclip-ts). A ring with fewer than 3 distinct positions is rejected.
 * Used by the parcel, encumbrance and boundary transforms alike.
 */
import { union } from 'polyclip-ts'
import type { MultiPolygon, Polygon, Ring } from '../../src/data/geometry-blob.js'
import { ringSignedArea2 } from '../../src/geo/polygon.js'
import { ringSelfIntersects } from '../../src/geo/simplify.js'
import type { SourceGeometry } from '../sources/read-layer.js'
import { round } from '../../src/geo/round.js'

const round7 = (v: number) => round(v, 7)

/**
 * Closes, dedupes and orients one ring; null when fewer than 3 distinct positions remain. `note`
 * hears of repairs, `turn` of a ring re-oriented (not a repair: see normalisePolygonGeometry).
 */
function cleanRing(
  raw: [number, number][],
  exterior: boolean,
  note: () => void,
  turn: () => void,
  countWinding = true,
): Ring | null {
  const pts: Ring = []
  for (const [x0, y0] of raw) {
    const x = round7(x0)
    const y = round7(y0)
    const last = pts[pts.length - 1]
    if (last && last[0] === x && last[1] === y) {
      note()
      continue
    }
    pts.push([x, y])
  }
  if (pts.length && (pts[0][0] !== pts[pts.length - 1][0] || pts[0][1] !== pts[pts.length - 1][1])) {
    if (raw.length && (raw[0][0] !== raw[raw.length - 1][0] || raw[0][1] !== raw[raw.length - 1][1])) note()
    pts.push([pts[0][0], pts[0][1]])
  }
  const distinct = new Set(pts.slice(0, -1).map(([x, y]) => `${x},${y}`)).size
  if (distinct < 3) return null
  const ccw = ringSignedArea2(pts) > 0
  if (ccw !== exterior) {
    if (countWinding) turn()
    pts.reverse()
  }
  return pts
}

/**
 * Normalises a Polygon or MultiPolygon. `repaired`: something was wrong and was changed (closed,
 * deduplicated, a degenerate hole dropped, a self-intersection resolved). `reoriented`: a ring
 * wound against RFC 7946 was turned, which is no defect but a convention (every ESRI-sourced
 * export winds exteriors clockwise), so it is counted apart (docs/decisions.md "Ingest integrity").
 */
export function normalisePolygonGeometry(
  geometry: SourceGeometry | null,
  /**
   * False for sources whose format fixes the other winding (shapefiles and the Board's TopoJSON store exteriors
   * clockwise).
   */
  countWinding = true,
): { ok: true; mp: MultiPolygon; repaired: boolean; reoriented: boolean } | { ok: false; reason: string } {
  if (!geometry) return { ok: false, reason: 'geometry is missing' }
  let polys: [number, number][][][]
  if (geometry.type === 'Polygon') polys = [geometry.coordinates]
  else if (geometry.type === 'MultiPolygon') polys = geometry.coordinates
  else return { ok: false, reason: `geometry is ${geometry.type}, expected Polygon or MultiPolygon` }
  let repaired = false
  let reoriented = false
  const note = () => (repaired = true)
  const turn = () => (reoriented = true)
  const mp: MultiPolygon = []
  for (const poly of polys) {
    const out: Polygon = []
    for (let i = 0; i < poly.length; i++) {
      const ring = cleanRing(poly[i], i === 0, note, turn, countWinding)
      if (!ring) {
        if (i === 0) return { ok: false, reason: 'a ring has fewer than 3 distinct positions' }
        note() // a degenerate hole is dropped
        continue
      }
      out.push(ring)
    }
    mp.push(out)
  }
  if (mp.some((poly) => poly.some((ring) => ringSelfIntersects(ring)))) {
    // union of the geometry with itself resolves crossings and keeps every covered area
    const fixed = union(mp.map((poly) => poly.map((ring) => ring.map(([x, y]) => [x, y] as [number, number]))))
    if (fixed.length === 0) return { ok: false, reason: 'self-intersecting geometry encloses no area' }
    const cleaned: MultiPolygon = []
    for (const poly of fixed) {
      const out: Polygon = []
      poly.forEach((ring, i) => {
        const r = cleanRing(
          ring,
          i === 0,
          () => {},
          () => {},
        )
        if (r) out.push(r)
      })
      if (out.length) cleaned.push(out)
    }
    return { ok: true, mp: cleaned, repaired: true, reoriented }
  }
  return { ok: true, mp, repaired, reoriented }
}
