// turns a parsed GeoJSON Feature (from JSON or the shapefile package) into a source row.
import { normaliseProperties } from './properties.js'
import { parseGeoJsonGeometry } from './source-geometry.js'
import type { SourceRow } from './source-row.js'

/** Reads one parsed GeoJSON value that should be a Feature; anything else is rejected. */
export function featureToRow(value: unknown, ref: string): SourceRow {
  if (!isObject(value) || value.type !== 'Feature') return { ok: false, ref, reason: 'not a GeoJSON Feature' }
  const properties = value.properties
  if (properties !== null && properties !== undefined && !isObject(properties)) {
    return { ok: false, ref, reason: 'properties is not an object' }
  }
  const geometry = parseGeoJsonGeometry(value.geometry)
  if (!geometry.ok) return { ok: false, ref, reason: geometry.reason }
  return { ok: true, ref, properties: normaliseProperties(properties), geometry: geometry.geometry }
}

/** Parses one JSON text that should hold a Feature. */
export function jsonFeatureToRow(text: string, ref: string): SourceRow {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { ok: false, ref, reason: `invalid JSON: ${(error as Error).message}` }
  }
  return featureToRow(value, ref)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
