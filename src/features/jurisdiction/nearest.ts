/**
 * The nearest boundary to a point outside every boundary in force (the `details.nearest` of
 * NoJurisdictionAtPoint): box-distance order from the type's index, settled by exact distance.
 */
import type { BoundaryType } from '../../data/jurisdiction-format.js'
import { decodeGeometry, type MultiPolygon } from '../../data/geometry-blob.js'
import { distanceToPointM } from '../../geo/polygon.js'
import { round } from '../../geo/round.js'
import { inForce, type BoundaryRow } from './records.js'
import type { JurisdictionStore } from './store.js'

export interface NearestBoundary {
  boundary_type: BoundaryType
  code: string
  name: string
  distance_meters: number
}

/** The nearest-boundary search of one open dataset, with the decoded polygons it measured last (bounded). */
export class NearestFinder {
  private readonly decoded = new Map<number, MultiPolygon>()

  constructor(private readonly store: JurisdictionStore) {}

  private decodedOf(id: number): MultiPolygon {
    let g = this.decoded.get(id)
    if (!g) {
      g = decodeGeometry(this.store.blobOf(id))
      if (this.decoded.size > 256) this.decoded.clear()
      this.decoded.set(id, g)
    }
    return g
  }

  /** The nearest boundary of the most general installed dated type, for NoJurisdictionAtPoint. */
  closest(lon: number, lat: number, d: string, maxResults = 8): NearestBoundary | null {
    const { indexes, rows } = this.store
    for (const type of ['province', 'local_municipality', 'district_municipality', 'ward'] as const) {
      const ix = indexes.get(type)
      if (!ix) continue
      let best: { r: BoundaryRow; dist: number } | null = null
      // box-distance order; the exact distance settles among the first few in force
      for (const i of ix.index.neighbors(lon, lat, maxResults * 4)) {
        const r = rows[ix.ids[i]]
        if (!inForce(r, d)) continue
        const dist = distanceToPointM(this.decodedOf(r.id), lon, lat)
        if (!best || dist < best.dist) best = { r, dist }
      }
      if (best)
        return { boundary_type: type, code: best.r.code, name: best.r.name, distance_meters: round(best.dist, 2) }
    }
    return null
  }
}
