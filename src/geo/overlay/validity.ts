/**
 * Validation of user geometry: the problems of a line or polygon as messages naming the place
 * (self-intersections, unclosed or degenerate rings, holes outside or touching the shell).
 */
import { locatePoint, type Polygon } from '../polygon.js'
import { chainContacts, ringsContacts, type RingContact } from './contacts.js'
import type { LineString } from './types.js'

/** Places listed per self-intersecting ring or line before "in further places". */
const MAX_PLACES = 3

const place = (p: [number, number]) => `${p[0].toFixed(5)},${p[1].toFixed(5)}`

function finitePositionProblems(pts: [number, number][], what: string): string[] {
  const out: string[] = []
  pts.forEach((p, i) => {
    if (!Array.isArray(p) || p.length < 2 || !Number.isFinite(p[0]) || !Number.isFinite(p[1]))
      out.push(`${what}position ${i} is not a finite [lon, lat] pair`)
  })
  return out
}

function selfCrossingProblems(pts: [number, number][], closed: boolean, what: string): string[] {
  const hits = chainContacts(pts, closed, MAX_PLACES + 1)
  const out = hits.slice(0, MAX_PLACES).map((p) => `${what} crosses itself near ${place(p)}`)
  if (hits.length > MAX_PLACES) out.push(`${what} crosses itself in further places`)
  return out
}

/**
 * Problems of a user's line, as messages naming the place; [] when fine. Consecutive duplicate
 * positions are fine; fewer than 2 distinct positions and self-intersections (non-adjacent
 * segments crossing or touching, or the line doubling back) are not.
 */
export function lineProblems(line: LineString): string[] {
  const bad = finitePositionProblems(line, '')
  if (bad.length) return bad
  if (new Set(line.map(([x, y]) => `${x},${y}`)).size < 2) return ['line has fewer than 2 distinct positions']
  return selfCrossingProblems(line, false, 'line')
}

/**
 * Problems of a user's polygon (shell first, then holes), as messages naming the ring and
 * place; [] when fine: rings with fewer than 4 positions, unclosed or with fewer than 3
 * distinct positions; rings crossing or touching themselves; holes outside the shell, or
 * crossing or touching it or each other. Winding is not checked (it is repaired, not rejected).
 */
export function polygonProblems(poly: Polygon): string[] {
  if (poly.length === 0) return ['polygon has no rings']
  const out: string[] = []
  const ok: boolean[] = []
  poly.forEach((ring, r) => {
    const bad = finitePositionProblems(ring, `ring ${r} `)
    const before = out.length
    if (bad.length) out.push(...bad)
    else if (ring.length < 4) out.push(`ring ${r} has ${ring.length} positions; a ring needs at least 4`)
    else if (ring[0][0] !== ring[ring.length - 1][0] || ring[0][1] !== ring[ring.length - 1][1])
      out.push(`ring ${r} is not closed: its first and last positions differ`)
    else if (new Set(ring.map(([x, y]) => `${x},${y}`)).size < 3)
      out.push(`ring ${r} has fewer than 3 distinct positions`)
    else out.push(...selfCrossingProblems(ring, true, `ring ${r}`))
    ok.push(out.length === before)
  })
  // every pair of sound rings that meet, from one index (pairwise tests were quadratic in the holes)
  const contacts = ringsContacts(poly, (r) => ok[r])
  let c = 0
  for (let h = 1; h < poly.length; h++) {
    if (!ok[h]) continue
    const mine: RingContact[] = []
    while (c < contacts.length && contacts[c].a === h) mine.push(contacts[c++])
    if (ok[0]) {
      const shell = mine.find((m) => m.b === 0)
      if (shell) out.push(`ring ${h} (a hole) crosses or touches the shell near ${place(shell.at)}`)
      else if (locatePoint([[poly[0]]], poly[h][0][0], poly[h][0][1]) < 0)
        out.push(`ring ${h} (a hole) lies outside the shell`)
    }
    for (const m of mine) if (m.b > 0) out.push(`ring ${h} crosses or touches ring ${m.b} near ${place(m.at)}`)
  }
  return out
}
