import type { Context } from 'hono'
import type { AppEnv } from './env.js'
import { noneMatch } from './etag.js'
import { appendHeader, reply, setHeader } from './reply.js'
import { requestHeader } from './request-header.js'

/** The media type of every vector tile we serve (Mapbox Vector Tile 2.1). */
export const MVT_CONTENT_TYPE = 'application/vnd.mapbox-vector-tile'

/** `Cache-Control` of every tile answer. */
export const TILE_CACHE_CONTROL = 'private, max-age=3600'

/**
 * The one answer of every tile route: `ETag` (a tile of an immutable dataset changes only with
 * it, so the tag names the dataset version and whatever else selects the tile's content) and
 * `Cache-Control` on every answer; 304 when `If-None-Match` names it (or its compressed form,
 * `"…-gzip"`, etag.ts); otherwise the tile that `encode` makes, compressed as the request allows
 * when large (reply.ts), or 204 when it holds no feature (`encode` gives no bytes).
 */
export function tileAnswer(c: Context<AppEnv>, etag: string, encode: () => Uint8Array): Response {
  setHeader(c, 'ETag', etag)
  // keyed: only the browser of the key may keep it, and not for another key (docs/api.md
  // "HTTP conventions")
  setHeader(c, 'Cache-Control', TILE_CACHE_CONTROL)
  appendHeader(c, 'Vary', 'X-API-KEY')
  const inm = requestHeader(c, 'if-none-match')
  const held = inm === undefined ? null : noneMatch(inm, etag)
  if (held !== null) {
    // the 304 names the representation the client holds (compressed or not)
    setHeader(c, 'ETag', held)
    return reply(c, null, 304)
  }
  const bytes = encode()
  if (bytes.byteLength === 0) return reply(c, null, 204)
  return reply(c, bytes, 200, MVT_CONTENT_TYPE)
}

/**
 * The part of every tile route's OpenAPI description that states the shared rules: the zoom from
 * which each layer appears, the tile address bounds, 204 and the ETag.
 */
export function tileRulesText(minZoom: Readonly<Record<string, number>>): string {
  const zooms = Object.entries(minZoom)
    .map(([k, v]) => `${k} z${v}`)
    .join(', ')
  return (
    `each layer appears from its zoom on: ${zooms}. z 0–22, x and y 0–2^z−1, else 400. ` +
    'No feature in the tile: 204. ETag from the dataset version; If-None-Match answers 304. ' +
    '`Cache-Control: private, max-age=3600` and `Vary: X-API-KEY`: a tile is served for a key.'
  )
}

/** The responses every tile route documents. */
export const TILE_RESPONSES = {
  200: { description: 'The tile.', contentType: MVT_CONTENT_TYPE },
  204: { description: 'No feature in this tile.' },
  304: { description: 'Not modified (If-None-Match matched the ETag).' },
} as const
