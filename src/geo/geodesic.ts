/**
 * Distances on the WGS84 ellipsoid (docs/decisions.md: "geodesic on the WGS84 ellipsoid, as PostGIS
 * geography computes them").
 *
 * `geodesicDistanceM` is Vincenty's inverse formula (1975), accurate to well under a millimetre
 * for the distances this API handles, and about ten times cheaper than Karney's algorithm; the
 * rare nearly-antipodal pair where Vincenty does not converge falls back to GeographicLib.
 * `approxDistanceM` is a local flat-ellipsoid estimate used only to prefilter index hits: its
 * relative error stays below `APPROX_REL_ERROR` within 100 km at South African latitudes.
 */
import geographiclib from 'geographiclib-geodesic'
const { Geodesic } = geographiclib

const A = 6378137
const F = 1 / 298.257223563
const B = A * (1 - F)
const E2 = F * (2 - F)
const RAD = Math.PI / 180

/** Upper bound of |approx - exact| / exact for distances up to {@link APPROX_MAX_M} and |lat| < 60 degrees. */
export const APPROX_REL_ERROR = 0.002
/** The distance up to which {@link APPROX_REL_ERROR} is checked (geodesic.test.ts). */
export const APPROX_MAX_M = 100_000

/** Metres per degree of latitude and of longitude at a latitude (ellipsoidal radii of curvature). */
export function metresPerDegree(lat: number): { lat: number; lon: number } {
  const s = Math.sin(lat * RAD)
  const w = Math.sqrt(1 - E2 * s * s)
  const m = (A * (1 - E2)) / (w * w * w) // meridional radius
  const n = A / w // prime vertical radius
  return { lat: m * RAD, lon: n * Math.cos(lat * RAD) * RAD }
}

/** The latitude nearest a pole at which {@link degreesAround} measures a degree of longitude. */
const POLEWARD_MAX_LAT = 89.9

/**
 * Half-widths in degrees (longitude, latitude) of a box holding every point within `radiusM` of
 * a point at latitude `lat`, bounded everywhere: a degree of longitude is measured at the box's
 * poleward edge (never nearer a pole than {@link POLEWARD_MAX_LAT}) and the longitude half-width
 * is at most 180, so a radius near a pole, where cos(latitude) is 0, never becomes an infinite
 * number of degrees (docs/api.md "Bounded work").
 */
export function degreesAround(lat: number, radiusM: number): { lon: number; lat: number } {
  const dLat = radiusM / metresPerDegree(lat).lat
  const poleward = Math.min(POLEWARD_MAX_LAT, Math.max(Math.abs(lat - dLat), Math.abs(lat + dLat)))
  return { lon: Math.min(180, radiusM / metresPerDegree(poleward).lon), lat: dLat }
}

/**
 * Whether a box (an index's extent) lies farther than `radiusM` from the point: a search that
 * can find nothing need not run (a point at a pole, or off the countries served).
 */
export function beyondReach(
  box: { minX: number; minY: number; maxX: number; maxY: number },
  lon: number,
  lat: number,
  radiusM: number,
): boolean {
  // a margin for the few parts per million by which a geodesic is shorter than a parallel's arc
  const d = degreesAround(lat, radiusM * 1.001 + 1)
  return lat + d.lat < box.minY || lat - d.lat > box.maxY || lon + d.lon < box.minX || lon - d.lon > box.maxX
}

/** Cheap local estimate of the distance in metres; for prefiltering only. */
export function approxDistanceM(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const k = metresPerDegree((lat1 + lat2) / 2)
  const dx = (lon2 - lon1) * k.lon
  const dy = (lat2 - lat1) * k.lat
  return Math.sqrt(dx * dx + dy * dy)
}

/** Below this the local estimate is used as the geodesic distance (see {@link fastGeodesicM}). */
export const SHORT_M = 1000

/**
 * The geodesic distance, cheaply: under {@link SHORT_M} the local ellipsoidal estimate (mid-latitude
 * radii of curvature) agrees with Vincenty to 0.01 mm at |latitude| < 60 degrees (checked in
 * geodesic.test.ts), a thousand times finer than the 2-decimal answers; beyond it, Vincenty.
 */
export function fastGeodesicM(lon1: number, lat1: number, lon2: number, lat2: number): number {
  return geodesicGivenApproxM(approxDistanceM(lon1, lat1, lon2, lat2), lon1, lat1, lon2, lat2)
}

/** {@link fastGeodesicM} for a pair whose `approxDistanceM(lon1, lat1, lon2, lat2)` is already known. */
export function geodesicGivenApproxM(approx: number, lon1: number, lat1: number, lon2: number, lat2: number): number {
  return approx < SHORT_M && Math.abs(lat1) < 60 ? approx : geodesicDistanceM(lon1, lat1, lon2, lat2)
}

/** Geodesic distance in metres between two WGS84 positions (0 for the same point). */
export function geodesicDistanceM(lon1: number, lat1: number, lon2: number, lat2: number): number {
  if (lon1 === lon2 && lat1 === lat2) return 0
  const L = (lon2 - lon1) * RAD
  const tanU1 = (1 - F) * Math.tan(lat1 * RAD)
  const cosU1 = 1 / Math.sqrt(1 + tanU1 * tanU1)
  const sinU1 = tanU1 * cosU1
  const tanU2 = (1 - F) * Math.tan(lat2 * RAD)
  const cosU2 = 1 / Math.sqrt(1 + tanU2 * tanU2)
  const sinU2 = tanU2 * cosU2
  let lambda = L
  let sinSigma = 0
  let cosSigma = 0
  let sigma = 0
  let cos2Alpha = 0
  let cos2SigmaM = 0
  for (let iter = 0; ; iter++) {
    if (iter === 100) return karneyDistanceM(lon1, lat1, lon2, lat2)
    const sinLambda = Math.sin(lambda)
    const cosLambda = Math.cos(lambda)
    const t1 = cosU2 * sinLambda
    const t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
    sinSigma = Math.sqrt(t1 * t1 + t2 * t2)
    if (sinSigma === 0) return 0
    cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
    sigma = Math.atan2(sinSigma, cosSigma)
    const sinAlpha = (cosU1 * cosU2 * sinLambda) / sinSigma
    cos2Alpha = 1 - sinAlpha * sinAlpha
    // on the equator line cos2Alpha is 0 and cos2SigmaM is undefined: use 0
    cos2SigmaM = cos2Alpha !== 0 ? cosSigma - (2 * sinU1 * sinU2) / cos2Alpha : 0
    const C = (F / 16) * cos2Alpha * (4 + F * (4 - 3 * cos2Alpha))
    const prev = lambda
    lambda =
      L +
      (1 - C) * F * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
    if (Math.abs(lambda - prev) <= 1e-12) break
  }
  const uSq = (cos2Alpha * (A * A - B * B)) / (B * B)
  const bigA = 1 + (uSq / 16384) * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
  const bigB = (uSq / 1024) * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
  const c2 = cos2SigmaM * cos2SigmaM
  const deltaSigma =
    bigB *
    sinSigma *
    (cos2SigmaM +
      (bigB / 4) *
        (cosSigma * (-1 + 2 * c2) - (bigB / 6) * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * c2)))
  return B * bigA * (sigma - deltaSigma)
}

/** Karney's algorithm (GeographicLib): exact to nanometres, slower; the reference in tests. */
export function karneyDistanceM(lon1: number, lat1: number, lon2: number, lat2: number): number {
  return Geodesic.WGS84.Inverse(lat1, lon1, lat2, lon2, Geodesic.DISTANCE).s12 ?? NaN
}
