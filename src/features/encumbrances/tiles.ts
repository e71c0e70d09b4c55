/**
 * Vector tiles of the encumbrances: one layer per class from its zoom on, current records only,
 * as Mapbox Vector Tile bytes (src/geo/mvt/encode.ts).
 *
 * A dimensioned line is in every tile its strip enters (spatial.ts), drawn as its centreline (the
 * strip itself is not drawn). A tile its strip enters but whose buffered box its centreline misses
 * (a wide strip at a high zoom) is clipped with a buffer grown to reach that centreline: clipped
 * to the usual 64 pixels, the centreline would leave nothing to draw.
 *
 * @module
 */
import type { EncumbranceClass } from '../../data/encumbrance-format.js'
import { degreesAround } from '../../geo/geodesic.js'
import { linesMeetBox } from '../../geo/lines.js'
import { DEFAULT_TILE_BUFFER_PX, encodeTile, type TileLayer } from '../../geo/mvt/encode.js'
import { DEFAULT_EXTENT, tileBBox } from '../../geo/tiles.js'
import type { TileSet } from '../../http/tilejson.js'
import { recordsInBox } from './spatial.js'
import type { EncumbranceStore } from './store.js'

/** Tile scale gates: the lowest zoom at which a class carries features. */
export const TILE_MIN_ZOOM: Record<EncumbranceClass, number> = {
  mineral_right: 8,
  state_land: 8,
  river_bed: 8,
  proclamation_area: 8,
  lease: 10,
  established_boundary: 10,
  proclamation_line: 10,
  servitude_area: 12,
  servitude_line: 12,
}

/** Clients over-zoom beyond this (src/http/tilejson.ts). */
export const ENCUMBRANCE_TILES_MAX_ZOOM = 16

/** The properties of every encumbrance feature, as TileJSON lists them (tileBytes writes them). */
const ENCUMBRANCE_FIELDS: Record<string, string> = {
  encumbrance_uid: 'Number: the record uid (also the feature id; GET /encumbrances/{encumbrance_uid})',
  ease_type_normalised: 'String: the vocabulary word of the type (docs/api.md "Encumbrance type vocabulary")',
  ease_type: 'String: the raw source type',
  sg_number: 'String: the SG diagram number; absent when the record has none',
}

/**
 * The tile buffer (pixels) that keeps the centreline of a strip `halfWidthM` wide which enters
 * the buffered tile `box` of zoom `z`: the usual buffer plus the half-width in pixels, measured
 * at the box's poleward edge (where a metre spans the most pixels) with 1 % and a pixel to spare.
 */
export function bufferReaching(z: number, box: { minY: number; maxY: number }, halfWidthM: number): number {
  const lat = Math.max(Math.abs(box.minY), Math.abs(box.maxY))
  const px = (degreesAround(lat, halfWidthM).lon * 2 ** z * DEFAULT_EXTENT) / 360
  return DEFAULT_TILE_BUFFER_PX + Math.ceil(px * 1.01) + 1
}

/** The TileJSON description of the encumbrance tiles of `classes` (src/http/tilejson.ts). */
export function encumbranceTileSet(
  classes: readonly EncumbranceClass[],
  extent: [number, number, number, number] | null,
  version: string,
  asOf: string,
): TileSet {
  return {
    name: 'Encumbrances',
    description:
      'South African encumbrances (servitudes, leases, mineral rights…), one layer per class, current records.',
    path: '/encumbrances/tiles',
    maxzoom: ENCUMBRANCE_TILES_MAX_ZOOM,
    layers: classes.map((cls) => ({
      id: cls,
      description: `${cls.replace(/_/g, ' ')} records`,
      fields: ENCUMBRANCE_FIELDS,
      minzoom: TILE_MIN_ZOOM[cls],
    })),
    bounds: extent,
    dataset_version: version,
    as_of: asOf,
  }
}

/** The tile's bytes, or none when no feature falls in it. */
export function tileBytes(
  s: EncumbranceStore,
  z: number,
  x: number,
  y: number,
  classes: readonly EncumbranceClass[],
): Uint8Array {
  const box = tileBBox(z, x, y, DEFAULT_TILE_BUFFER_PX)
  const out: TileLayer[] = []
  let buffer = DEFAULT_TILE_BUFFER_PX
  for (const cls of classes) {
    if (z < TILE_MIN_ZOOM[cls]) continue
    const features = []
    for (const { row: r, geometry } of recordsInBox(s, cls, box, Infinity)) {
      // only the strip enters: grow the buffer to its centreline
      if ('lines' in geometry && r.widthM && !linesMeetBox(geometry.lines, box))
        buffer = Math.max(buffer, bufferReaching(z, box, r.widthM / 2))
      features.push({
        id: r.uid,
        geometry: 'lines' in geometry ? geometry.lines : geometry.mp,
        properties: {
          encumbrance_uid: r.uid,
          ease_type_normalised: r.easeTypeNormalised,
          ease_type: r.easeType,
          ...(r.sgNumber ? { sg_number: r.sgNumber } : {}),
        },
      })
    }
    if (features.length) out.push({ name: cls, features })
  }
  return out.length ? encodeTile(out, z, x, y, { buffer }) : new Uint8Array(0)
}
