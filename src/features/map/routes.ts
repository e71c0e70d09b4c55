/**
 * `GET /map`: the map page (docs/map.md), and `GET /map/assets/{version}/{file}`: its scripts,
 * stylesheets, MapLibre and the basemap's country outlines. Served without a key, like `/docs`:
 * the page asks for the key and sends it (`X-API-KEY`) on every tile and API request itself.
 *
 * The page's Content-Security-Policy allows this origin only: scripts, the MapLibre worker (the
 * CSP build's worker file, so no `blob:` worker is needed), tiles and API calls. Images may also
 * be `data:` (MapLibre's stylesheet draws its control icons as data URIs). Nothing is fetched
 * from anywhere else: no CDN, no fonts, no glyphs or sprites.
 *
 * @module
 */
import type { Context, Hono } from 'hono'
import { negotiate } from '../../http/compress.js'
import type { AppEnv } from '../../http/env.js'
import { ApiError } from '../../http/errors.js'
import type { Answer, Answerer } from '../../http/front-door.js'
import { requestHeader } from '../../http/request-header.js'
import { appendHeader, reply, setHeader } from '../../http/reply.js'
import { bodyIn, loadMapAssets, type MapAsset } from './assets.js'

export const MAP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "style-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** The versioned assets: a year, never revalidated (a new build names a new version). */
const ASSET_CACHE = 'public, max-age=31536000, immutable'
/** The page: kept, but asked again on every load, so it names the current assets. */
const PAGE_CACHE = 'no-cache'

/** Answers `a`: 304 when If-None-Match names it, else its body as Accept-Encoding allows. */
function send(c: Context<AppEnv>, a: MapAsset, cacheControl: string): Response {
  setHeader(c, 'Cache-Control', cacheControl)
  setHeader(c, 'Content-Security-Policy', MAP_CSP)
  appendHeader(c, 'Vary', 'Accept-Encoding')
  const coding = a.body.byteLength > 1024 ? negotiate(requestHeader(c, 'accept-encoding')) : null
  // one tag per representation, as for the JSON answers (docs/api.md "HTTP conventions")
  const etag = coding === null ? a.etag : `${a.etag.slice(0, -1)}-${coding}"`
  setHeader(c, 'ETag', etag)
  if (
    requestHeader(c, 'if-none-match')
      ?.split(',')
      .some((t) => t.trim() === etag)
  )
    return reply(c, null, 304)
  if (coding !== null) setHeader(c, 'Content-Encoding', coding)
  return reply(c, bodyIn(a, coding), 200, a.type)
}

/** Read once per process (tests make many apps). */
let assets: ReturnType<typeof loadMapAssets> | undefined

/** Mounts the page and its assets on `app` (beside /docs; they are not part of the API). */
export function mountMap(
  app: Hono<AppEnv>,
  open: (handler: Answerer, route: string) => (c: Context<AppEnv>) => Answer,
): void {
  assets ??= loadMapAssets()
  const { page, files, version } = assets
  const notFound = (c: Context<AppEnv>) => new ApiError('NotFound', `no route for ${c.req.method} ${c.req.path}`)
  app.get(
    '/map',
    open((c) => {
      setHeader(c, 'Referrer-Policy', 'no-referrer')
      return send(c, page, PAGE_CACHE)
    }, '/map'),
  )
  app.get(
    '/map/assets/:version/:file',
    open((c) => {
      const file = files.get(c.req.param('file') ?? '')
      if (file === undefined || c.req.param('version') !== version) throw notFound(c)
      return send(c, file, ASSET_CACHE)
    }, '/map/assets/{version}/{file}'),
  )
}
