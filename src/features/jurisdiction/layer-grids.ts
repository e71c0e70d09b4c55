/**
 * Point-in-boundary tests per layer: a uniform grid per boundary type and source set over the
 * boxes of its records, the banded polygons points are tested against, and the two questions
 * the chain and the parcel straddle check ask (the record holding a point; every record holding it).
 */
import type Database from 'better-sqlite3'
import type Flatbush from 'flatbush'
import type { BoundaryType } from '../../data/jurisdiction-format.js'
import { decodeGeometry } from '../../data/geometry-blob.js'
import { BandedPolygon } from '../../geo/banded-pip.js'
import { GridIndex } from '../../geo/grid-index.js'
import { ON_EDGE_DEG } from '../../geo/polygon.js'
import { inForce, type BoundaryRow } from './records.js'

/** A type's box index read from the dataset: the flatbush tree and the record id of each of its items. */
export interface LayerIndex {
  index: Flatbush
  ids: Uint32Array
}

// point queries go through a uniform grid per type and source set (one cell read, no tree
// walk, no allocation); a query reads only the grids of the sets in force on its date
interface SetGrid {
  grid: GridIndex
  ids: Uint32Array
  /** the widest dates of the set's records, to skip grids not in force */
  from: string | null
  to: string | null
  /** every record has exactly those dates: in force whenever the grid is (no test per record) */
  sameDates: boolean
}

const EDGE_TOL = 2 * ON_EDGE_DEG

/** The grids of one open dataset, built once with its service. */
export class LayerGrids {
  private readonly grids = new Map<BoundaryType, SetGrid[]>()
  /** The grids in force on a date, per type (kept for the last date asked: a batch asks one). */
  private gridsDate: string | null = null
  private gridsInForce = new Map<BoundaryType, SetGrid[]>()
  // the boundaries points were tested against, kept banded for constant-time tests (at national
  // scale every boundary with geometry fits in a few tens of MB)
  // (indexed by id: an array read, not a map lookup, on the hot path)
  private readonly banded: (BandedPolygon | undefined)[]

  constructor(
    private readonly rows: readonly BoundaryRow[],
    indexes: ReadonlyMap<BoundaryType, LayerIndex>,
    /** `SELECT geom FROM boundary WHERE id = ?`, plucked */
    private readonly geomStmt: Database.Statement,
  ) {
    this.banded = new Array(rows.length)
    for (const [t, ix] of indexes) {
      const bySet = new Map<string, number[]>()
      for (const id of ix.ids) {
        const l = bySet.get(rows[id].setName)
        if (l) l.push(id)
        else bySet.set(rows[id].setName, [id])
      }
      const list: SetGrid[] = []
      for (const ids of bySet.values()) {
        const boxes = new Float64Array(ids.length * 4)
        ids.forEach((id, i) => {
          boxes.set(rows[id].bbox!, 4 * i)
        })
        const froms = ids.map((id) => rows[id].from)
        const tos = ids.map((id) => rows[id].to)
        const from = froms.includes(null) ? null : froms.reduce((a, b) => (a! < b! ? a : b))
        const to = tos.includes(null) ? null : tos.reduce((a, b) => (a! > b! ? a : b))
        list.push({
          grid: new GridIndex(boxes),
          ids: new Uint32Array(ids),
          from,
          to,
          sameDates: froms.every((f) => f === from) && tos.every((x) => x === to),
        })
      }
      this.grids.set(t, list)
    }
  }

  private bandedOf(id: number): BandedPolygon {
    return (this.banded[id] ??= new BandedPolygon(decodeGeometry(this.geomStmt.get(id) as Uint8Array)))
  }

  private gridsOn(d: string): Map<BoundaryType, SetGrid[]> {
    if (d !== this.gridsDate) {
      this.gridsInForce = new Map([...this.grids].map(([t, list]) => [t, list.filter((g) => inForce(g, d))]))
      this.gridsDate = d
    }
    return this.gridsInForce
  }

  /** Every record of `type` in force on `d` whose closed polygon holds the point. */
  containing(type: BoundaryType, lon: number, lat: number, d: string): BoundaryRow[] {
    const out: BoundaryRow[] = []
    for (const g of this.grids.get(type) ?? []) {
      if (!inForce(g, d)) continue
      g.grid.forEachAt(
        lon,
        lat,
        (i) => {
          const r = this.rows[g.ids[i]]
          if (inForce(r, d) && this.bandedOf(r.id).contains(lon, lat)) out.push(r)
        },
        EDGE_TOL,
      )
    }
    return out
  }

  /**
   * The record of `type` in force on `d` holding the point; on a shared edge the one with the
   * lowest code (docs/decisions.md), so a coordinate always gives the same answer.
   */
  pip(type: BoundaryType, lon: number, lat: number, d: string): BoundaryRow | null {
    const list = this.gridsOn(d).get(type)
    if (list === undefined) return null
    const rows = this.rows
    let best: BoundaryRow | null = null
    // GridIndex.forEachAt(lon, lat, …, EDGE_TOL) written out: this runs several times per point
    for (let gi = 0; gi < list.length; gi++) {
      const g = list[gi]
      const grid = g.grid
      const k = grid.cellAt(lon, lat, EDGE_TOL)
      if (k < 0) continue
      const { items, boxes, offsets } = grid
      for (let p = offsets[k], end = offsets[k + 1]; p < end; p++) {
        const i = items[p]
        if (
          lon < boxes[4 * i] - EDGE_TOL ||
          lat < boxes[4 * i + 1] - EDGE_TOL ||
          lon > boxes[4 * i + 2] + EDGE_TOL ||
          lat > boxes[4 * i + 3] + EDGE_TOL
        )
          continue
        const r = rows[g.ids[i]]
        if (best !== null && (r.code > best.code || (r.code === best.code && r.id > best.id))) continue
        if ((g.sameDates || inForce(r, d)) && this.bandedOf(r.id).contains(lon, lat)) best = r
      }
    }
    return best
  }
}
