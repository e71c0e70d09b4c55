import { gunzipSync } from 'node:zlib'
import type { Context } from 'hono'
import { selectLayers } from '../geo/mvt/select-layers.js'
import { acceptsGzip } from './compress.js'
import type { AppEnv } from './env.js'
import { noneMatch, VARY_KEY } from './etag.js'
import { appendHeader, reply, setHeader } from './reply.js'
import { requestHeader } from './request-header.js'
import type { StoredTile, Tile } from './tile-source.js'

/** The media type of every vector tile we serve (Mapbox Vector Tile 2.1). */
export const MVT_CONTENT_TYPE = 'application/vnd.mapbox-vector-tile'

/** `Cache-Control` of every tile answer. */
export const TILE_CACHE_CONTROL = 'private, max-age=3600'

/**
 * The one answer of every tile route (tile-routes.ts): `ETag` (the tile's, tile-source.ts) and
 * `Cache-Control` on every answer; 304 when `If-None-Match` names the tag (or its compressed
 * form, `"…-gzip"`, etag.ts); otherwise the tile, or 204 when it holds no feature. A tile made
 * now is compressed as the request allows when large (reply.ts); a stored one, see storedAnswer.
 */
export function tileAnswer(c: Context<AppEnv>, tile: Tile): Response {
  setHeader(c, 'ETag', tile.etag)
  // keyed: only the browser of the key may keep it, and not for another key (docs/api.md
  // "HTTP conventions")
  setHeader(c, 'Cache-Control', TILE_CACHE_CONTROL)
  // Accept-Encoding on every answer, the 304 included, as etag.ts says why
  appendHeader(c, 'Vary', VARY_KEY)
  const inm = requestHeader(c, 'if-none-match')
  const held = inm === undefined ? null : noneMatch(inm, tile.etag)
  if (held !== null) {
    // the 304 names the representation the client holds (compressed or not)
    setHeader(c, 'ETag', held)
    return reply(c, null, 304)
  }
  if ('gzip' in tile) return storedAnswer(c, tile)
  const bytes = tile.encode()
  if (bytes.byteLength === 0) return reply(c, null, 204)
  return reply(c, bytes, 200, MVT_CONTENT_TYPE)
}

/**
 * A stored tile: as stored, gzip-compressed, to a client that accepts gzip (`Content-Encoding:
 * gzip`, the ETag suffixed `-gzip`, as reply.ts tags a compressed answer), decompressed for one
 * that does not; with fewer layers than stored, those layers picked from the decompressed tile
 * and answered as a tile made now.
 */
function storedAnswer(c: Context<AppEnv>, tile: StoredTile): Response {
  if (tile.gzip === null) return reply(c, null, 204)
  if (tile.layers !== null) {
    const bytes = selectLayers(gunzipSync(tile.gzip), tile.layers)
    if (bytes.byteLength === 0) return reply(c, null, 204)
    return reply(c, bytes, 200, MVT_CONTENT_TYPE)
  }
  appendHeader(c, 'Vary', 'Accept-Encoding')
  if (!acceptsGzip(requestHeader(c, 'accept-encoding'))) return reply(c, gunzipSync(tile.gzip), 200, MVT_CONTENT_TYPE)
  setHeader(c, 'Content-Encoding', 'gzip')
  setHeader(c, 'ETag', `${tile.etag.slice(0, -1)}-gzip"`)
  return reply(c, tile.gzip, 200, MVT_CONTENT_TYPE)
}
