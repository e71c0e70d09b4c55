/**
 * `/intersect`'s candidates: the records and parcels whose box the caller's route or area reaches,
 * gathered from the indexes before any geometry is read, and the work bounds that apply as they
 * are gathered (docs/api.md "Bounded work"). One helper serves the four cases, route or area
 * against the encumbrance or the parcel indexes: a {@link Reach} says which boxes the geometry
 * searches and which candidate boxes it meets, {@link Candidates.gather} reads an index with it.
 *
 * @module
 */
import type Flatbush from 'flatbush'
import { cellsOverPolygon } from '../../geo/cells.js'
import { segmentMeetsBox, type Lines } from '../../geo/lines.js'
import type { PreparedPolygon } from '../../geo/overlay/prepared.js'
import { NEAR_BOX_M } from '../../geo/overlay/tolerance.js'

/** /intersect stops listing after this many parcels or encumbrances and says so. */
export const INTERSECT_MAX_PARCELS = 10_000
export const INTERSECT_MAX_ENCUMBRANCES = 5_000
/**
 * Candidates gathered from the indexes before any geometry is read: past these the list is cut
 * and flagged truncated, so the work of one request is bounded whatever its shape (docs/api.md
 * "Bounded work").
 */
export const INTERSECT_MAX_PARCEL_CANDIDATES = 4 * INTERSECT_MAX_PARCELS
export const INTERSECT_MAX_ENCUMBRANCE_CANDIDATES = 4 * INTERSECT_MAX_ENCUMBRANCES
/**
 * The edges of the caller's area an overlay may handle, summed over the parcels and records it
 * is clipped with (each counts the area's edges within its box, its holes' with its shell's).
 * Clipping costs about 35 µs per such edge on the sample township (2 cores): the budget holds a
 * request to about 1.5 s, where an outline of thousands of vertices a metre apart over a
 * township (a comb) took 8-30 s; a 2 500 km² square over Johannesburg charges 137, a 1 500 km
 * sliver 120 (docs/api.md "Bounded work").
 */
export const INTERSECT_MAX_OVERLAY_EDGES = 40_000

/** Thrown when an area would need more overlay work than INTERSECT_MAX_OVERLAY_EDGES. */
export class OverlayTooComplex extends Error {
  constructor(readonly edges: number) {
    super(
      `the area's outline meets the parcels and records under it ${edges} times; at most ${INTERSECT_MAX_OVERLAY_EDGES}`,
    )
  }
}

/** How the caller's geometry reaches into an index. */
export interface Reach {
  /** The boxes searched, as [minX, minY, maxX, maxY]. */
  readonly boxes: readonly (readonly [number, number, number, number])[]
  /** Whether a candidate whose box is x0..y1, found through box `k`, is worth reading. */
  meets(k: number, x0: number, y0: number, x1: number, y1: number): boolean
  /** Takes a candidate met: charges the work its overlay will cost; throws when past the budget. */
  admit(x0: number, y0: number, x1: number, y1: number): true
}

/** Longest piece of a route searched with one box, degrees (about 250 m: a longer diagonal's box holds too much). */
const ROUTE_PIECE_DEG = 0.0025

/** The route cut into pieces of at most ROUTE_PIECE_DEG, as [ax, ay, bx, by]. */
export function routePieces(lines: Lines): [number, number, number, number][] {
  const out: [number, number, number, number][] = []
  for (const l of lines)
    for (let i = 0; i + 1 < l.length; i++) {
      const [ax, ay] = l[i]
      const [bx, by] = l[i + 1]
      const k = Math.max(1, Math.ceil(Math.max(Math.abs(bx - ax), Math.abs(by - ay)) / ROUTE_PIECE_DEG))
      for (let j = 0; j < k; j++)
        out.push([
          ax + ((bx - ax) * j) / k,
          ay + ((by - ay) * j) / k,
          ax + ((bx - ax) * (j + 1)) / k,
          ay + ((by - ay) * (j + 1)) / k,
        ])
    }
  return out
}

/**
 * A route searches the box of each of its pieces and meets the candidates whose box a piece
 * passes through (not every candidate of the 500 m cells it crosses: in a township that is ten
 * times as many geometry reads). It builds no cells, and its overlay is measured along its lines
 * in time linear in the vertices near each candidate: nothing to charge.
 */
export function routeReach(lines: Lines): Reach {
  const pieces = routePieces(lines)
  return {
    boxes: pieces.map(([ax, ay, bx, by]) => [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)]),
    meets(k, x0, y0, x1, y1) {
      const [ax, ay, bx, by] = pieces[k]
      return segmentMeetsBox(ax, ay, bx, by, { minX: x0, minY: y0, maxX: x1, maxY: y1 })
    },
    admit: () => true,
  }
}

/**
 * An area searches the cells over it (0.005°, geo/cells.ts) and meets the candidates whose box it
 * comes within NEAR_BOX_M of (the cells along its edges hold many it does not reach). Each
 * candidate taken charges the area's edges within its box against INTERSECT_MAX_OVERLAY_EDGES,
 * for every index this reach serves.
 */
export function areaReach(area: PreparedPolygon): Reach {
  let edges = 0
  return {
    boxes: cellsOverPolygon(area.geometry).map((b) => [b.minX, b.minY, b.maxX, b.maxY]),
    meets: (_k, x0, y0, x1, y1) => area.nearBox(x0, y0, x1, y1, NEAR_BOX_M),
    admit(x0, y0, x1, y1) {
      edges += area.edgesInBox(x0, y0, x1, y1)
      if (edges > INTERSECT_MAX_OVERLAY_EDGES) throw new OverlayTooComplex(edges)
      return true
    },
  }
}

/**
 * The candidates of one kind (records, or parcels) gathered from one index or several: at most
 * `max` (each search admits while fewer were gathered before it), `capped` once one was refused.
 */
export class Candidates {
  readonly ids = new Set<number>()
  capped = false

  constructor(readonly max: number) {}

  /**
   * Adds the items of `index` that the reach meets, as ids `idOf(item)`, when `keep(id)`; an id
   * already gathered is not tested or charged again.
   */
  gather(index: Flatbush, reach: Reach, idOf: (item: number) => number, keep: (id: number) => boolean): void {
    const ids = this.ids
    const room = () => ids.size < this.max || !(this.capped = true)
    reach.boxes.forEach(([minX, minY, maxX, maxY], k) => {
      const take = (i: number, x0: number, y0: number, x1: number, y1: number) => {
        const id = idOf(i)
        return !ids.has(id) && keep(id) && reach.meets(k, x0, y0, x1, y1) && room() && reach.admit(x0, y0, x1, y1)
      }
      for (const i of index.search(minX, minY, maxX, maxY, take)) ids.add(idOf(i))
    })
  }

  /** The ids gathered, ascending. */
  sorted(): number[] {
    return [...this.ids].sort((a, b) => a - b)
  }
}
