/**
 * The served countries' extents. At build time: whether a row's coordinates lie in the country
 * its layer belongs to (docs/decisions.md "Ingest integrity"): every position within the country's extent widened by about 50 km. A row outside
 * is rejected saying so, and when swapping latitude and longitude would put it inside (the most
 * common export slip: a CSV with its columns crossed, a GIS layer with the axis order flipped),
 * the reason says that too. Coordinates already in -180..180 / -90..90 reach this check. At run
 * time: whether a caller's geometry stays within the countries served (docs/api.md "Bounded
 * work"), which also keeps it clear of the antimeridian.
 */

export type Country = 'SOUTH_AFRICA' | 'BOTSWANA'

interface Box {
  minLon: number
  minLat: number
  maxLon: number
  maxLat: number
}

/** About 50 km, in degrees. */
const MARGIN = 0.5

const EXTENTS: Record<Country, { label: string; boxes: Box[] }> = {
  SOUTH_AFRICA: {
    label: 'South Africa',
    boxes: [
      // the mainland
      { minLon: 16.45, minLat: -34.84, maxLon: 32.9, maxLat: -22.12 },
      // the Prince Edward Islands (Marion Island), part of the Western Cape
      { minLon: 37.55, minLat: -46.99, maxLon: 38.0, maxLat: -46.6 },
    ],
  },
  BOTSWANA: { label: 'Botswana', boxes: [{ minLon: 19.99, minLat: -26.91, maxLon: 29.37, maxLat: -17.78 }] },
}

function inside(boxes: Box[], lon: number, lat: number): boolean {
  for (const b of boxes)
    if (lon >= b.minLon - MARGIN && lon <= b.maxLon + MARGIN && lat >= b.minLat - MARGIN && lat <= b.maxLat + MARGIN)
      return true
  return false
}

/** Calls `visit` for every [lon, lat] position of a GeoJSON coordinates array of any depth. */
function positions(coordinates: unknown, visit: (lon: number, lat: number) => void): void {
  if (!Array.isArray(coordinates)) return
  if (typeof coordinates[0] === 'number') {
    visit(coordinates[0], coordinates[1] as number)
    return
  }
  for (const c of coordinates) positions(c, visit)
}

/** Null when every position lies in the country; else the reject reason, with a swap hint when it fits. */
export function outsideCountry(coordinates: unknown, country: Country): string | null {
  const { label, boxes } = EXTENTS[country]
  let first: [number, number] | null = null
  let swappedAllInside = true
  positions(coordinates, (lon, lat) => {
    if (!inside(boxes, lon, lat) && first === null) first = [lon, lat]
    if (swappedAllInside && !inside(boxes, lat, lon)) swappedAllInside = false
  })
  if (first === null) return null
  const [lon, lat] = first as [number, number]
  return (
    `coordinates outside ${label} (${lon}, ${lat} as longitude, latitude)` +
    (swappedAllInside ? ': latitude and longitude look swapped' : '')
  )
}

/** True when the position lies in the extent of any served country (South Africa or Botswana, with the margin). */
export function inServedCountries(lon: number, lat: number): boolean {
  return inside(EXTENTS.SOUTH_AFRICA.boxes, lon, lat) || inside(EXTENTS.BOTSWANA.boxes, lon, lat)
}

/** The served countries, as messages name them. */
export const SERVED_COUNTRIES_LABEL = `${EXTENTS.SOUTH_AFRICA.label} or ${EXTENTS.BOTSWANA.label}`
