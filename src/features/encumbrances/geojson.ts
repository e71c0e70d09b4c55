/**
 * The GeoJSON form of the encumbrance answers (docs/api.md "GeoJSON output"): a record is a
 * Feature whose geometry is the record's `geometry` field (Polygon, MultiPolygon, LineString or
 * MultiLineString, not repeated in its properties) and whose `id` is its `encumbrance_uid`.
 */
import type { Context } from 'hono'
import type { AppEnv } from '../../http/env.js'
import { feature, geoJsonReply, without, type Feature, type Geometry } from '../../http/geojson.js'

/** A record object (recordOf, with its geometry) as a Feature. */
export function encumbranceFeature(record: Record<string, unknown>): Feature {
  const geometry = (record.geometry as Geometry | undefined) ?? null
  return feature(without(record, 'geometry'), geometry, record.encumbrance_uid as number)
}

/** An envelope whose list `encumbrances` holds records with their geometry, as a FeatureCollection. */
export function encumbrancesGeoJson(
  c: Context<AppEnv>,
  envelope: { encumbrances: Record<string, unknown>[]; [field: string]: unknown },
): Response {
  return geoJsonReply(c, envelope, 'encumbrances', envelope.encumbrances.map(encumbranceFeature))
}
