/**
 * `/encumbrances/at`: the current records within a radius of a point (0: holding it), read no
 * more than the answer needs (issue #37 item 4). Per class asked, the Flatbush search's filter
 * drops, before anything is read, the records that are not current (the flags) and, with a
 * radius, those whose box is farther than the radius; each remaining record's geometry is read
 * alone (one blob column: the strip of a dimensioned line, else the stored geometry) and
 * measured on the encoded blob without decoding it; the whole row is read only for the records
 * in the answer.
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
import { recordById } from './lookups.js'
import type { EncumbranceRow } from './records.js'
import type { ClassIndex, EncumbranceStatements, EncumbranceStore } from './store.js'

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
  /** past this many metres from the point a record's box holds nothing of the answer */
  private reachM = 0
  private readonly filters: Filter[]

  constructor(
    private readonly indexes: readonly ClassIndex[],
    flags: Uint8Array,
  ) {
    this.filters = indexes.map(({ ids }) => (i: number, x0: number, y0: number, x1: number, y1: number) => {
      if (flags[ids[i] - 1] & FLAG_NOT_CURRENT) return false
      if (this.reachM < 0) return true // radius 0: the search box is the point, every hit holds it
      const dx = Math.max(x0 - this.x, 0, this.x - x1) * this.kx
      const dy = Math.max(y0 - this.y, 0, this.y - y1) * this.ky
      return dx * dx + dy * dy <= this.reachM * this.reachM
    })
  }

  /** Ids of the current records of `classes` that may lie within `radiusM` of the point, any order. */
  candidates(lon: number, lat: number, radiusM: number, classes: readonly EncumbranceClass[]): number[] {
    // a dimensioned line is indexed by its strip's box (build-encumbrances.ts), so the radius is
    // the whole pad; bounded near a pole (degreesAround)
    const pad = degreesAround(lat, radiusM)
    const m = metresPerDegree(lat)
    this.x = lon
    this.y = lat
    this.kx = m.lon
    this.ky = m.lat
    this.reachM = radiusM > 0 ? radiusM + BOX_SLACK_M : -1
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
 * Metres from the point to a record, as the answer measures it: a dimensioned line from its
 * strip (`area_geom`), an undimensioned line from its lines, an area from its polygons. With
 * radius 0 only containment matters: Infinity when the strip or area does not hold the point
 * (its distance would be above 0).
 */
function distanceOf(
  st: EncumbranceStatements,
  flags: Uint8Array,
  id: number,
  lon: number,
  lat: number,
  radiusM: number,
): number {
  let blob: Buffer
  if (flags[id - 1] & FLAG_LINE) {
    const [g, isLine] = st.geomOfLine.get(id) as [Buffer, number]
    if (isLine) return distanceToLinesEncodedM(g, lon, lat)
    blob = g
  } else blob = st.geomOfArea.get(id) as Buffer
  if (radiusM > 0) return distanceToPointEncodedM(blob, lon, lat)
  return containsPointEncoded(blob, lon, lat) ? 0 : Infinity
}

/** Current records within `radiusM` of the point (0: containing it), nearest first then by id. */
export function recordsAt(
  s: EncumbranceStore,
  lon: number,
  lat: number,
  radiusM: number,
  classes: readonly EncumbranceClass[],
): { row: EncumbranceRow; distanceM: number }[] {
  const hits: { id: number; d: number }[] = []
  for (const id of s.at.candidates(lon, lat, radiusM, classes)) {
    const d = distanceOf(s.st, s.flags, id, lon, lat, radiusM)
    if (d <= radiusM) hits.push({ id, d })
  }
  hits.sort((a, b) => a.d - b.d || a.id - b.id)
  return hits.map((h) => ({ row: recordById(s, h.id), distanceM: h.d }))
}
