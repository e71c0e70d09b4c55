/**
 * Great-circle distances on a 6371 km sphere (within 0.7 % of the ellipsoid): from a point to a
 * point and to a longitude/latitude box, the bounds the best-first nearest walk prunes with.
 */
/** The sphere's radius, km. */
export const R_KM = 6371
export const RAD = Math.PI / 180

/** Great-circle distance in km. */
export function sphereKm(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const s1 = Math.sin(((lat2 - lat1) * RAD) / 2)
  const s2 = Math.sin(((lon2 - lon1) * RAD) / 2)
  const h = s1 * s1 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * s2 * s2
  return 2 * R_KM * Math.asin(Math.min(1, Math.sqrt(h)))
}

/**
 * Smallest great-circle distance (km) from a point to a lon/lat box (no antimeridian wrap).
 * Inside the longitude band the nearest point is straight north or south; outside it, it lies on
 * the nearer edge meridian, at the latitude where the great circle from the point meets that
 * meridian at a right angle, clamped to the box.
 */
export function boxKm(lon: number, lat: number, minX: number, minY: number, maxX: number, maxY: number): number {
  if (lon >= minX && lon <= maxX) {
    if (lat < minY) return (minY - lat) * RAD * R_KM
    if (lat > maxY) return (lat - maxY) * RAD * R_KM
    return 0
  }
  const edge = lon < minX ? minX : maxX
  const dLon = Math.abs(edge - lon) * RAD
  if (dLon >= Math.PI / 2) {
    // the far hemisphere: the nearest edge point is the box corner nearer the equator side of the point
    return Math.min(sphereKm(lon, lat, edge, minY), sphereKm(lon, lat, edge, maxY))
  }
  let foot = Math.atan(Math.tan(lat * RAD) / Math.cos(dLon)) / RAD
  if (foot < minY) foot = minY
  else if (foot > maxY) foot = maxY
  return sphereKm(lon, lat, edge, foot)
}
