/**
 * How a polygon (an encumbrance or a user's area) relates to another (a parcel): the
 * relationship, the overlapping area and the clipped geometry.
 *
 * Polygon against polygon runs the segment classification (classify.ts) on both boundaries: a's
 * boundary never outside b and b's never inside a means a lies within b, and so on; only real
 * crossings are clipped (exactly with Sutherland–Hodgman when either side is convex
 * (convex-clip.ts), else with a general clipper (clip.ts), ~100× slower). Multipolygons are
 * read with the even-odd rule, so their parts must not overlap (as valid input). Overlaps under
 * the sliver thresholds are dropped (tolerance.ts).
 */
import type { MultiPolygon } from '../polygon.js'
import { classifySegment, newTally } from './classify.js'
import { clipToBox, intersectPolygons } from './convex-clip.js'
import { buildEdges, frameAt, locate, searchEdges, type EdgeSet, type Frame } from './edges.js'
import { areaSqm, lineLengthM } from './measure.js'
import { PreparedPolygon } from './prepared.js'
import { EDGE_TOL_M, MIN_OVERLAP_SQM, REL_OVERLAP } from './tolerance.js'
import type { Relationship } from './types.js'

/** Subjects with more edges than this are cut to the parcel's box before clipping. */
const BOX_CLIP_MIN_EDGES = 64

export interface PolygonOverlap {
  relationship: Relationship
  /** Area of a ∩ b in m² (0 for 'touches'). */
  overlapSqm: number
  /** a ∩ b; for 'within' and 'contains' the contained input itself. */
  geometry: MultiPolygon
}

const POLY_HITS: number[] = []

const touching = (): PolygonOverlap => ({ relationship: 'touches', overlapSqm: 0, geometry: [] })

/**
 * True when, beside some boundary piece of a lying along b's boundary, the side inside a is also
 * inside b: the interiors meet there. Tested 3 tolerances off the piece, clear of the noise.
 */
function interiorsMeet(samples: number[], ea: EdgeSet, eb: EdgeSet, fr: Frame): boolean {
  const off = 3 * EDGE_TOL_M
  for (let i = 0; i < samples.length; i += 4) {
    const ox = (-samples[i + 3] * off) / fr.kx
    const oy = (samples[i + 2] * off) / fr.ky
    for (const s of [1, -1]) {
      const x = samples[i] + s * ox
      const y = samples[i + 1] + s * oy
      if (locate(ea, x, y, fr) === 1 && locate(eb, x, y, fr) === 1) return true
    }
  }
  return false
}

/**
 * How polygon `a` (the encumbrance or user area) relates to polygon `b` (the parcel): null when
 * disjoint; 'touches' when only boundaries meet (overlapSqm 0, geometry []); 'contains' when a
 * covers b, also when they are equal (within {@link EDGE_TOL_M}); 'within' when a lies inside b;
 * otherwise 'crosses', with overlapSqm the area of a ∩ b. Overlaps under the sliver thresholds
 * (tolerance.ts) are 'touches'. Only crossings are clipped.
 */
export function polygonOverlap(a: MultiPolygon | PreparedPolygon, b: MultiPolygon): PolygonOverlap | null {
  const prepared = a instanceof PreparedPolygon ? a : null
  const aGeom = prepared ? prepared.geometry : (a as MultiPolygon)
  const ea = prepared ? prepared.edges : buildEdges(aGeom.flat(), true, false)
  const eb = buildEdges(b.flat(), true, false)
  if (ea.n === 0 || eb.n === 0) return null
  const fr = frameAt(eb.bbox)
  const box = eb.bbox
  if (
    ea.bbox.minX > box.maxX + fr.tx ||
    ea.bbox.maxX < box.minX - fr.tx ||
    ea.bbox.minY > box.maxY + fr.ty ||
    ea.bbox.maxY < box.minY - fr.ty
  )
    return null
  const hits = searchEdges(ea, box.minX - fr.tx, box.minY - fr.ty, box.maxX + fr.tx, box.maxY + fr.ty, POLY_HITS)
  // no edge of a near b: b lies wholly inside a or wholly outside it
  if (hits.length === 0)
    return locate(ea, eb.c[0], eb.c[1], fr) > 0
      ? { relationship: 'contains', overlapSqm: areaSqm(b), geometry: b }
      : null

  const onA = newTally(null, [])
  if (hits.length < ea.n) onA.exterior = true
  for (const i of hits) {
    classifySegment(ea.c[4 * i], ea.c[4 * i + 1], ea.c[4 * i + 2], ea.c[4 * i + 3], 0, eb, fr, onA)
    if (onA.interior && onA.exterior) break
  }
  // a's boundary both inside and outside b: a crossing, whatever b's boundary does
  if (!(onA.interior && onA.exterior)) {
    const onB = newTally(null, null)
    for (let j = 0, o = 0; j < eb.n; j++, o += 4) {
      classifySegment(eb.c[o], eb.c[o + 1], eb.c[o + 2], eb.c[o + 3], 0, ea, fr, onB)
      if (onB.interior && onB.exterior) break
    }
    // equal geometries satisfy both; 'contains' is preferred
    if (!onB.exterior && !onA.interior) return { relationship: 'contains', overlapSqm: areaSqm(b), geometry: b }
    if (!onA.exterior && !onB.interior)
      return { relationship: 'within', overlapSqm: prepared ? prepared.areaSqm : areaSqm(aGeom), geometry: aGeom }
    if (!onA.interior && !onB.interior && !interiorsMeet(onA.samples!, ea, eb, fr))
      return onA.contact || onA.boundary || onB.contact || onB.boundary ? touching() : null
  }

  const minSqm = Math.max(
    MIN_OVERLAP_SQM,
    REL_OVERLAP * Math.min(prepared ? prepared.areaSqm : areaSqm(aGeom), areaSqm(b)),
  )
  // a large subject is first cut to a box around b (with a margin, so the cut's seams stay clear of b)
  const padX = (box.maxX - box.minX) / 8 + 2 * fr.tx
  const padY = (box.maxY - box.minY) / 8 + 2 * fr.ty
  const subject =
    ea.n > BOX_CLIP_MIN_EDGES
      ? clipToBox(aGeom, box.minX - padX, box.minY - padY, box.maxX + padX, box.maxY + padY, prepared?.ringBoxes)
      : aGeom
  const geometry: MultiPolygon = []
  let overlapSqm = 0
  for (const poly of intersectPolygons(subject, b)) {
    const sqm = areaSqm([poly])
    // slivers left where edges coincide within the tolerance are not overlap
    if (sqm < minSqm || 2 * sqm <= EDGE_TOL_M * lineLengthM([poly[0]])) continue
    geometry.push(poly)
    overlapSqm += sqm
  }
  return geometry.length ? { relationship: 'crosses', overlapSqm, geometry } : touching()
}
