// geometry checks shared by every format: two dimensions, coordinates in range, empty -> null.
import type { SourceGeometry, SourceGeometryType, SourcePosition } from './source-row.js'

/** The outcome of reading one geometry: a geometry (null when absent or empty) or a reason. */
export type GeometryResult = { ok: true; geometry: SourceGeometry | null } | { ok: false; reason: string }

/** Thrown while decoding a geometry to abandon the row; the message is the reject reason. */
export class GeometryProblem extends Error {}

/** How deeply positions are nested in each geometry type's coordinates. */
export const POSITION_DEPTH: Readonly<Record<SourceGeometryType, number>> = {
  Point: 0,
  MultiPoint: 1,
  LineString: 1,
  MultiLineString: 2,
  Polygon: 2,
  MultiPolygon: 3,
}

/** True for the six geometry types a source may hold. */
export function isSourceGeometryType(type: unknown): type is SourceGeometryType {
  return typeof type === 'string' && Object.hasOwn(POSITION_DEPTH, type)
}

/**
 * Returns `[x, y]` when it is a WGS84 longitude/latitude.
 * @throws GeometryProblem for NaN, Infinity, |lon| > 180 or |lat| > 90
 */
export function checkedPosition(x: number, y: number): SourcePosition {
  // written so that NaN fails the test too
  if (!(x >= -180 && x <= 180 && y >= -90 && y <= 90)) {
    throw new GeometryProblem(`coordinate out of range: [${x}, ${y}]`)
  }
  return [x, y]
}

/** Maps a geometry without any position (e.g. `MultiPolygon []`) to null. */
export function nullIfEmpty(geometry: SourceGeometry): SourceGeometry | null {
  return hasPosition(geometry.coordinates, POSITION_DEPTH[geometry.type]) ? geometry : null
}

function hasPosition(coordinates: unknown, depth: number): boolean {
  if (depth === 0) return true
  const list = coordinates as unknown[]
  for (const item of list) if (hasPosition(item, depth - 1)) return true
  return false
}

/**
 * Reads a GeoJSON geometry object (as parsed from JSON, or produced by the shapefile package).
 * Null or undefined is a missing geometry; extra ordinates are dropped.
 */
export function parseGeoJsonGeometry(value: unknown): GeometryResult {
  if (value === null || value === undefined) return { ok: true, geometry: null }
  if (typeof value !== 'object' || Array.isArray(value)) return reject('invalid geometry: not an object')
  const { type, coordinates } = value as { type?: unknown; coordinates?: unknown }
  if (type === 'GeometryCollection') return reject('unsupported geometry type GeometryCollection')
  if (!isSourceGeometryType(type)) return reject(`invalid geometry: unknown type ${JSON.stringify(type)}`)
  const depth = POSITION_DEPTH[type]
  // some writers give an empty point as `coordinates: []`
  if (depth === 0 && Array.isArray(coordinates) && coordinates.length === 0) return { ok: true, geometry: null }
  try {
    const geometry = { type, coordinates: readNested(coordinates, depth, type) } as SourceGeometry
    return { ok: true, geometry: nullIfEmpty(geometry) }
  } catch (error) {
    if (error instanceof GeometryProblem) return reject(error.message)
    throw error
  }
}

function readNested(value: unknown, depth: number, type: string): unknown {
  if (!Array.isArray(value)) throw malformed(type)
  if (depth === 0) {
    const x = value[0]
    const y = value[1]
    if (typeof x !== 'number' || typeof y !== 'number') throw malformed(type)
    return checkedPosition(x, y)
  }
  const out = new Array<unknown>(value.length)
  for (let i = 0; i < value.length; i++) out[i] = readNested(value[i], depth - 1, type)
  return out
}

function malformed(type: string): GeometryProblem {
  return new GeometryProblem(`invalid geometry: ${type} coordinates are malformed`)
}

function reject(reason: string): GeometryResult {
  return { ok: false, reason }
}
