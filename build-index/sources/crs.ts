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

const REPROJECT = 'reproject the layer, e.g. `ogr2ogr -t_srs EPSG:4326 out.gpkg in.gpkg`'

/**
 * Null when a GeoPackage feature table's spatial reference is WGS84 longitude/latitude (EPSG
 * 4326, OGC CRS84, or srs_id 0, "undefined geographic"); else what is wrong, naming it.
 */
export function gpkgSrsProblem(srs: {
  srs_id: number
  organization: string | null
  organization_coordsys_id: number | null
  srs_name: string | null
}): string | null {
  const org = (srs.organization ?? '').toUpperCase()
  if (srs.srs_id === 0 || srs.srs_id === 4326) return null
  if (org === 'EPSG' && srs.organization_coordsys_id === 4326) return null
  if (org === 'OGC' && srs.organization_coordsys_id === 84) return null
  const named = [srs.srs_name, srs.organization ? `${srs.organization}:${srs.organization_coordsys_id}` : null]
    .filter(Boolean)
    .join(', ')
  return `the layer's spatial reference is ${named || `srs_id ${srs.srs_id}`} (srs_id ${srs.srs_id}), not WGS84 longitude/latitude: ${REPROJECT}`
}

/**
 * Null when a shapefile's .prj (ESRI WKT) is WGS84 longitude/latitude (a GEOGCS on the WGS 1984
 * datum, no projection); else what is wrong, naming the coordinate system.
 */
export function prjProblem(wkt: string): string | null {
  const text = wkt.trim()
  const head = /^(PROJCS|GEOGCS|GEOGCRS|PROJCRS|GEOCCS|COMPD_CS|LOCAL_CS)\s*\[\s*"([^"]*)"/i.exec(text)
  if (
    head &&
    /^GEOG/i.test(head[1]) &&
    /DATUM\s*\[\s*"(D_)?WGS_?\s?1984"|DATUM\s*\[\s*"WGS 84"|"WGS[ _]?84"/i.test(text)
  )
    return null
  const named = head ? `${head[1].toUpperCase()} "${head[2]}"` : JSON.stringify(text.slice(0, 80))
  return `the .prj beside the shapefile names ${named}, not WGS84 longitude/latitude: reproject the layer, e.g. \`ogr2ogr -t_srs EPSG:4326 out.shp in.shp\``
}
