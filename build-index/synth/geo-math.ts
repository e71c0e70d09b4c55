/**
 * Small, fast geometry for the generator: lon/lat ↔ local metres, great-circle distance, and a
 * point-in-polygon index for the Natural Earth outlines. Pure functions, no I/O.
 *
 * @module
 */

/** GeoJSON Polygon or MultiPolygon geometry (WGS84 lon/lat). */
export type PolygonalGeometry =
  | { type: 'Polygon'; coordinates: number[][][] }
  | { type: 'MultiPolygon'; coordinates: number[][][][] }

const EARTH_RADIUS_M = 6_371_008.8
const DEG = Math.PI / 180

/** Metres per degree of latitude and of longitude at latitude `lat` (WGS84 series). */
export function metresPerDegree(lat: number): { lat: number; lon: number } {
  const phi = lat * DEG
  return {
    lat: 111_132.92 - 559.82 * Math.cos(2 * phi) + 1.175 * Math.cos(4 * phi),
    lon: 111_412.84 * Math.cos(phi) - 93.5 * Math.cos(3 * phi),
  }
}

/** Great-circle (haversine) distance in metres between two lon/lat points. */
export function haversineM(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const dLat = (lat2 - lat1) * DEG
  const dLon = (lon2 - lon1) * DEG
  const s = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * DEG) * Math.cos(lat2 * DEG) * Math.sin(dLon / 2) ** 2
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(s)))
}

/**
 * A local tangent-plane frame around an origin: metres east/north ↔ lon/lat. Accurate to well
 * under a metre over the 25 km a town or township spans.
 */
export class LocalFrame {
  readonly mLat: number
  readonly mLon: number
  constructor(
    readonly lon0: number,
    readonly lat0: number,
  ) {
    const m = metresPerDegree(lat0)
    this.mLat = m.lat
    this.mLon = m.lon
  }
  /** Longitude of a point `x` metres east of the origin. */
  lon(x: number): number {
    return this.lon0 + x / this.mLon
  }
  /** Latitude of a point `y` metres north of the origin. */
  lat(y: number): number {
    return this.lat0 + y / this.mLat
  }
  /** Metres east of the origin. */
  x(lon: number): number {
    return (lon - this.lon0) * this.mLon
  }
  /** Metres north of the origin. */
  y(lat: number): number {
    return (lat - this.lat0) * this.mLat
  }
}

interface Ring {
  /** flat [lon0, lat0, lon1, lat1, …], closed (last = first) */
  coords: Float64Array
  bbox: [number, number, number, number]
}

/**
 * A Polygon or MultiPolygon prepared for fast queries: even-odd point-in-polygon with a bbox
 * prefilter, distance to the boundary, and extraction of the boundary edges near a point.
 */
export class Polygonal {
  readonly bbox: [number, number, number, number]
  private readonly rings: Ring[] = []

  constructor(readonly geometry: PolygonalGeometry) {
    const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates
    const bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity]
    for (const polygon of polygons) {
      for (const ring of polygon) {
        if (ring.length < 4) continue
        const closed = ring[0][0] === ring[ring.length - 1][0] && ring[0][1] === ring[ring.length - 1][1]
        const n = closed ? ring.length : ring.length + 1
        const coords = new Float64Array(n * 2)
        const rb: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity]
        for (let i = 0; i < n; i++) {
          const p = ring[i % ring.length]
          coords[2 * i] = p[0]
          coords[2 * i + 1] = p[1]
          if (p[0] < rb[0]) rb[0] = p[0]
          if (p[1] < rb[1]) rb[1] = p[1]
          if (p[0] > rb[2]) rb[2] = p[0]
          if (p[1] > rb[3]) rb[3] = p[1]
        }
        this.rings.push({ coords, bbox: rb })
        bbox[0] = Math.min(bbox[0], rb[0])
        bbox[1] = Math.min(bbox[1], rb[1])
        bbox[2] = Math.max(bbox[2], rb[2])
        bbox[3] = Math.max(bbox[3], rb[3])
      }
    }
    this.bbox = bbox
  }

  /**
   * True when the point is inside (even-odd rule over all rings, so holes and separate parts
   * both work). Points exactly on an edge may go either way.
   */
  contains(lon: number, lat: number): boolean {
    const b = this.bbox
    if (lon < b[0] || lon > b[2] || lat < b[1] || lat > b[3]) return false
    let inside = false
    for (const ring of this.rings) {
      const rb = ring.bbox
      if (lat < rb[1] || lat > rb[3] || lon > rb[2]) continue
      const c = ring.coords
      for (let i = 0, n = c.length - 2; i < n; i += 2) {
        const y1 = c[i + 1]
        const y2 = c[i + 3]
        // half-open rule on y so a ray through a vertex counts once
        if (y1 > lat !== y2 > lat) {
          const x1 = c[i]
          const xCross = x1 + ((lat - y1) * (c[i + 2] - x1)) / (y2 - y1)
          if (lon < xCross) inside = !inside
        }
      }
    }
    return inside
  }

  /** Shortest distance in metres from the point to any boundary edge (local planar approximation). */
  distanceToBoundaryM(lon: number, lat: number): number {
    const m = metresPerDegree(lat)
    let best = Infinity
    for (const ring of this.rings) {
      const c = ring.coords
      for (let i = 0, n = c.length - 2; i < n; i += 2) {
        const ax = (c[i] - lon) * m.lon
        const ay = (c[i + 1] - lat) * m.lat
        const bx = (c[i + 2] - lon) * m.lon
        const by = (c[i + 3] - lat) * m.lat
        const dx = bx - ax
        const dy = by - ay
        const len2 = dx * dx + dy * dy
        let t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0
        if (t < 0) t = 0
        else if (t > 1) t = 1
        const px = ax + t * dx
        const py = ay + t * dy
        const d2 = px * px + py * py
        if (d2 < best) best = d2
      }
    }
    return Math.sqrt(best)
  }

  /**
   * Boundary edges that touch `bbox` ([minLon, minLat, maxLon, maxLat]), flat as
   * [x1, y1, x2, y2, …]. With {@link segmentCrossesEdgesOddTimes} this tests many points near
   * a known inside point without scanning the whole outline each time.
   */
  edgesNear(bbox: [number, number, number, number]): Float64Array {
    const out: number[] = []
    for (const ring of this.rings) {
      const rb = ring.bbox
      if (rb[2] < bbox[0] || rb[0] > bbox[2] || rb[3] < bbox[1] || rb[1] > bbox[3]) continue
      const c = ring.coords
      for (let i = 0, n = c.length - 2; i < n; i += 2) {
        const x1 = c[i]
        const y1 = c[i + 1]
        const x2 = c[i + 2]
        const y2 = c[i + 3]
        if (Math.max(x1, x2) < bbox[0] || Math.min(x1, x2) > bbox[2]) continue
        if (Math.max(y1, y2) < bbox[1] || Math.min(y1, y2) > bbox[3]) continue
        out.push(x1, y1, x2, y2)
      }
    }
    return Float64Array.from(out)
  }
}

/**
 * True when segment (ax, ay)–(bx, by) crosses the given edges an odd number of times, i.e. when
 * b is on the other side of the boundary from a. If `a` is known to be inside, `b` is inside
 * exactly when this returns false. Edges must cover the segment's bbox ({@link Polygonal.edgesNear}).
 */
export function segmentCrossesEdgesOddTimes(
  ax: number,
  ay: number,
  bx: number,
  by: number,
  edges: Float64Array,
): boolean {
  const dx = bx - ax
  const dy = by - ay
  let odd = false
  for (let i = 0; i < edges.length; i += 4) {
    const ex1 = edges[i]
    const ey1 = edges[i + 1]
    const ex2 = edges[i + 2]
    const ey2 = edges[i + 3]
    // which side of the segment's line each edge end lies on; half-open so a shared vertex counts once
    const s1 = dx * (ey1 - ay) - dy * (ex1 - ax) > 0
    const s2 = dx * (ey2 - ay) - dy * (ex2 - ax) > 0
    if (s1 === s2) continue
    // and the segment's ends must straddle the edge's line
    const fx = ex2 - ex1
    const fy = ey2 - ey1
    const t1 = fx * (ay - ey1) - fy * (ax - ex1)
    const t2 = fx * (by - ey1) - fy * (bx - ex1)
    if (t1 > 0 !== t2 > 0) odd = !odd
  }
  return odd
}

/**
 * A fast inside test for points within `radiusM` of (lon0, lat0): when the outline is farther
 * than that the answer is constant; otherwise only the nearby edges are kept and each point is
 * decided by how often the segment from (lon0, lat0) to it crosses them.
 */
export function insideTestNear(
  outline: Polygonal,
  lon0: number,
  lat0: number,
  radiusM: number,
): (lon: number, lat: number) => boolean {
  const inside0 = outline.contains(lon0, lat0)
  if (outline.distanceToBoundaryM(lon0, lat0) > radiusM) return () => inside0
  const m = metresPerDegree(lat0)
  // 2 km margin: the metre/degree scale varies a little across the box
  const padLon = (radiusM + 2000) / m.lon
  const padLat = (radiusM + 2000) / m.lat
  const edges = outline.edgesNear([lon0 - padLon, lat0 - padLat, lon0 + padLon, lat0 + padLat])
  return (lon, lat) => inside0 !== segmentCrossesEdgesOddTimes(lon0, lat0, lon, lat, edges)
}
