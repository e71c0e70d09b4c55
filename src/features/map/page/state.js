/**
 * What the page keeps between loads: the API key (this tab's sessionStorage only: gone when the
 * tab closes, never in localStorage or a cookie) and the view in the URL hash, so a view can be
 * bookmarked or shared without its key: `#map=<zoom>/<lat>/<lon>&off=<layer>,<layer>` (docs/map.md).
 */

const KEY_ITEM = 'landdata.apiKey'

export function getKey() {
  return sessionStorage.getItem(KEY_ITEM) ?? ''
}

export function setKey(key) {
  sessionStorage.setItem(KEY_ITEM, key.trim())
}

export function clearKey() {
  sessionStorage.removeItem(KEY_ITEM)
}

/** The view in the hash, or null where it names none: `{ zoom, lat, lon, off: Set }`. */
export function readHash(hash = location.hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''))
  const off = new Set((params.get('off') ?? '').split(',').filter(Boolean))
  const parts = (params.get('map') ?? '').split('/').map(Number)
  if (parts.length !== 3 || parts.some((n) => !Number.isFinite(n))) return { view: null, off }
  const [zoom, lat, lon] = parts
  if (Math.abs(lat) > 85 || Math.abs(lon) > 180 || zoom < 0 || zoom > 22) return { view: null, off }
  return { view: { zoom, lat, lon }, off }
}

/** Writes the view into the hash without adding a history entry. */
export function writeHash(view, off) {
  const precision = Math.max(0, Math.ceil(Math.log2(view.zoom + 1)))
  const map = `${view.zoom.toFixed(2)}/${view.lat.toFixed(precision + 1)}/${view.lon.toFixed(precision + 1)}`
  const hidden = [...off].sort().join(',')
  const hash = `#map=${map}${hidden ? `&off=${hidden}` : ''}`
  if (hash !== location.hash) history.replaceState(null, '', hash)
}
