// shared types of the source readers; read-layer.ts re-exports them as the public api.

/** A position `[longitude, latitude]` in WGS84 degrees (extra ordinates are dropped on read). */
export type SourcePosition = [number, number]

/** A GeoJSON-like geometry as read from a source layer, always two-dimensional. */
export type SourceGeometry =
  | { type: 'Point'; coordinates: SourcePosition }
  | { type: 'MultiPoint'; coordinates: SourcePosition[] }
  | { type: 'LineString'; coordinates: SourcePosition[] }
  | { type: 'MultiLineString'; coordinates: SourcePosition[][] }
  | { type: 'Polygon'; coordinates: SourcePosition[][] }
  | { type: 'MultiPolygon'; coordinates: SourcePosition[][][] }

/** The geometry types a source may hold. */
export type SourceGeometryType = SourceGeometry['type']

/** A property value after normalisation: blank strings become null. */
export type SourceValue = string | number | boolean | null

/** Properties keyed by lower-cased field name. */
export type SourceProperties = Record<string, SourceValue>

/**
 * One row of a source layer: either read (`ok: true`) or rejected with a reason.
 * `ref` is `<file>:<line>` for line-based formats and `<file>#<feature>` otherwise, both 1-based.
 */
export type SourceRow =
  | { ok: true; ref: string; properties: SourceProperties; geometry: SourceGeometry | null }
  | { ok: false; ref: string; reason: string }

/**
 * A GeoJSONSeq row whose feature text is left for the caller to parse (`jsonFeatureToRow(text,
 * ref)` gives the row the reader would have given): see `ReadLayerOptions.deferJson`.
 */
export type DeferredRow = { ok: 'json'; ref: string; text: string }
