/**
 * The GeoJSON form of the parcel answers (docs/api.md "GeoJSON output"): a parcel is a Feature
 * whose geometry is its boundary (a MultiPolygon, read by the record's `id`, as stored: RFC 7946
 * winding), whose properties are its record made flat (`feature`: the row `id` is `record_id`,
 * `legal_status_code`, `label_point_latitude`…; the label point stays: it is not the geometry),
 * and whose `id` is its LPI, which GDAL and QGIS then read as the feature's `id`.
 */
import type { Context } from 'hono'
import { toGeoJson } from '../../geo/polygon-output.js'
import type { AppEnv } from '../../http/env.js'
import { feature, geoJsonReply, type Feature } from '../../http/geojson.js'
import type { ParcelQueries, ParcelRecord } from './queries.js'

/** A parcel record as a Feature with its boundary. */
export function parcelFeature(s: ParcelQueries, p: ParcelRecord): Feature {
  return feature(p as unknown as Record<string, unknown>, toGeoJson(s.boundary(p.id)), p.lpi)
}

/** An envelope whose list `parcels` holds `parcels`, as a FeatureCollection. */
export function parcelsGeoJson(
  c: Context<AppEnv>,
  s: ParcelQueries,
  envelope: Record<string, unknown>,
  parcels: ParcelRecord[],
): Response {
  return geoJsonReply(
    c,
    envelope,
    'parcels',
    parcels.map((p) => parcelFeature(s, p)),
  )
}
