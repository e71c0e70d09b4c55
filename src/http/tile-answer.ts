import type { Context } from 'hono'
import type { AppEnv } from './env.js'
import { noneMatch } from './etag.js'
import { appendHeader, reply, setHeader } from './reply.js'
import { requestHeader } from './request-header.js'
import type { Tile } from './tile-source.js'

/** The media type of every vector tile we serve (Mapbox Vector Tile 2.1). */
export const MVT_CONTENT_TYPE = 'application/vnd.mapbox-vector-tile'

/** `Cache-Control` of every tile answer. */
export const TILE_CACHE_CONTROL = 'private, max-age=3600'

/**
 * The one answer of every tile route (tile-routes.ts): `ETag` (the tile's, tile-source.ts) and
 * `Cache-Control` on every answer; 304 when `If-None-Match` names the tag (or its compressed
 * form, `"…-gzip"`, etag.ts); otherwise the tile, compressed as the request allows when large
 * (reply.ts), or 204 when it holds no feature.
 */
export function tileAnswer(c: Context<AppEnv>, tile: Tile): Response {
  setHeader(c, 'ETag', tile.etag)
  // keyed: only the browser of the key may keep it, and not for another key (docs/api.md
  // "HTTP conventions")
  setHeader(c, 'Cache-Control', TILE_CACHE_CONTROL)
  appendHeader(c, 'Vary', 'X-API-KEY')
  const inm = requestHeader(c, 'if-none-match')
  const held = inm === undefined ? null : noneMatch(inm, tile.etag)
  if (held !== null) {
    // the 304 names the representation the client holds (compressed or not)
    setHeader(c, 'ETag', held)
    return reply(c, null, 304)
  }
  const bytes = tile.encode()
  if (bytes.byteLength === 0) return reply(c, null, 204)
  return reply(c, bytes, 200, MVT_CONTENT_TYPE)
}
