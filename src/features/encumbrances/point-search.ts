/**
 * `/encumbrances/at`: the current records within a radius of a point (0: holding it), read no
 * more than the answer needs (issue #37 item 4). Per class asked, the Flatbush search's filter
 * settles, before anything is read, the records that are not current (the flags), with a radius
 * those whose box is farther than the radius, and where the point lies in a record's box, those
 * the prefilter (encumbrance-format.ts) proves hold the point (distance 0) or, with radius 0,
 * do not. With radius 0 (the default), each record left has its geometry read alone
 * (at-geometry.ts: one blob, the strip of a dimensioned line, else the stored geometry; the large
 * ones kept) and tested on the encoded blob without decoding it; the whole row is read only for
 * the records in the answer. With a radius, most records left are in the answer: their whole
 * rows are read and measured on their blobs instead.
 *
 * The answer is the one a whole-row read of every candidate gives (test/encumbrance-at.test.ts):
 * the same candidates, the same distance to the bit (geometry-blob.ts computes what src/geo
 * computes on the decoded geometry), nearest first then by id.
 *
 * @module
 */
import { FLAG_LINE, FLAG_NOT_CURRENT, type EncumbranceClass } from '../../data/encumbrance-format.js'
import { containsPointEncoded, distanceToLinesEncodedM, distanceToPointEncodedM } from '../../data/geometry-blob.js'
import { degreesAround, metresPerDegree } from '../../geo/geodesic.js'
import type { createPrefilter } from '../../data/parcels-prefilter.js'
import type { AtGeometry } from './at-geometry.js'
import { recordById } from './lookups.js'
import type { EncumbranceRow } from './records.js'
import type { ClassIndex, EncumbranceStore } from './store.js'

export type Prefilter = ReturnType<typeof createPrefilter>

/**
 * Slack (m) on the box test: a stored vertex may lie up to half a unit of the blob (0.5e-7°,
 * under 6 mm) outside the record's box, which the build took from the unrounded geometry.
 */
export const BOX_SLACK_M = 0.05

type Filter = (i: number, x0: number, y0: number, x1: number, y1: number) => boolean

/**
 * The index search of one store, its filters made once (no closure per query): the search is
 * synchronous, so the query's point and radius live here while it runs.
 */
export class AtSearch {
  private x = 0
  private y = 0
  /** metres per degree of longitude and latitude at the point (the scales the distances use) */
  private kx = 0
  private ky = 0
  /** past this many metres from the point a record's box holds nothing of the answer; -1: radius 0 */
  private reachM = -1
  /** the query's records the prefilter proved hold the point */
  private inside: number[] = []
  private readonly filters: Filter[]

  constructor(
    private readonly indexes: readonly ClassIndex[],
    flags: Uint8Array,
    prefilter: Prefilter | null,
  ) {
    this.filters = indexes.map(({ ids }) => (i: number, x0: number, y0: number, x1: number, y1: number) => {
      const id = ids[i]
      if (flags[id - 1] & FLAG_NOT_CURRENT) return false
      const x = this.x
      const y = this.y
      if (this.reachM >= 0) {
        const dx = Math.max(x0 - x, 0, x - x1) * this.kx
        const dy = Math.max(y0 - y, 0, y - y1) * this.ky
        if (dx * dx + dy * dy > this.reachM * this.reachM) return false
        // the prefilter answers for a point in the record's box only
        if (!prefilter || x < x0 || x > x1 || y < y0 || y > y1) return true
        if (prefilter(id - 1, x, y, x0, y0, x1, y1) <= 0) return true
      } else {
        // radius 0: the search box is the point, in every hit's box
        if (!prefilter) return true
        const r = prefilter(id - 1, x, y, x0, y0, x1, y1)
        if (r < 0) return false
        if (r === 0) return true
      }
      this.inside.push(id)
      return false
    })
  }

  /**
   * Ids of the current records of `classes` that may lie within `radiusM` of the point, any
   * order; `inside` gets those the prefilter proved hold it (not among the ids: nothing to read).
   */
  candidates(
    lon: number,
    lat: number,
    radiusM: number,
    classes: readonly EncumbranceClass[],
    inside: number[],
  ): number[] {
    // a dimensioned line is indexed by its strip's box (build-encumbrances.ts), so the radius is
    // the whole pad; bounded near a pole (degreesAround)
    const pad = degreesAround(lat, radiusM)
    const m = metresPerDegree(lat)
    this.x = lon
    this.y = lat
    this.kx = m.lon
    this.ky = m.lat
    this.reachM = radiusM > 0 ? radiusM + BOX_SLACK_M : -1
    this.inside = inside
    const out: number[] = []
    for (let c = 0; c < this.indexes.length; c++) {
      const { cls, index, ids } = this.indexes[c]
      if (!classes.includes(cls)) continue
      for (const i of index.search(lon - pad.lon, lat - pad.lat, lon + pad.lon, lat + pad.lat, this.filters[c]))
        out.push(ids[i])
    }
    return out
  }
}

/**
 * Whether a record holds the point (radius 0), on its geometry alone (at-geometry.ts): the strip
 * of a dimensioned line or an area's polygons hold it (closed sets), an undimensioned line when
 * the point is on it (distance 0).
 */
function holds(g: AtGeometry, lon: number, lat: number): boolean {
  return g.line ? distanceToLinesEncodedM(g.blob, lon, lat) === 0 : containsPointEncoded(g.blob, lon, lat)
}

/**
 * Metres from the point to a record as the answer measures it, on its row's blobs: a dimensioned
 * line from its strip (`area_geom`), an undimensioned line from its lines, an area from its
 * polygons.
 */
function distanceOf(r: EncumbranceRow, flags: Uint8Array, lon: number, lat: number): number {
  if (r.areaGeom) return distanceToPointEncodedM(r.areaGeom, lon, lat)
  if (flags[r.id - 1] & FLAG_LINE) return distanceToLinesEncodedM(r.geom, lon, lat)
  return distanceToPointEncodedM(r.geom, lon, lat)
}

/** Current records within `radiusM` of the point (0: containing it), nearest first then by id. */
export function recordsAt(
  s: EncumbranceStore,
  lon: number,
  lat: number,
  radiusM: number,
  classes: readonly EncumbranceClass[],
): { row: EncumbranceRow; distanceM: number }[] {
  const inside: number[] = []
  const undecided = s.at.candidates(lon, lat, radiusM, classes, inside)
  const out: { row: EncumbranceRow; distanceM: number }[] = []
  if (radiusM > 0) {
    // most records left within a radius are in the answer: one whole-row read each (a geometry
    // read, then the row, cost more than the row alone when over half are kept)
    for (const id of undecided) {
      const row = recordById(s, id)
      const d = distanceOf(row, s.flags, lon, lat)
      if (d <= radiusM) out.push({ row, distanceM: d })
    }
  } else for (const id of undecided) if (holds(s.atGeometries.of(id), lon, lat)) inside.push(id)
  for (const id of inside) out.push({ row: recordById(s, id), distanceM: 0 })
  return out.sort((a, b) => a.distanceM - b.distanceM || a.row.id - b.row.id)
}
