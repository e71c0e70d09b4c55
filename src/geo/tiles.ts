/**
 * Web-Mercator XYZ tile math (the "slippy map" scheme: z 0 is one tile, x grows east from
 * -180°, y grows south from the top edge at about 85.0511° N).
 *
 * Positions are `[lon, lat]` WGS84 degrees. "World units" are Web-Mercator coordinates scaled
 * to [0, 1] on both axes (x east, y south), the space tile numbers and tile pixels are cut from:
 * at zoom z a tile is 1 / 2^z world units wide, and tile pixels run 0..extent across it, y down.
 *
 * Latitudes are clamped to ±MAX_MERCATOR_LAT, where the projection reaches the square's edge;
 * longitudes are not wrapped (the datasets lie far from the antimeridian).
 */
import type { BBox } from './polygon.js'

/** Deepest zoom the tile routes accept (PMTiles and most servers stop at 22 too). */
export const MAX_TILE_ZOOM = 22

/** atan(sinh(π)) in degrees: the latitude at which Web Mercator becomes a square. */
export const MAX_MERCATOR_LAT = 85.0511287798066

/** Default MVT extent: tile pixels per tile side (MVT 2.1 §4.2 gives 4096 as the usual value). */
export const DEFAULT_EXTENT = 4096

/** One reason a z/x/y triple is not a tile, named by the field so a route can answer 400 per field. */
export interface TileProblem {
  field: 'z' | 'x' | 'y'
  message: string
}

/**
 * Every problem with a requested tile address; an empty list means the tile exists.
 * z must be an integer in 0..MAX_TILE_ZOOM; x and y integers in 0..2^z - 1 (as PMTiles'
 * `zxyToTileId` requires). When z itself is bad, x and y are only checked for being
 * non-negative integers, since their upper bound depends on z.
 *
 * @example
 * validateTile(23, -1, 0)
 * // [{ field: 'z', message: 'z must be an integer from 0 to 22, got 23' },
 * //  { field: 'x', message: 'x must be a non-negative integer, got -1' }]
 */
export function validateTile(z: number, x: number, y: number): TileProblem[] {
  const problems: TileProblem[] = []
  const zOk = Number.isInteger(z) && z >= 0 && z <= MAX_TILE_ZOOM
  if (!zOk) problems.push({ field: 'z', message: `z must be an integer from 0 to ${MAX_TILE_ZOOM}, got ${z}` })
  for (const [field, v] of [
    ['x', x],
    ['y', y],
  ] as const) {
    if (zOk) {
      const max = 2 ** z - 1
      if (!Number.isInteger(v) || v < 0 || v > max)
        problems.push({ field, message: `${field} must be an integer from 0 to ${max} at zoom ${z}, got ${v}` })
    } else if (!Number.isInteger(v) || v < 0) {
      problems.push({ field, message: `${field} must be a non-negative integer, got ${v}` })
    }
  }
  return problems
}

/** Clamps a latitude to the Web-Mercator range ±MAX_MERCATOR_LAT. */
export function clampLat(lat: number): number {
  return lat > MAX_MERCATOR_LAT ? MAX_MERCATOR_LAT : lat < -MAX_MERCATOR_LAT ? -MAX_MERCATOR_LAT : lat
}

/** Longitude to world x in [0, 1] (0 at -180°, 1 at 180°). */
export function lonToWorldX(lon: number): number {
  return lon / 360 + 0.5
}

/** Latitude (clamped to ±MAX_MERCATOR_LAT) to world y in [0, 1] (0 at the north edge, y down). */
export function latToWorldY(lat: number): number {
  const s = Math.sin((clampLat(lat) * Math.PI) / 180)
  return 0.5 - (0.25 * Math.log((1 + s) / (1 - s))) / Math.PI
}

/** World x back to longitude. Not clamped: x outside [0, 1] gives longitudes beyond ±180°. */
export function worldXToLon(x: number): number {
  return (x - 0.5) * 360
}

/** World y back to latitude. Not clamped: y outside [0, 1] gives latitudes beyond ±MAX_MERCATOR_LAT. */
export function worldYToLat(y: number): number {
  return (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI
}

/**
 * The lon/lat box a tile covers: `{ minX: west, minY: south, maxX: east, maxY: north }`.
 * Assumes a valid tile (see `validateTile`). `bufferPx` widens it by that many tile pixels on
 * every side (the buffer an encoder keeps so features join across tile edges).
 */
export function tileBBox(z: number, x: number, y: number, bufferPx = 0, extent = DEFAULT_EXTENT): BBox {
  const n = 2 ** z
  const pad = bufferPx / extent
  return {
    minX: worldXToLon((x - pad) / n),
    minY: worldYToLat((y + 1 + pad) / n),
    maxX: worldXToLon((x + 1 + pad) / n),
    maxY: worldYToLat((y - pad) / n),
  }
}

/**
 * Fractional tile-pixel coordinates `[px, py]` of a position inside tile z/x/y: (0, 0) is the
 * tile's north-west corner, (extent, extent) its south-east corner, y grows south. Positions
 * outside the tile give values outside 0..extent. Latitude is clamped to ±MAX_MERCATOR_LAT.
 */
export function lonLatToTile(
  lon: number,
  lat: number,
  z: number,
  x: number,
  y: number,
  extent = DEFAULT_EXTENT,
): [number, number] {
  const n = 2 ** z
  return [(lonToWorldX(lon) * n - x) * extent, (latToWorldY(lat) * n - y) * extent]
}

/** Inverse of `lonLatToTile`: the `[lon, lat]` at fractional tile pixel (px, py) of tile z/x/y. */
export function tileToLonLat(
  px: number,
  py: number,
  z: number,
  x: number,
  y: number,
  extent = DEFAULT_EXTENT,
): [number, number] {
  const n = 2 ** z
  return [worldXToLon((x + px / extent) / n), worldYToLat((y + py / extent) / n)]
}

/**
 * The tile `{ x, y }` that contains a position at zoom z. Points on a shared edge belong to
 * the tile east / south of it; 180° E and the clamped south edge fold into the last column / row.
 */
export function tileAt(lon: number, lat: number, z: number): { x: number; y: number } {
  const n = 2 ** z
  const x = Math.floor(lonToWorldX(lon) * n)
  const y = Math.floor(latToWorldY(lat) * n)
  return { x: Math.min(Math.max(x, 0), n - 1), y: Math.min(Math.max(y, 0), n - 1) }
}
