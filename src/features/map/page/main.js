/**
 * The map page's start: asks for the API key once (kept in this tab's sessionStorage), builds
 * the MapLibre map (every tile and API request carries the key), and wires the legend, the
 * click panel, the search box and the drawing tools; the view lives in the URL hash.
 * `window.landMap` exposes the map and `whenIdle()` to scripts and the browser test.
 */
import { get, headersFor, keyRefused, onKeyRejected } from './api.js'
import { Draw } from './draw.js'
import { inspectPoint } from './inspect.js'
import { addTileSets, baseStyle, setItemVisible } from './layers.js'
import { markZoom, renderLegend } from './legend.js'
import { addOverlays } from './overlays.js'
import { closePanel } from './panel.js'
import { runSearch } from './search.js'
import { clearKey, getKey, readHash, setKey, writeHash } from './state.js'
import { onSlowDown } from './throttle.js'
import { isKeyed, registerTileProtocol } from './tiles.js'

const maplibregl = window.maplibregl
const ASSETS = new URL('.', import.meta.url).href.replace(/\/$/, '')
/** Southern Africa, both countries in view. */
const HOME = { lat: -26.5, lon: 25.5, zoom: 4.2 }

const $ = (id) => document.getElementById(id)

/** The status line: what the page says (drawing, a failed request), or while a 429 is waited out, that. */
let message = ''
let slowFor = 0

function showStatus() {
  const text = slowFor > 0 ? `Slowing down: retrying in ${slowFor} s` : message
  $('status').textContent = text
  $('status').hidden = !text
}

function status(text) {
  message = text
  showStatus()
}

/** A tile or map resource answered an error (never 404: an empty place has no tile). */
function requestFailed(s) {
  if (s === 401) keyRefused()
  else if (s && s !== 404) status(`A map request failed (HTTP ${s}); the rest of the map still loads.`)
}

let asking = null

/**
 * Asks for the key until the API accepts it (anything but 401: a key without a product still is
 * one); one question at a time, however many requests were refused.
 */
function askKey(message = '') {
  asking ??= ask(message).finally(() => {
    asking = null
  })
  return asking
}

function ask(message) {
  const dialog = $('key-dialog')
  const input = $('key-input')
  $('key-error').textContent = message
  return new Promise((resolve) => {
    const submit = async (ev) => {
      ev.preventDefault()
      if (!input.value.trim()) return
      setKey(input.value)
      const check = await get('/jurisdiction/coverage')
      if (check.status === 401 || check.status === 0) {
        clearKey()
        $('key-error').textContent = check.json?.message ?? 'The API refused this key.'
        return
      }
      $('key-form').removeEventListener('submit', submit)
      input.value = ''
      dialog.close()
      resolve()
    }
    $('key-form').addEventListener('submit', submit)
    if (!dialog.open) dialog.showModal()
    input.focus()
  })
}

/**
 * The sources' credits (long for the boundary sets) start folded behind MapLibre's (i) button:
 * its compact attribution opens itself when the first credit arrives, so it is folded then, once.
 */
function foldAttribution(map) {
  const fold = () => {
    const attrib = map.getContainer().querySelector('.maplibregl-ctrl-attrib.maplibregl-compact')
    if (!attrib) return
    attrib.classList.remove('maplibregl-compact-show')
    map.off('sourcedata', fold)
    map.off('styledata', fold)
  }
  map.on('sourcedata', fold)
  map.on('styledata', fold)
}

function startMap() {
  const { view, off } = readHash()
  const start = view ?? HOME
  maplibregl.setWorkerUrl(`${ASSETS}/maplibre-gl-csp-worker.js`)
  registerTileProtocol(maplibregl, requestFailed)
  const map = new maplibregl.Map({
    container: 'map',
    style: baseStyle(ASSETS),
    center: [start.lon, start.lat],
    zoom: start.zoom,
    attributionControl: { compact: true },
    // relative URLs made absolute (the worker has no page URL to resolve them against), and the
    // key on every request to the API; the tiles' protocol (tiles.js) sends the key itself
    transformRequest: (url) => {
      if (isKeyed(url)) return { url }
      const absolute = new URL(url, location.origin).href
      return { url: absolute, headers: headersFor(absolute) }
    },
  })
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'bottom-right')
  map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-left')
  const whenIdle = () =>
    new Promise((resolve) => {
      map.once('idle', resolve)
      map.triggerRepaint()
    })
  window.landMap = { map, whenIdle, ready: null }

  const save = () => {
    const c = map.getCenter()
    writeHash({ zoom: map.getZoom(), lat: c.lat, lon: c.lng }, off)
  }
  map.on('error', (e) => requestFailed(e.error?.status))
  foldAttribution(map)

  window.landMap.ready = new Promise((resolve) => {
    map.on('load', async () => {
      const entries = await addTileSets(map)
      addOverlays(map)
      for (const e of entries) if (off.has(e.id)) setItemVisible(map, e, false)
      renderLegend($('legend'), entries, off, (id, visible) => {
        const entry = entries.find((e) => e.id === id)
        setItemVisible(map, entry, visible)
        if (visible) off.delete(id)
        else off.add(id)
        save()
      })
      markZoom($('legend'), map.getZoom())
      document.body.dataset.ready = 'true'
      resolve()
    })
  })
  map.on('moveend', () => {
    save()
    markZoom($('legend'), map.getZoom())
  })
  map.on('idle', () => {
    document.body.dataset.mapIdle = 'true'
  })
  map.on('dataloading', () => {
    delete document.body.dataset.mapIdle
  })

  const draw = new Draw(map, (mode, n) => {
    $('draw-finish').hidden = mode === null
    $('draw-cancel').hidden = mode === null
    $('draw-finish').disabled = n < (mode === 'area' ? 3 : 2)
    $('draw-route').classList.toggle('active', mode === 'route')
    $('draw-area').classList.toggle('active', mode === 'area')
    status(
      mode ? `Drawing ${mode === 'route' ? 'a route' : 'an area'}: click its points, then Finish (${n} so far)` : '',
    )
  })
  window.landMap.draw = draw
  map.on('click', (e) => {
    if (draw.active) draw.add(e.lngLat)
    else inspectPoint(map, e.lngLat)
  })
  $('draw-route').addEventListener('click', () => draw.start('route'))
  $('draw-area').addEventListener('click', () => draw.start('area'))
  $('draw-finish').addEventListener('click', () => draw.finish())
  $('draw-cancel').addEventListener('click', () => draw.cancel())
  $('search').addEventListener('submit', (ev) => {
    ev.preventDefault()
    runSearch(map, $('q').value)
  })
  $('panel-close').addEventListener('click', closePanel)
  // the legend shows by default on a wide screen, and is opened on a phone
  const legendShown = () => getComputedStyle($('legend')).display !== 'none'
  $('layers-toggle').setAttribute('aria-expanded', String(legendShown()))
  $('layers-toggle').addEventListener('click', () => {
    document.body.classList.toggle('legend-toggled')
    $('layers-toggle').setAttribute('aria-expanded', String(legendShown()))
  })
  window.addEventListener('hashchange', () => {
    const { view: v } = readHash()
    if (v) map.jumpTo({ center: [v.lon, v.lat], zoom: v.zoom })
  })
}

async function main() {
  if (!maplibregl) {
    status('MapLibre did not load.')
    return
  }
  onSlowDown((seconds) => {
    slowFor = seconds
    showStatus()
  })
  $('key-change').addEventListener('click', async () => {
    clearKey()
    await askKey()
    location.reload()
  })
  onKeyRejected(async () => {
    if (asking) return
    clearKey()
    await askKey('The API refused the key (mistyped, revoked or expired): enter it again.')
    location.reload()
  })
  if (!getKey()) await askKey()
  startMap()
}

main()
