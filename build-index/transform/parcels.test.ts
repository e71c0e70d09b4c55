import { describe, expect, it } from 'vitest'
import { containsPoint } from '../../src/geo/polygon.js'
import { metresPerDegree } from '../../src/geo/geodesic.js'
import { normaliseParcel } from './parcels.js'

/**
 * Label points from the source (issue #39 item 5): a `tag_x`/`tag_y` outside its parcel (real
 * Cape Town erven have one in another erf standing in their hole) is replaced by a computed
 * point inside; one inside, or within 2 cm of the boundary, is served as given.
 */
const LPI = 'C01600010000000100000'
// an erf with a hole, as erf 869 holds another erf in real data
const ring = (x: number, y: number, d: number): [number, number][] => [
  [x, y],
  [x, y + d],
  [x + d, y + d],
  [x + d, y],
  [x, y],
]
const withHole = {
  type: 'Polygon' as const,
  coordinates: [ring(18.5, -33.9, 0.001), ring(18.5004, -33.8996, 0.0002).reverse()],
}
const m = metresPerDegree(-33.9)

function label(tagX: number | null, tagY: number | null) {
  const r = normaliseParcel({ id: LPI, lstatus: 'R', wstatus: 'C', tag_x: tagX, tag_y: tagY }, withHole, 'ERF', 'WC')
  if (!r.ok) throw new Error(r.reason)
  return { at: [r.rec.labelLon, r.rec.labelLat] as [number, number], replaced: r.labelReplaced }
}

describe('label points from the source', () => {
  it('serves a source point inside the parcel as given', () => {
    expect(label(18.5001, -33.8999)).toEqual({ at: [18.5001, -33.8999], replaced: false })
  })

  it('replaces a point in the hole (inside another erf) with one inside the parcel', () => {
    const l = label(18.5005, -33.8995)
    expect(l.replaced).toBe(true)
    expect(containsPoint([withHole.coordinates], ...l.at)).toBe(true)
  })

  it('replaces a point in a neighbour, 5 cm past the edge; keeps one 1 cm past it (the 2 cm rule)', () => {
    const east = 18.501
    expect(label(east + 0.05 / m.lon, -33.8995).replaced).toBe(true)
    const near = label(east + 0.01 / m.lon, -33.8995)
    expect(near.replaced).toBe(false)
  })

  it('computes one when the source has none, without counting it as replaced', () => {
    const l = label(null, null)
    expect(l.replaced).toBe(false)
    expect(containsPoint([withHole.coordinates], ...l.at)).toBe(true)
  })
})
