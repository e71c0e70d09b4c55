/**
 * The differential tests' own geometry, independent of src/geo: GeographicLib for lengths,
 * azimuths and the scale of a local plane, @turf/intersect for clipping in that plane, and a
 * planar shoelace for areas. Nothing here calls the code under test.
 */
import intersect from '@turf/intersect'
import geographiclib from 'geographiclib-geodesic'

const { Geodesic } = geographiclib
const G = Geodesic.WGS84

export type XY = [number, number]
/** Planar rings, polygons (shell first) and multipolygons, in metres. */
export type PRing = XY[]
export type PPoly = PRing[]
export type PMulti = PPoly[]

/** Rounded to the storage grid of 1e-7°. */
export const round7 = (v: number) => Math.round(v * 1e7) / 1e7

/** WGS84 geodesic distance in metres between two [lon, lat] positions (GeographicLib). */
export const geodesicM = (a: XY, b: XY): number => G.Inverse(a[1], a[0], b[1], b[0]).s12 as number

/** Azimuths in degrees of the geodesic a → b, at a (out) and at b (in). */
export function azimuths(a: XY, b: XY): { out: number; in: number } {
  const g = G.Inverse(a[1], a[0], b[1], b[0])
  return { out: g.azi1 as number, in: g.azi2 as number }
}

/** The position `s` metres from `p` on azimuth `azi` degrees, rounded to the storage grid. */
export function destination(p: XY, azi: number, s: number): XY {
  const g = G.Direct(p[1], p[0], azi, s)
  return [round7(g.lon2 as number), round7(g.lat2 as number)]
}

/** An angle in degrees brought into (-180, 180]. */
export const wrap180 = (d: number) => {
  const x = ((((d + 180) % 360) + 360) % 360) - 180
  return x === -180 ? 180 : x
}

/**
 * A local plane around (lon0, lat0): x east and y north in metres, affine to degrees, with the
 * scales measured by GeographicLib over ±50 m. Straight edges in degrees stay straight here;
 * a kilometre north or south the east scale is off by 1e-4 at most.
 */
export class Plane {
  readonly kx: number
  readonly ky: number
  constructor(
    readonly lon0: number,
    readonly lat0: number,
  ) {
    const d = 0.0005
    this.kx = (G.Inverse(lat0, lon0 - d, lat0, lon0 + d).s12 as number) / (2 * d)
    this.ky = (G.Inverse(lat0 - d, lon0, lat0 + d, lon0).s12 as number) / (2 * d)
  }
  /** The stored position (rounded to 1e-7°) of the point (x, y) metres. */
  deg(x: number, y: number): XY {
    return [round7(this.lon0 + x / this.kx), round7(this.lat0 + y / this.ky)]
  }
  /** A stored position in the plane's metres. */
  xy(p: XY): XY {
    return [(p[0] - this.lon0) * this.kx, (p[1] - this.lat0) * this.ky]
  }
  ring(r: PRing): XY[] {
    return r.map(([x, y]) => this.deg(x, y))
  }
  back(r: XY[]): PRing {
    return r.map((p) => this.xy(p))
  }
}

/** Signed shoelace area of a ring (closed or not), > 0 counter-clockwise. */
export function shoelace(r: PRing): number {
  let s = 0
  for (let i = 0, n = r.length; i < n; i++) {
    const [x0, y0] = r[i]
    const [x1, y1] = r[(i + 1) % n]
    s += x0 * y1 - x1 * y0
  }
  return s / 2
}

/** Area of planar polygons: shells minus holes, whatever the winding. */
export const planarArea = (mp: PMulti): number =>
  mp.reduce((t, poly) => t + poly.reduce((u, r, i) => u + (i === 0 ? 1 : -1) * Math.abs(shoelace(r)), 0), 0)

export const perimeter = (r: PRing): number => {
  let s = 0
  for (let i = 0; i + 1 < r.length; i++) s += Math.hypot(r[i + 1][0] - r[i][0], r[i + 1][1] - r[i][1])
  return s
}

const closed = (r: PRing): PRing =>
  r[0][0] === r[r.length - 1][0] && r[0][1] === r[r.length - 1][1] ? r : [...r, r[0]]

/** The intersection of all the planar polygons given, by @turf/intersect ([] when empty). */
export function clipAll(...shapes: PMulti[]): PMulti {
  const features = shapes.map((mp) => ({
    type: 'Feature' as const,
    properties: {},
    geometry: { type: 'MultiPolygon' as const, coordinates: mp.map((poly) => poly.map(closed)) },
  }))
  const out = intersect({ type: 'FeatureCollection', features })
  if (!out) return []
  const g = out.geometry
  return g.type === 'Polygon' ? [g.coordinates as PPoly] : (g.coordinates as PMulti)
}

/** A closed counter-clockwise rectangle centred at (cx, cy), `a` × `b` metres, turned by `rot` radians. */
export function rotatedRect(cx: number, cy: number, a: number, b: number, rot: number): PRing {
  const c = Math.cos(rot)
  const s = Math.sin(rot)
  const at = (u: number, v: number): XY => [cx + u * c - v * s, cy + u * s + v * c]
  return [at(-a / 2, -b / 2), at(a / 2, -b / 2), at(a / 2, b / 2), at(-a / 2, b / 2), at(-a / 2, -b / 2)]
}

/** A star-shaped closed ring of n vertices at radii (0.6–1) × size around (cx, cy), counter-clockwise. */
export function starRing(r: () => number, cx: number, cy: number, n: number, size: number): PRing {
  const ring: PRing = []
  for (let k = 0; k < n; k++) {
    const ang = (2 * Math.PI * k) / n
    const rad = size * (0.6 + 0.4 * r())
    ring.push([cx + rad * Math.cos(ang), cy + rad * Math.sin(ang)])
  }
  ring.push(ring[0])
  return ring
}
