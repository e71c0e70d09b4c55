/**
 * The map views: `GET /jurisdiction/heatmap` (GeoJSON outlines for a viewport) with its scale
 * gates, `GET /jurisdiction/tiles/{z}/{x}/{y}.mvt` (vector tiles, ../tiles.ts) and
 * `GET /jurisdiction/tiles.json` (their TileJSON), through src/http/tile-routes.ts.
 */
import type { Context } from 'hono'
import type { z } from '@hono/zod-openapi'
import type { BoundaryType } from '../../../data/jurisdiction-format.js'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import { registerTileRoutes } from '../../../http/tile-routes.js'
import { toGeoJson } from '../../../geo/polygon-output.js'
import { round } from '../../../geo/round.js'
import type { JurisdictionQueries } from '../queries.js'
import { jurisdictionTiles, TILE_MIN_ZOOM } from '../tiles.js'
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
/** At most this many features in one heat-map answer. */
export const HEATMAP_MAX_FEATURES = 4000

export function registerHeatmapRoute(router: ApiRouter, { guards, service }: JurisdictionRouteContext): void {
  router.add(
    {
      method: 'get',
      path: '/jurisdiction/heatmap',
      operationId: 'getJurisdictionHeatmap',
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

export function registerJurisdictionTileRoutes(router: ApiRouter, { guards, service }: JurisdictionRouteContext): void {
  registerTileRoutes(router, {
    path: '/jurisdiction/tiles',
    operationIds: { tile: 'getJurisdictionTile', tileJson: 'getJurisdictionTileJson' },
    tags: TAG,
    summary: 'Administrative overlay vector tiles',
    description:
      'Mapbox Vector Tile 2.1 (`application/vnd.mapbox-vector-tile`, extent 4096), one layer per boundary type ' +
      'named as the type, features carrying code, name, vintage and category. ' +
      `\`layers\`: comma list of types (default ${['province', 'district_municipality', 'local_municipality', 'ward'].join(',')}); `,
    tileJsonSummary: 'TileJSON of the administrative overlay tiles',
    tileJsonDescription:
      '`layers` and `as_at` as for the tiles: the template then asks for the same. ' +
      'The attribution names the sources of the boundary sets with geometry.',
    minZoom: TILE_MIN_ZOOM,
    query: TileQuerySchema,
    guards,
    source: (c, query) => jurisdictionTiles(service(c), query.layers, query.as_at ?? today()),
    canonical: (query) => ({ layers: query.layers.join(','), as_at: query.as_at ?? '' }),
  })
}
