/**
 * The two routes of every tile set, registered from one description (a {@link TileFamily}):
 * `GET {path}/{z}/{x}/{y}.mvt`, the tile its source gives (tile-answer.ts: ETag, 304, 204 when
 * empty, compression), and `GET {path}.json`, the source's TileJSON (tilejson.ts). The feature
 * supplies what differs: its query parameters, guards, texts and the source for a request.
 *
 * @module
 */
import type { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv, RouteGuard } from './env.js'
import type { ApiRouter } from './openapi.js'
import { MVT_CONTENT_TYPE, tileAnswer } from './tile-answer.js'
import { parseTileParams, TileParamsSchema } from './tile-params.js'
import type { TileSource } from './tile-source.js'
import { TILEJSON_RESPONSES, TILEJSON_TEXT, tileJsonAnswer } from './tilejson.js'

/** What a feature says about its tile set for the two routes. */
export interface TileFamily<Q extends z.ZodObject> {
  /** the routes' path from the API root, before `/{z}/{x}/{y}.mvt` and `.json`: `/parcels/tiles` */
  path: string
  tags: string[]
  summary: string
  /** the tile route's own text; the rules every tile route shares ({@link tileRulesText}) follow it */
  description: string
  tileJsonSummary: string
  /** the TileJSON route's own text, after the text every TileJSON route shares */
  tileJsonDescription: string
  /** per layer, the zoom it appears from (the routes' documentation) */
  minZoom: Readonly<Record<string, number>>
  /** the query parameters of both routes */
  query: Q
  guards: RouteGuard[]
  /** the source for this request's parameters (may throw an ApiError: a 403 for a scope, a 503) */
  source(c: Context<AppEnv>, query: z.output<Q>): TileSource
  /**
   * Each parameter's validated value as the TileJSON template repeats it when the request named
   * it (`layers=erf,street`), so the tiles hold what the document describes.
   */
  canonical(query: z.output<Q>): Record<string, string>
}

/**
 * The part of every tile route's OpenAPI description that states the shared rules: the zoom from
 * which each layer appears, the tile address bounds, 204, the ETag and compression.
 */
export function tileRulesText(minZoom: Readonly<Record<string, number>>): string {
  const zooms = Object.entries(minZoom)
    .map(([k, v]) => `${k} z${v}`)
    .join(', ')
  return (
    `each layer appears from its zoom on: ${zooms}. z 0–22, x and y 0–2^z−1, else 400. ` +
    "No feature in the tile: 204. ETag from the tile's content where it was made at build time, else from the " +
    'dataset version and what selects the tile; If-None-Match answers 304. Sent gzip- or brotli-compressed as ' +
    '`Accept-Encoding` allows (a stored tile as stored, gzip). ' +
    '`Cache-Control: private, max-age=3600` and `Vary: X-API-KEY, Accept-Encoding`: a tile is served for a key.' +
    " Tiles and TileJSON count against the key's tile allowance (docs: Rate limits), not its requests."
  )
}

/** The responses every tile route documents. */
export const TILE_RESPONSES = {
  200: { description: 'The tile.', contentType: MVT_CONTENT_TYPE },
  204: { description: 'No feature in this tile.' },
  304: { description: 'Not modified (If-None-Match matched the ETag).' },
} as const

/** Registers the tile route and the TileJSON route of `family`, in that order. */
export function registerTileRoutes<Q extends z.ZodObject>(router: ApiRouter, family: TileFamily<Q>): void {
  router.add(
    {
      method: 'get',
      path: `${family.path}/{z}/{x}/{y}.mvt`,
      honoPath: `${family.path}/:z/:x/:y{[^/]+\\.mvt}`,
      tags: family.tags,
      summary: family.summary,
      description: `${family.description}${tileRulesText(family.minZoom)}`,
      request: { params: TileParamsSchema, query: family.query },
      responses: TILE_RESPONSES,
      allowance: 'tiles',
    },
    family.guards,
    (c, { params, query }) => {
      // the source first: a dataset without the domain answers 503 whatever the address
      const source = family.source(c, query as z.output<Q>)
      const { z, x, y } = parseTileParams(params)
      return tileAnswer(c, source.tile(z, x, y))
    },
  )
  router.add(
    {
      method: 'get',
      path: `${family.path}.json`,
      tags: family.tags,
      summary: family.tileJsonSummary,
      description: `${TILEJSON_TEXT} ${family.tileJsonDescription}`,
      request: { query: family.query },
      responses: TILEJSON_RESPONSES,
      allowance: 'tiles',
    },
    family.guards,
    (c, { query }) => {
      const q = query as z.output<Q>
      return tileJsonAnswer(c, router, family.source(c, q).tileSet(), family.canonical(q))
    },
  )
}
