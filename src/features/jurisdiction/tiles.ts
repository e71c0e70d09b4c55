/**
 * Vector tiles of the boundaries: one layer per boundary type from its zoom on, the boundaries in
 * force on a date, cut from the overview geometry below TILE_FULL_RES_ZOOM, as Mapbox Vector
 * Tile bytes (src/geo/mvt/encode.ts), and their TileJSON description. Made when asked: a few
 * thousand boundaries, and a date picks which are in force.
 *
 * @module
 */
import type { BoundaryType } from '../../data/jurisdiction-format.js'
import { DEFAULT_TILE_BUFFER_PX, encodeTile, type TileLayer } from '../../geo/mvt/encode.js'
import type { MultiPolygon } from '../../geo/polygon.js'
import { tileBBox } from '../../geo/tiles.js'
import type { TileSource } from '../../http/tile-source.js'
import type { TileSet } from '../../http/tilejson.js'
import type { JurisdictionQueries } from './queries.js'

/** Tile scale gates: the lowest zoom at which a layer carries features. */
export const TILE_MIN_ZOOM: Record<BoundaryType, number> = {
  province: 0,
  district_municipality: 4,
  deeds_office: 4,
  local_municipality: 5,
  registration_division: 5,
  pre1994_municipal: 7,
  ward: 8,
  township: 10,
  suburb: 11,
}
/** Below this zoom tiles are cut from the overview geometry (100 m), from it upward at full resolution. */
const TILE_FULL_RES_ZOOM = 8
/** Clients over-zoom beyond this (src/http/tilejson.ts): boundaries need no more detail. */
const TILES_MAX_ZOOM = 14
/** The properties of every boundary feature, as TileJSON lists them (tileBytes writes them). */
const BOUNDARY_FIELDS: Record<string, string> = {
  code: 'String: the boundary code (also in /jurisdiction/boundaries/{type}/{code})',
  name: 'String: the boundary name',
  vintage: 'String: the demarcation or delimitation the boundary comes from',
  category: 'String: the municipal category (A, B, C) or register category; absent when none',
}

/** The TileJSON description of the boundary tiles of `layers` (src/http/tilejson.ts). */
function tileSet(s: JurisdictionQueries, layers: readonly BoundaryType[]): TileSet {
  const sources = [...new Set(s.sets.filter((set) => set.geometry && set.source).map((set) => set.source!))]
  return {
    name: 'Jurisdiction',
    description: 'South African administrative and cadastral boundaries in force, one layer per boundary type.',
    ...(sources.length ? { attribution: sources.join('; ') } : {}),
    path: '/jurisdiction/tiles',
    maxzoom: TILES_MAX_ZOOM,
    layers: layers.map((t) => ({
      id: t,
      description: `${t.replace(/_/g, ' ')} boundaries`,
      fields: BOUNDARY_FIELDS,
      minzoom: TILE_MIN_ZOOM[t],
    })),
    bounds: s.extent(),
    dataset_version: s.version,
    as_of: s.asOf,
  }
}

/** The tile's bytes, or none when no feature falls in it. */
function tileBytes(
  s: JurisdictionQueries,
  z: number,
  x: number,
  y: number,
  layers: BoundaryType[],
  d: string,
): Uint8Array {
  const { minX: west, minY: south, maxX: east, maxY: north } = tileBBox(z, x, y, DEFAULT_TILE_BUFFER_PX)
  const out: TileLayer[] = []
  for (const t of layers) {
    if (z < TILE_MIN_ZOOM[t]) continue
    const features = []
    for (const r of s.inBox(t, west, south, east, north, d)) {
      const g: MultiPolygon | null = z < TILE_FULL_RES_ZOOM ? s.overview(r) : s.geometry(r)
      if (!g) continue
      features.push({
        id: r.id,
        geometry: g,
        properties: { code: r.code, name: r.name, vintage: r.vintage, ...(r.category ? { category: r.category } : {}) },
      })
    }
    if (features.length) out.push({ name: t, features })
  }
  return out.length ? encodeTile(out, z, x, y) : new Uint8Array(0)
}

/**
 * The boundary tiles of `layers` in force on `d` (YYYY-MM-DD); the ETag names the dataset
 * version, the layers and the date.
 */
export function jurisdictionTiles(s: JurisdictionQueries, layers: BoundaryType[], d: string): TileSource {
  const etag = `"${s.version}:${layers.join(',')}:${d}"`
  return {
    tileSet: () => tileSet(s, layers),
    tile: (z, x, y) => ({ etag, encode: () => tileBytes(s, z, x, y, layers, d) }),
  }
}
