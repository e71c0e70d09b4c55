/**
 * The map views: `GET /jurisdiction/heatmap` (GeoJSON outlines for a viewport),
 * `GET /jurisdiction/tiles/{z}/{x}/{y}.mvt` (vector tiles), with their scale gates, and
 * `GET /jurisdiction/tiles.json` (their TileJSON).
 */
import type { Context } from 'hono'
import type { z } from '@hono/zod-openapi'
import type { BoundaryType } from '../../../data/jurisdiction-format.js'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import { tileAnswer, TILE_RESPONSES, tileRulesText } from '../../../http/tile-answer.js'
import { parseTileParams, TileParamsSchema } from '../../../http/tile-params.js'
import { TILEJSON_RESPONSES, TILEJSON_TEXT, tileJsonAnswer, type TileSet } from '../../../http/tilejson.js'
import { DEFAULT_TILE_BUFFER_PX, encodeTile, type TileLayer } from '../../../geo/mvt/encode.js'
import type { MultiPolygon } from '../../../geo/polygon.js'
import { toGeoJson } from '../../../geo/polygon-output.js'
import { round } from '../../../geo/round.js'
import { tileBBox } from '../../../geo/tiles.js'
import type { JurisdictionQueries } from '../queries.js'
import { HeatmapEnvelopeSchema } from '../answers.js'
import { HeatmapQuerySchema, TileQuerySchema } from '../schemas.js'
import { envOf, TAG, today, type JurisdictionRouteContext } from './common.js'

/** Heat-map scale gates: the widest viewport side (degrees) at which a type is still drawn. */
export const HEATMAP_MAX_SPAN: Record<BoundaryType, number> = {
  province: Infinity,
  district_municipality: Infinity,
  local_municipality: Infinity,
  registration_division: Infinity,
  deeds_office: Infinity,
  pre1994_municipal: 4,
  ward: 2,
  township: 0.5,
  suburb: 0.5,
}
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
/** At most this many features in one heat-map answer. */
export const HEATMAP_MAX_FEATURES = 4000

export function registerHeatmapRoute(router: ApiRouter, { guards, service }: JurisdictionRouteContext): void {
  router.add(
    {
      method: 'get',
      path: '/jurisdiction/heatmap',
      tags: TAG,
      summary: 'Boundary outlines for a map viewport',
      description:
        'Always geometry: a GeoJSON FeatureCollection of the boundaries of `types` (default the municipal chain: ' +
        'province, district_municipality, local_municipality) whose box meets the viewport, in force on ' +
        '`as_at`. ' +
        `Province, district, municipal, registration-division and Deeds Office outlines are drawn at any span; the ` +
        `others only when the viewport's wider side is at most: ${Object.entries(HEATMAP_MAX_SPAN)
          .filter(([, v]) => Number.isFinite(v))
          .map(([k, v]) => `${k} ${v}°`)
          .join(', ')} (a gated type is listed under \`omitted\` with the span to zoom to). ` +
        `Geometry is simplified to about a thousandth of the viewport, rounded up to a power of two metres ` +
        `(\`simplified_m\`); at most ${HEATMAP_MAX_FEATURES} features, ` +
        `\`truncated\` true when more met the viewport. Feature properties: boundary_type, code, name, vintage, ` +
        `category.`,
      request: { query: HeatmapQuerySchema },
      responses: { 200: { description: 'Outlines.', schema: HeatmapEnvelopeSchema } },
    },
    guards,
    (c, { query }) => heatmap(c, service(c), query),
  )
}

export function registerTileRoute(router: ApiRouter, { guards, service }: JurisdictionRouteContext): void {
  router.add(
    {
      method: 'get',
      path: '/jurisdiction/tiles/{z}/{x}/{y}.mvt',
      honoPath: '/jurisdiction/tiles/:z/:x/:y{[^/]+\\.mvt}',
      tags: TAG,
      summary: 'Administrative overlay vector tiles',
      description:
        'Mapbox Vector Tile 2.1 (`application/vnd.mapbox-vector-tile`, extent 4096), one layer per boundary type ' +
        'named as the type, features carrying code, name, vintage and category. ' +
        `\`layers\`: comma list of types (default ${['province', 'district_municipality', 'local_municipality', 'ward'].join(',')}); ` +
        tileRulesText(TILE_MIN_ZOOM),
      request: { params: TileParamsSchema, query: TileQuerySchema },
      responses: TILE_RESPONSES,
    },
    guards,
    (c, { params, query }) => tile(c, service(c), params, query),
  )
}

export function registerTileJsonRoute(router: ApiRouter, { guards, service }: JurisdictionRouteContext): void {
  router.add(
    {
      method: 'get',
      path: '/jurisdiction/tiles.json',
      tags: TAG,
      summary: 'TileJSON of the administrative overlay tiles',
      description:
        `${TILEJSON_TEXT} \`layers\` and \`as_at\` as for the tiles: the template then asks for the same. ` +
        'The attribution names the sources of the boundary sets with geometry.',
      request: { query: TileQuerySchema },
      responses: TILEJSON_RESPONSES,
    },
    guards,
    (c, { query }) => {
      const s = service(c)
      const set = tileSet(s, query.layers)
      return tileJsonAnswer(c, router, set, { layers: query.layers.join(','), as_at: query.as_at ?? '' })
    },
  )
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

/** The outlines of the wanted types whose box meets the viewport, simplified to its scale. */
function heatmap(c: Context<AppEnv>, s: JurisdictionQueries, query: z.infer<typeof HeatmapQuerySchema>): Response {
  const d = query.as_at ?? today()
  const span = Math.max(query.north - query.south, query.east - query.west)
  const midLat = (query.north + query.south) / 2
  const tolM = Math.max(1, Math.round((span * 111_320 * Math.cos((midLat * Math.PI) / 180)) / 1000))
  const omitted: { boundary_type: string; reason: string; max_span_degrees: number }[] = []
  const features: Record<string, unknown>[] = []
  let truncated = false
  let simplifiedM = 0
  for (const t of query.types) {
    if (span > HEATMAP_MAX_SPAN[t]) {
      omitted.push({
        boundary_type: t,
        reason: `drawn when the viewport's wider side is at most ${HEATMAP_MAX_SPAN[t]}°; this one spans ${round(span, 4)}°`,
        max_span_degrees: HEATMAP_MAX_SPAN[t],
      })
      continue
    }
    for (const r of s.inBox(t, query.west, query.south, query.east, query.north, d)) {
      if (features.length >= HEATMAP_MAX_FEATURES) {
        truncated = true
        break
      }
      const g = s.simplifiedFor(r, tolM)
      if (!g) continue
      simplifiedM = Math.max(simplifiedM, g.toleranceM)
      features.push({
        type: 'Feature',
        id: r.id,
        properties: {
          boundary_type: t,
          code: r.code,
          name: r.name,
          vintage: r.vintage,
          ...(r.category ? { category: r.category } : {}),
        },
        geometry: toGeoJson(g.geometry),
      })
    }
  }
  return json(c, {
    type: 'FeatureCollection',
    features,
    types: query.types,
    omitted,
    simplified_m: simplifiedM || tolM,
    truncated,
    as_at: d,
    message: `${plural(features.length, 'boundary', 'boundaries')} in the viewport${truncated ? ` (first ${HEATMAP_MAX_FEATURES} only)` : ''}`,
    ...envOf(s),
  })
}

/** One vector tile of the wanted layers, through the shared tile answer (ETag, 304, 204). */
function tile(
  c: Context<AppEnv>,
  s: JurisdictionQueries,
  params: z.infer<typeof TileParamsSchema>,
  query: z.infer<typeof TileQuerySchema>,
): Response {
  const d = query.as_at ?? today()
  const { z, x, y } = parseTileParams(params)
  return tileAnswer(c, `"${s.version}:${query.layers.join(',')}:${d}"`, () => tileBytes(s, z, x, y, query.layers, d))
}

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
