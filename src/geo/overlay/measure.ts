/**
 * Lengths and areas of lines and polygons on [lon, lat] degrees.
 *
 * Measures (docs/decisions.md "Geometry and numbers"): lengths are WGS84 geodesic distances summed
 * per segment; areas are computed on the authalic sphere (the sphere with the ellipsoid's area,
 * reached through the authalic latitude, so area is preserved exactly) with great-circle edges.
 * That agrees with GeographicLib's ellipsoidal polygon area to 3e-7 from 100 m² to 2 500 km²
 * (below 100 m² GeographicLib's own ~1e-4 m² error dominates; a local plane agrees to 2e-7). A
 * ring with an edge longer than {@link LONG_EDGE_M} goes to GeographicLib itself, because a long
 * geodesic and its authalic great circle drift apart (3e-4 of a thin 150 km triangle).
 */
import geographiclib from 'geographiclib-geodesic'
import { fastGeodesicM, metresPerDegree } from '../geodesic.js'
import type { MultiPolygon, Ring } from '../polygon.js'
import type { MultiLineString } from './types.js'

const { Geodesic } = geographiclib

/** A ring with an edge longer than this is measured with GeographicLib rather than on the authalic sphere. */
export const LONG_EDGE_M = 10_000

const RAD = Math.PI / 180

/** Geodesic length in metres (WGS84), summed per segment. */
export function lineLengthM(ml: MultiLineString): number {
  let total = 0
  for (const line of ml)
    for (let i = 0; i + 1 < line.length; i++)
      total += fastGeodesicM(line[i][0], line[i][1], line[i + 1][0], line[i + 1][1])
  return total
}

// WGS84 and its authalic sphere (authalic latitude β: sin β = q(φ) / q(90°), Snyder, Map Projections: A Working Manual,
// 1987)
const WGS_A = 6378137
const WGS_E2 = (1 / 298.257223563) * (2 - 1 / 298.257223563)
const WGS_E = Math.sqrt(WGS_E2)
const QP = 1 + ((1 - WGS_E2) * Math.atanh(WGS_E)) / WGS_E
const AUTHALIC_R2 = (WGS_A * WGS_A * QP) / 2

/** tan(β/2) of the authalic latitude β of a geodetic latitude in degrees. */
function authalicHalfTan(lat: number): number {
  const s = Math.sin(lat * RAD)
  const q = (1 - WGS_E2) * (s / (1 - WGS_E2 * s * s) + Math.atanh(WGS_E * s) / WGS_E)
  const sinB = q / QP
  return sinB / (1 + Math.sqrt(Math.max(0, 1 - sinB * sinB)))
}

function geographicLibRingSqm(ring: Ring): number {
  const p = Geodesic.WGS84.Polygon(false)
  const n = ring.length - (ring[0][0] === ring[ring.length - 1][0] && ring[0][1] === ring[ring.length - 1][1] ? 1 : 0)
  for (let i = 0; i < n; i++) p.AddPoint(ring[i][1], ring[i][0])
  return Math.abs(p.Compute(false, true).area ?? 0)
}

/** Unsigned area of one ring (closed or not) in m². */
function ringAreaSqm(ring: Ring): number {
  const n = ring.length
  if (n < 3) return 0
  const k = metresPerDegree(ring[0][1])
  let sum = 0
  let t1 = authalicHalfTan(ring[0][1])
  for (let i = 0; i < n; i++) {
    const p = ring[i]
    const q = ring[i + 1 === n ? 0 : i + 1]
    const dx = (q[0] - p[0]) * k.lon
    const dy = (q[1] - p[1]) * k.lat
    if (dx * dx + dy * dy > LONG_EDGE_M * LONG_EDGE_M) return geographicLibRingSqm(ring)
    // signed area between the great-circle edge and the equator: tan(E/2) = tan(Δλ/2)(t1 + t2)/(1 + t1 t2)
    const t2 = authalicHalfTan(q[1])
    sum += 2 * Math.atan2(Math.tan(((q[0] - p[0]) * RAD) / 2) * (t1 + t2), 1 + t1 * t2)
    t1 = t2
  }
  return Math.abs(sum) * AUTHALIC_R2
}

/**
 * Area in m² on the WGS84 ellipsoid: shells minus holes, whatever their winding. Authalic sphere
 * with great-circle edges (within 3e-7 of GeographicLib from 100 m² to 2 500 km², within 1e-4 m²
 * below), GeographicLib for rings with edges over {@link LONG_EDGE_M}.
 */
export function areaSqm(mp: MultiPolygon): number {
  let total = 0
  for (const poly of mp) for (let r = 0; r < poly.length; r++) total += (r === 0 ? 1 : -1) * ringAreaSqm(poly[r])
  return total
}
