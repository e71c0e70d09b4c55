/** Agreement checks: one probe's answers on both sides, and why a corridor uid is met on one side only. */
import { EDGE_TOL_M } from '../../../src/geo/overlay/tolerance.js'
import { RADIUS_LIMIT, RADIUS_M } from '../plots.js'
import { DIST_TOL_M, type Answer, type DifferenceKind, type OpName } from './model.js'

export type Verdict = 'agreed' | 'tolerated' | 'disagreed'

/**
 * One probe's answers, ours and PostGIS's (its ids in its own order; `at` sorted by id; `corridor`: the uid sets, edge
 * cases settled by {@link explainDifference}).
 */
export function compare(op: OpName, ours: Answer, theirs: Answer): Verdict {
  if (op === 'corridor') {
    const b = new Set(theirs.ids)
    return ours.ids.length === b.size && ours.ids.every((v) => b.has(v)) ? 'agreed' : 'disagreed'
  }
  if (op === 'at') {
    const a = [...ours.ids].sort((x, y) => x - y)
    return a.length === theirs.ids.length && a.every((v, i) => v === theirs.ids[i]) ? 'agreed' : 'disagreed'
  }
  if (op === 'nearest') {
    if (!ours.ids.length || !theirs.ids.length) return ours.ids.length === theirs.ids.length ? 'agreed' : 'disagreed'
    if (ours.ids[0] === theirs.ids[0]) return 'agreed'
    return Math.abs(ours.d![0] - theirs.d![0]) <= DIST_TOL_M ? 'tolerated' : 'disagreed'
  }
  // radius: same id set; ids only on one side must sit on an edge (the 500 m circle, or the
  // distance of the last of a full page) within the centimetre our distances are rounded to
  const a = new Set(ours.ids)
  const b = new Set(theirs.ids)
  if (a.size === b.size && [...a].every((v) => b.has(v))) return 'agreed'
  const edges = [RADIUS_M]
  if (ours.ids.length === RADIUS_LIMIT) edges.push(ours.d!.at(-1)!)
  if (theirs.ids.length === RADIUS_LIMIT) edges.push(theirs.d!.at(-1)!)
  const onEdge = (d: number) => edges.some((e) => Math.abs(d - e) <= DIST_TOL_M)
  const only = [
    ...ours.ids.map((id, i) => (b.has(id) ? null : ours.d![i])),
    ...theirs.ids.map((id, i) => (a.has(id) ? null : theirs.d![i])),
  ]
  return only.every((d) => d === null || onEdge(d)) ? 'tolerated' : 'disagreed'
}

/**
 * Why a uid is met on one side only. Ours (geo/overlay) counts a record within {@link EDGE_TOL_M}
 * of the route as touching it, and draws every edge straight in lon/lat; PostGIS geography meets
 * exactly, on great-circle arcs. So: listed by ours only and within the tolerance (half a
 * centimetre of slack), on the spheroid or with straight edges: 'tolerance'; met with straight
 * edges (PostGIS geometry) but not on geography, or the reverse, the same way round as the two
 * sides: 'edge model'; anything else: 'unexplained'. `planarGapM`: the straight-edge gap in
 * metres, its lower bound (degrees times the shorter metres-per-degree).
 */
export function explainDifference(
  side: 'ours' | 'PostGIS',
  gapM: number,
  planarMeets: boolean,
  planarGapM: number,
): DifferenceKind {
  const near = EDGE_TOL_M + 0.005
  if (side === 'ours') {
    if (gapM <= near) return 'tolerance'
    if (planarMeets) return 'edge model'
    return planarGapM <= near ? 'tolerance' : 'unexplained'
  }
  return planarMeets ? 'unexplained' : 'edge model'
}
