/**
 * Boundary geometry for maps and answers: the full polygon, the overview (simplified at build
 * time), the polygon simplified for a map scale (cached), and the records whose box meets a box.
 */
import { OVERVIEW_TOLERANCE_M, type BoundaryType } from '../../data/jurisdiction-format.js'
import { decodeGeometry, type MultiPolygon } from '../../data/geometry-blob.js'
import { simplifyPreserveTopology } from '../../geo/simplify.js'
import { inForce, type BoundaryRow } from './records.js'
import type { JurisdictionStore } from './store.js'

/** The geometry reads of one open dataset. */
export class BoundaryShapes {
  private readonly simplifiedCache = new Map<string, MultiPolygon>()

  constructor(private readonly store: JurisdictionStore) {}

  /** The full-resolution polygon, or null for a record published without geometry. */
  geometryOf(r: BoundaryRow): MultiPolygon | null {
    return r.bbox ? decodeGeometry(this.store.blobOf(r.id)) : null
  }

  /** The overview polygon (the full one where the build kept none), or null without geometry. */
  overviewOf(r: BoundaryRow): MultiPolygon | null {
    if (!r.bbox) return null
    const b = this.store.loStmt.get(r.id) as Uint8Array | null
    return b ? decodeGeometry(b) : this.geometryOf(r)
  }

  /**
   * The boundary simplified for a map at about `tolM` metres: the tolerance is rounded up to a
   * power of two and the result kept (bounded), so panning and repeated views cost nothing.
   */
  simplifiedOf(r: BoundaryRow, tolM: number): { geometry: MultiPolygon; toleranceM: number } | null {
    const bucket = 2 ** Math.ceil(Math.log2(Math.max(1, tolM)))
    const key = `${r.id}:${bucket}`
    let g = this.simplifiedCache.get(key)
    if (!g) {
      const base = bucket > OVERVIEW_TOLERANCE_M ? this.overviewOf(r) : this.geometryOf(r)
      if (!base) return null
      g = bucket > 1 ? simplifyPreserveTopology(base, bucket) : base
      if (this.simplifiedCache.size >= 20_000) this.simplifiedCache.clear()
      this.simplifiedCache.set(key, g)
    }
    return { geometry: g, toleranceM: bucket }
  }

  /** Records of `type` in force on `d` whose box meets the given box. */
  recordsInBox(type: BoundaryType, minX: number, minY: number, maxX: number, maxY: number, d: string): BoundaryRow[] {
    const ix = this.store.indexes.get(type)
    if (!ix) return []
    const rows = this.store.rows
    return ix.index
      .search(minX, minY, maxX, maxY)
      .map((i) => rows[ix.ids[i]])
      .filter((r) => inForce(r, d))
      .sort((a, b) => a.code.localeCompare(b.code) || a.id - b.id)
  }
}
