/**
 * The GeoJSON form of the jurisdiction answers (docs/api.md "GeoJSON output"): a boundary is a
 * Feature whose `id` is `<boundary_type>/<code>` (the path of its record; a code alone recurs
 * across types, JHB being a metro and a Deeds Office), whose properties are its record or chain
 * link, and whose geometry is its polygon drawn for a map. Neither JSON form carries geometry, so
 * this one reads it, bounded: simplified (topology kept) at about a thousandth of the boundary's
 * extent, rounded up to a power of two metres, and cached (BoundaryShapes.simplifiedOf). The
 * tolerance is the Feature's foreign member `simplified_m` (absent: full resolution); the
 * `/geometry` route gives any boundary at full resolution.
 */
import type { Context } from 'hono'
import { CHAIN_TYPES } from '../../data/jurisdiction-format.js'
import { metresPerDegree } from '../../geo/geodesic.js'
import { toGeoJson } from '../../geo/polygon-output.js'
import type { AppEnv } from '../../http/env.js'
import { feature, geoJsonReply, type Feature } from '../../http/geojson.js'
import type { BoundaryRow, JurisdictionQueries, Resolution } from './queries.js'

/** The tolerance of a boundary's drawing: this fraction of the diagonal of its box. */
const DRAWING_FRACTION = 1 / 1000

/** The boundary's polygon for a map (see the module comment), or null for one published without geometry. */
function drawing(s: JurisdictionQueries, r: BoundaryRow): Pick<Feature, 'geometry'> & { simplified_m?: number } {
  if (!r.bbox) return { geometry: null }
  const [minX, minY, maxX, maxY] = r.bbox
  const k = metresPerDegree((minY + maxY) / 2)
  const tolM = Math.hypot((maxX - minX) * k.lon, (maxY - minY) * k.lat) * DRAWING_FRACTION
  const g = s.simplifiedFor(r, tolM)
  if (!g) return { geometry: null }
  // simplifiedOf leaves a tolerance of 1 m unsimplified
  return g.toleranceM > 1
    ? { geometry: toGeoJson(g.geometry), simplified_m: g.toleranceM }
    : { geometry: toGeoJson(g.geometry) }
}

/** A boundary as a Feature: `properties` (its record or link), its drawing, its `type/code` id. */
export function boundaryFeature(s: JurisdictionQueries, r: BoundaryRow, properties: Record<string, unknown>): Feature {
  const { geometry, simplified_m } = drawing(s, r)
  return feature(properties, geometry, `${r.type}/${r.code}`, simplified_m === undefined ? undefined : { simplified_m })
}

/**
 * The chain at a point as a FeatureCollection: one Feature per boundary of the chain in its
 * order (province first; a null link has none), properties `{boundary_type, ...link}`;
 * `envelope` (the JSON answer without `jurisdiction`) gives the foreign members.
 */
export function chainGeoJson(
  c: Context<AppEnv>,
  s: JurisdictionQueries,
  r: Resolution,
  envelope: Record<string, unknown>,
): Response {
  const features: Feature[] = []
  for (const t of CHAIN_TYPES) {
    const link = r.jurisdiction[t]
    const row = r.rows[t]
    if (link && row) features.push(boundaryFeature(s, row, { boundary_type: t, ...link }))
  }
  return geoJsonReply(c, envelope, 'jurisdiction', features)
}

/** An envelope whose list `listKey` holds the records of `rows` (in order), as a FeatureCollection. */
export function boundariesGeoJson(
  c: Context<AppEnv>,
  s: JurisdictionQueries,
  envelope: Record<string, unknown>,
  listKey: string,
  rows: readonly BoundaryRow[],
): Response {
  const records = envelope[listKey] as Record<string, unknown>[]
  return geoJsonReply(
    c,
    envelope,
    listKey,
    rows.map((r, i) => boundaryFeature(s, r, records[i])),
  )
}
