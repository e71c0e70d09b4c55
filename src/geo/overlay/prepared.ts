/**
 * Lines and polygons prepared for many overlay tests: segments flattened and indexed once, with
 * a cheap test of whether they come near a box.
 */
import { metresPerDegree } from '../geodesic.js'
import { segmentMeetsBox } from '../lines.js'
import type { BBox, MultiPolygon } from '../polygon.js'
import { ringBoxes } from './convex-clip.js'
import { buildEdges, frameAt, locate, searchEdges, type EdgeSet } from './edges.js'
import { areaSqm, lineLengthM } from './measure.js'
import type { MultiLineString } from './types.js'

const NEAR_HITS: number[] = []

/**
 * Whether edges `e` (of lines, or of polygons when `area`) come within `marginM` metres of the
 * box: an edge meets the box grown by the margin, or, for polygons, the box lies inside them. A
 * cheap, conservative test before reading and comparing a whole geometry that has that box.
 */
function edgesNearBox(
  e: EdgeSet,
  area: boolean,
  minX: number,
  minY: number,
  maxX: number,
  maxY: number,
  marginM: number,
): boolean {
  if (e.n === 0) return false
  const k = metresPerDegree((minY + maxY) / 2)
  const box = {
    minX: minX - marginM / k.lon,
    minY: minY - marginM / k.lat,
    maxX: maxX + marginM / k.lon,
    maxY: maxY + marginM / k.lat,
  }
  if (e.bbox.minX > box.maxX || e.bbox.maxX < box.minX || e.bbox.minY > box.maxY || e.bbox.maxY < box.minY) return false
  const c = e.c
  for (const i of searchEdges(e, box.minX, box.minY, box.maxX, box.maxY, NEAR_HITS))
    if (segmentMeetsBox(c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3], box)) return true
  if (!area) return false
  // no edge near: the box is wholly inside or wholly outside, as its centre is
  return locate(e, (minX + maxX) / 2, (minY + maxY) / 2, frameAt(box)) > 0
}

/**
 * A multiline prepared for many tests: its segments flattened and indexed (Flatbush), so a
 * parcel costs a box search plus the few route segments near it. Zero-length segments are dropped.
 */
export class PreparedLines {
  readonly bbox: BBox
  readonly lengthM: number
  /** @internal */
  readonly edges: EdgeSet
  constructor(readonly geometry: MultiLineString) {
    this.edges = buildEdges(geometry, false, true)
    this.bbox = this.edges.bbox
    this.lengthM = lineLengthM(geometry)
  }

  /** Whether the lines come within `marginM` metres of the box (see edgesNearBox). */
  nearBox(minX: number, minY: number, maxX: number, maxY: number, marginM: number): boolean {
    return edgesNearBox(this.edges, false, minX, minY, maxX, maxY, marginM)
  }
}

/**
 * A (large) polygon prepared for many tests: its edges indexed (Flatbush), so point location and edge search cost
 * O(√n).
 */
const EDGE_SCRATCH: number[] = []

export class PreparedPolygon {
  readonly bbox: BBox
  readonly areaSqm: number
  /** @internal */
  readonly edges: EdgeSet
  /** The box of each ring (convex-clip.ts ringBoxes), so a clip to a box reads only the rings near it. */
  readonly ringBoxes: Float64Array
  constructor(readonly geometry: MultiPolygon) {
    this.edges = buildEdges(geometry.flat(), true, true)
    this.bbox = this.edges.bbox
    this.areaSqm = areaSqm(geometry)
    this.ringBoxes = ringBoxes(geometry)
  }

  /** How many of the polygon's edges meet the box: the part of it an overlay with a geometry in that box handles. */
  edgesInBox(minX: number, minY: number, maxX: number, maxY: number): number {
    return searchEdges(this.edges, minX, minY, maxX, maxY, EDGE_SCRATCH).length
  }

  /** Whether the polygon comes within `marginM` metres of the box or holds it (see edgesNearBox). */
  nearBox(minX: number, minY: number, maxX: number, maxY: number, marginM: number): boolean {
    return edgesNearBox(this.edges, true, minX, minY, maxX, maxY, marginM)
  }
}
