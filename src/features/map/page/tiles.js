/**
 * The tiles' own protocol: MapLibre asks for `keyed://<tile URL>`, and this page fetches the tile
 * itself (throttle.js) with the key, so a 429 is waited out for the seconds its `Retry-After`
 * names and the tile asked again, instead of MapLibre giving the tile up as an error (it would not
 * ask again until the source were reloaded, and a reload asks for every tile again). A tile that
 * MapLibre no longer needs (the view moved on) stops waiting: its request is aborted.
 */
import { headersFor } from './api.js'
import { throttledFetch } from './throttle.js'

const PROTOCOL = 'keyed'
const PREFIX = `${PROTOCOL}://`

/**
 * The tile template MapLibre is given for a template of the API: the same URL (made absolute, its
 * `{z}/{x}/{y}` kept as they are), through the protocol.
 */
export const keyedTemplate = (url) => PREFIX + (/^https?:\/\//.test(url) ? url : `${location.origin}${url}`)

/** True for a URL of the protocol (MapLibre's transformRequest leaves them as they are). */
export const isKeyed = (url) => url.startsWith(PREFIX)

/**
 * Registers the protocol with MapLibre; `failed(status)` hears a tile answered with an error
 * other than 404 (401 included: the key was refused).
 */
export function registerTileProtocol(maplibregl, failed) {
  maplibregl.addProtocol(PROTOCOL, async (params, abortController) => {
    const url = params.url.slice(PREFIX.length)
    const res = await throttledFetch(url, { headers: headersFor(url), signal: abortController.signal })
    if (res.status === 204) return { data: new ArrayBuffer(0) }
    if (!res.ok) {
      if (res.status !== 404) failed(res.status)
      throw new maplibregl.AJAXError(res.status, res.statusText, url, await res.blob())
    }
    return {
      data: await res.arrayBuffer(),
      cacheControl: res.headers.get('Cache-Control'),
      expires: res.headers.get('Expires'),
    }
  })
}
