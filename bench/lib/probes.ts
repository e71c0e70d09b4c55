/**
 * Seeded probe points around real features: most within some metres of a feature's label
 * point (uniform over the disc), the rest uniform over a box.
 *
 * @module
 */
import { metresPerDegree } from '../../src/geo/geodesic.js'
import type { KindedProbes } from './measure.js'
import type { Random } from './prng.js'

/** Probe points; `kind` 0 = near a feature, 1 = uniform over the box. */
export interface PointProbes extends KindedProbes {
  lon: Float64Array
  lat: Float64Array
}

export interface NearOrUniformOptions {
  /** share of probes placed near a feature */
  nearShare: number
  /** near probes land within this distance (m) of the label point */
  nearMaxM: number
  /** draws a feature's label point `[lon, lat]` (from `rnd`, which it may use) */
  pick: () => readonly [number, number]
  /** the box of the uniform probes: `[minLon, minLat, maxLon, maxLat]` */
  extent: readonly [number, number, number, number]
}

/**
 * `count` probes drawn from `rnd`, in this order for each: the near-or-uniform draw, then either
 * the label point (`pick`), the distance and the bearing, or the longitude and the latitude.
 */
export function nearOrUniformProbes(rnd: Random, count: number, o: NearOrUniformOptions): PointProbes {
  const lon = new Float64Array(count)
  const lat = new Float64Array(count)
  const kind = new Uint8Array(count)
  for (let k = 0; k < count; k++) {
    if (rnd.float() < o.nearShare) {
      const [x, y] = o.pick()
      const d = o.nearMaxM * Math.sqrt(rnd.float())
      const a = rnd.range(0, 2 * Math.PI)
      const m = metresPerDegree(y)
      lon[k] = x + (d * Math.cos(a)) / m.lon
      lat[k] = y + (d * Math.sin(a)) / m.lat
    } else {
      lon[k] = rnd.range(o.extent[0], o.extent[2])
      lat[k] = rnd.range(o.extent[1], o.extent[3])
      kind[k] = 1
    }
  }
  return { lon, lat, kind, length: count }
}
