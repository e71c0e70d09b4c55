/**
 * TileJSON 3.0.0 (https://github.com/mapbox/tilejson-spec/tree/master/3.0.0) for every vector
 * tile set: the answer's schema (the OpenAPI description), and the document made from a tile
 * set's description, the request's origin (request-origin.ts) and the layers asked for.
 *
 * `maxzoom` is the deepest zoom at which a tile set gains detail, not the deepest the tile routes
 * cut (22): a map client over-zooms the tiles of `maxzoom` beyond it (a vertex kept at z16 is
 * within 1 tile pixel, about 0.15 m in South Africa, of the stored boundary), which spares the
 * server tiles nobody can tell apart.
 */
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { MAX_MERCATOR_LAT } from '../geo/tiles.js'
import type { AppEnv } from './env.js'
import type { ApiRouter } from './openapi.js'
import { json } from './reply.js'
import { requestOrigin } from './request-origin.js'

/** One layer of a tile set as TileJSON's `vector_layers` lists it. */
export interface VectorLayer {
  id: string
  description: string
  /** field name -> its type and meaning (`String: …`, `Number: …`) */
  fields: Record<string, string>
  minzoom: number
}

/** What a feature says about its tile set; the route adds the origin and the layers asked for. */
export interface TileSet {
  name: string
  description: string
  attribution?: string
  /** the tile route's path from the API root, before `/{z}/{x}/{y}.mvt`: `/parcels/tiles` */
  path: string
  maxzoom: number
  /** the layers the tiles hold, for the layers asked for */
  layers: VectorLayer[]
  /** west, south, east, north of the data, or null when the data set is empty */
  bounds: [number, number, number, number] | null
  dataset_version: string
  as_of?: string
}

const FieldsSchema = z.record(z.string(), z.string()).openapi({
  description: 'Field name to its type (`String`, `Number`) and meaning.',
})

export const TileJsonSchema = z
  .object({
    tilejson: z.literal('3.0.0'),
    name: z.string(),
    description: z.string(),
    attribution: z.string().optional(),
    scheme: z.literal('xyz'),
    tiles: z.array(z.string()).openapi({
      description:
        "One absolute URL template, `{z}/{x}/{y}.mvt` under this request's origin (`X-Forwarded-Proto` and " +
        '`X-Forwarded-Host` are honoured from a trusted proxy only, TRUSTED_PROXIES); the layers asked for are ' +
        'kept in its query. Send `X-API-KEY` with every tile request.',
    }),
    minzoom: z.number().int(),
    maxzoom: z.number().int(),
    bounds: z.array(z.number()).length(4).optional().openapi({ description: 'west, south, east, north of the data' }),
    vector_layers: z.array(
      z.object({
        id: z.string(),
        description: z.string(),
        fields: FieldsSchema,
        minzoom: z.number().int(),
        maxzoom: z.number().int(),
      }),
    ),
    dataset_version: z.string(),
    as_of: z.string().optional(),
  })
  .openapi('TileJSON')

export type TileJson = z.infer<typeof TileJsonSchema>

/** The box of all the indexes' items (Flatbush's `minX`…), west, south, east, north; null when none holds one. */
export function boundsOf(
  indexes: Iterable<{ numItems: number; minX: number; minY: number; maxX: number; maxY: number }>,
): [number, number, number, number] | null {
  let b: [number, number, number, number] | null = null
  for (const i of indexes) {
    if (i.numItems === 0 || !(i.minX <= i.maxX)) continue
    b = b
      ? [Math.min(b[0], i.minX), Math.min(b[1], i.minY), Math.max(b[2], i.maxX), Math.max(b[3], i.maxY)]
      : [i.minX, i.minY, i.maxX, i.maxY]
  }
  return b
}

const out6 = (v: number, up: boolean) => (up ? Math.ceil(v * 1e6) : Math.floor(v * 1e6)) / 1e6

/**
 * The TileJSON document of `set`: `origin` + `basePath` + `set.path` + `/{z}/{x}/{y}.mvt` + `query`
 * (`?layers=…` as asked, or ''), the bounds rounded outwards to 1e-6° and kept on the Mercator
 * square.
 */
export function tileJson(origin: string, basePath: string, set: TileSet, query: string): TileJson {
  const minzoom = Math.min(...set.layers.map((l) => l.minzoom))
  const b = set.bounds
  return {
    tilejson: '3.0.0',
    name: set.name,
    description: set.description,
    ...(set.attribution ? { attribution: set.attribution } : {}),
    scheme: 'xyz',
    tiles: [`${origin}${basePath}${set.path}/{z}/{x}/{y}.mvt${query}`],
    minzoom: Math.min(minzoom, set.maxzoom),
    maxzoom: set.maxzoom,
    ...(b
      ? {
          bounds: [
            Math.max(-180, out6(b[0], false)),
            Math.max(-MAX_MERCATOR_LAT, out6(b[1], false)),
            Math.min(180, out6(b[2], true)),
            Math.min(MAX_MERCATOR_LAT, out6(b[3], true)),
          ],
        }
      : {}),
    vector_layers: set.layers.map((l) => ({
      id: l.id,
      description: l.description,
      fields: l.fields,
      minzoom: Math.min(l.minzoom, set.maxzoom),
      maxzoom: set.maxzoom,
    })),
    dataset_version: set.dataset_version,
    ...(set.as_of ? { as_of: set.as_of } : {}),
  }
}

/**
 * The TileJSON answer of a tile set: the template under this request's origin, its query naming
 * the tile parameters the request named (`canonical`: each parameter's validated value, as
 * `layers=erf,street`), so the tiles hold what the document describes; none named: the tile
 * route's defaults.
 */
export function tileJsonAnswer(
  c: Context<AppEnv>,
  router: ApiRouter,
  set: TileSet,
  canonical: Record<string, string>,
): Response {
  const asked: string[] = []
  for (const [name, value] of Object.entries(canonical)) {
    const given = c.req.query(name)
    if (given !== undefined && given.trim() !== '')
      asked.push(`${name}=${encodeURIComponent(value).replace(/%2C/g, ',')}`)
  }
  const query = asked.length ? `?${asked.join('&')}` : ''
  return json(c, tileJson(requestOrigin(c, router.trustedProxies), router.basePath, set, query))
}

/** The responses every TileJSON route documents (the router adds 304 and the errors). */
export const TILEJSON_RESPONSES = { 200: { description: 'TileJSON 3.0.0.', schema: TileJsonSchema } }

/** The OpenAPI text every TileJSON route shares. */
export const TILEJSON_TEXT =
  'TileJSON 3.0.0 of the tile set, for map clients (MapLibre, QGIS "Vector Tiles" connections): the tile URL ' +
  'template, the zoom range, the bounds of the data and one `vector_layers` entry per layer the tiles hold ' +
  '(its fields, its minzoom). `maxzoom` is the deepest zoom that adds detail; clients over-zoom beyond it ' +
  '(the tile route itself answers up to z22). Keyed like the tiles; ETag, `Cache-Control` and 304 as every JSON GET.'
