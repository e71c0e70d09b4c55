/**
 * The `crs` member a GeoJSON file may carry (GeoJSON 2008; RFC 7946 dropped it, GDAL still
 * writes it): only WGS84 longitude/latitude is accepted, since every coordinate we store and
 * answer is in it. A layer exported in another system (Lo29, UTM 35S, Web Mercator) would
 * otherwise be read as degrees and land somewhere else entirely, or be rejected row by row as
 * "out of range" with no word of why.
 */

/** The names GDAL, QGIS and the OGC give WGS84 longitude/latitude. */
const WGS84 = [
  /^(urn:ogc:def:crs:OGC:(1\.3)?:)?CRS84$/i,
  /^OGC:CRS84$/i,
  /^(urn:ogc:def:crs:)?EPSG:(\d+(\.\d+)*)?:?4326$/i,
  /^https?:\/\/www\.opengis\.net\/def\/crs\/(OGC\/1\.3\/CRS84|EPSG\/0\/4326)$/i,
]

/** Null when `crs` (the parsed member) is WGS84 longitude/latitude or null; else what is wrong. */
export function crsProblem(crs: unknown): string | null {
  if (crs === null || crs === undefined) return null
  const c = crs as { type?: unknown; properties?: { name?: unknown; code?: unknown } }
  let name: string | null = null
  if (c.type === 'name' && typeof c.properties?.name === 'string') name = c.properties.name
  else if (c.type === 'EPSG' && (typeof c.properties?.code === 'number' || typeof c.properties?.code === 'string'))
    name = `EPSG:${c.properties.code}`
  if (name !== null && WGS84.some((re) => re.test(name.trim()))) return null
  const named = name ?? JSON.stringify(crs).slice(0, 120)
  return (
    `the file's crs is ${named}, not WGS84 longitude/latitude: reproject the layer, e.g. ` +
    '`ogr2ogr -t_srs EPSG:4326 out.geojson in.geojson`'
  )
}
