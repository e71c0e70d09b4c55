import type { Context } from 'hono'
import type { AppEnv } from './env.js'
import { reply, setHeader } from './reply.js'

/** The media type of every vector tile we serve (Mapbox Vector Tile 2.1). */
export const MVT_CONTENT_TYPE = 'application/vnd.mapbox-vector-tile'

/**
 * The one answer of every tile route: `ETag` (a tile of an immutable dataset changes only with
 * it, so the tag names the dataset version and whatever else selects the tile's content) and
 * `Cache-Control` on every answer; 304 when `If-None-Match` matches; otherwise the tile that
 * `encode` makes, or 204 when it holds no feature (`encode` gives no bytes).
 */
export function tileAnswer(c: Context<AppEnv>, etag: string, encode: () => Uint8Array): Response {
  setHeader(c, 'ETag', etag)
  setHeader(c, 'Cache-Control', 'public, max-age=3600')
  if (c.req.header('if-none-match') === etag) return reply(c, null, 304)
  const bytes = encode()
  if (bytes.byteLength === 0) return reply(c, null, 204)
  return reply(c, bytes, 200, MVT_CONTENT_TYPE)
}
