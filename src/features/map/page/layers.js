/**
 * The map's style: a basemap made from our own data (water-blue background, the country outlines
 * of Natural Earth served beside the page, the jurisdiction tiles' provinces, municipalities and
 * wards) and the data overlays (parcels by type, plots and erven, encumbrances by class), each
 * from its vector-tile set, added from its TileJSON (`/api/v1/<set>/tiles.json`, fetched once) so
 * the zooms come from the server. Every overlay item is one legend toggle (legend.js); the highlight, hit and
 * drawing layers (overlays.js) go on top. No symbol (text) layer: they would need glyphs.
 */
import { API_BASE, get } from './api.js'
import { keyedTemplate } from './tiles.js'

export const WATER = '#a9cfe0'
export const LAND = '#e9e4d8'
export const LAND_SERVED = '#f7f4ec'

/** The tile sets, bottom to top, and the legend's items of each. */
export const GROUPS = [
  {
    id: 'jur',
    set: 'jurisdiction',
    title: 'Jurisdiction',
    items: [
      { layer: 'province', label: 'Province', colour: '#37474f', width: 2.4 },
      { layer: 'district_municipality', label: 'District', colour: '#5c6bc0', width: 1.8, dash: [4, 2] },
      { layer: 'local_municipality', label: 'Municipality', colour: '#7e57c2', width: 1.4 },
      { layer: 'ward', label: 'Ward', colour: '#9e9aa8', width: 0.8, dash: [2, 2] },
    ],
  },
  {
    id: 'parcels',
    set: 'parcels',
    title: 'Parcels',
    items: [
      { layer: 'parent_farm', label: 'Parent farm', colour: '#795548', width: 2.2 },
      { layer: 'farm_portion', label: 'Farm portion', colour: '#a1887f', width: 1.4, dash: [3, 1.5] },
      { layer: 'holding', label: 'Holding', colour: '#689f38', width: 1.2 },
      { layer: 'public_place', label: 'Public place', colour: '#2e7d32', width: 1, fill: 0.25 },
      { layer: 'street', label: 'Street', colour: '#9e9e9e', width: 0.8, fill: 0.35 },
      { layer: 'erf', label: 'Erf', colour: '#d84315', width: 1.6, fill: 0.12 },
    ],
  },
  {
    id: 'enc',
    set: 'encumbrances',
    title: 'Encumbrances',
    items: [
      { layer: 'mineral_right', label: 'Mineral right', colour: '#8e24aa', width: 1.5, fill: 0.18 },
      { layer: 'state_land', label: 'State land', colour: '#00897b', width: 1.5, fill: 0.2 },
      { layer: 'river_bed', label: 'River bed', colour: '#0277bd', width: 1.5, fill: 0.3 },
      { layer: 'proclamation_area', label: 'Proclamation area', colour: '#ef6c00', width: 1.2, fill: 0.12 },
      { layer: 'proclamation_line', label: 'Proclamation line', colour: '#ef6c00', width: 2, dash: [4, 2] },
      { layer: 'lease', label: 'Lease', colour: '#f9a825', width: 1.5, fill: 0.25 },
      { layer: 'established_boundary', label: 'Established boundary', colour: '#6d4c41', width: 2, dash: [1, 1] },
      { layer: 'servitude_area', label: 'Servitude area', colour: '#1e88e5', width: 1.2, fill: 0.35 },
      { layer: 'servitude_line', label: 'Servitude line', colour: '#0d47a1', width: 2.5 },
    ],
  },
  // the plot set's layers are read from its TileJSON (points of plots and erven)
  { id: 'plots', set: 'plots', title: 'Plots and erven', items: [], colours: ['#6a1b9a', '#c2185b', '#00838f'] },
]

/** The legend toggle of an item: `<group>.<layer>`, the word the URL hash lists. */
export const toggleId = (group, item) => `${group.id}.${item.layer}`

/** The basemap style, before the tile sets are added. */
export function baseStyle(assets) {
  return {
    version: 8,
    sources: {
      countries: {
        type: 'geojson',
        data: `${assets}/countries.geojson`,
        attribution: 'Made with Natural Earth; boundaries: Municipal Demarcation Board',
      },
    },
    layers: [
      { id: 'water', type: 'background', paint: { 'background-color': WATER } },
      { id: 'land', type: 'fill', source: 'countries', paint: { 'fill-color': LAND } },
      {
        id: 'land-served',
        type: 'fill',
        source: 'countries',
        filter: ['in', ['get', 'iso_a3'], ['literal', ['ZAF', 'BWA']]],
        paint: { 'fill-color': LAND_SERVED },
      },
      { id: 'country-line', type: 'line', source: 'countries', paint: { 'line-color': '#8d8d8d', 'line-width': 1 } },
    ],
  }
}

/**
 * The TileJSON of a tile set (its tiles template, zooms, bounds and layers), or, when the server
 * has none, the tiles template alone (its layers from the legend). Fetched once: the source is
 * made from this document (`vectorSource`), not from its URL, which MapLibre would fetch again.
 */
async function tileJson(set) {
  const answer = await get(`${API_BASE}/${set}/tiles.json`)
  if (answer.status === 200 && answer.json?.tiles) return answer.json
  return { tiles: [`${location.origin}${API_BASE}/${set}/tiles/{z}/{x}/{y}.mvt`], minzoom: 0, maxzoom: 16 }
}

/** The MapLibre source of a TileJSON document: its tiles through the keyed protocol (tiles.js). */
function vectorSource(json) {
  const source = { type: 'vector', tiles: json.tiles.map(keyedTemplate) }
  for (const k of ['minzoom', 'maxzoom', 'bounds', 'attribution', 'scheme'])
    if (json[k] !== undefined) source[k] = json[k]
  return source
}

const width = (w) => ['interpolate', ['linear'], ['zoom'], 10, w * 0.6, 16, w, 19, w * 1.8]

/** The style layers of one legend item: a fill of its polygons, a line, a circle for its points. */
function itemLayers(group, item, minzoom) {
  const base = { source: group.set, 'source-layer': item.layer, minzoom, metadata: { toggle: toggleId(group, item) } }
  const prefix = `${group.id}-${item.layer}`
  const out = []
  if (item.points) {
    out.push({
      ...base,
      id: `${prefix}-circle`,
      type: 'circle',
      paint: {
        'circle-color': item.colour,
        'circle-radius': ['interpolate', ['linear'], ['zoom'], 14, 2.5, 18, 5],
        'circle-stroke-color': '#ffffff',
        'circle-stroke-width': 1,
      },
    })
    return out
  }
  if (item.fill)
    out.push({
      ...base,
      id: `${prefix}-fill`,
      type: 'fill',
      filter: ['==', ['geometry-type'], 'Polygon'],
      paint: { 'fill-color': item.colour, 'fill-opacity': item.fill },
    })
  out.push({
    ...base,
    id: `${prefix}-line`,
    type: 'line',
    paint: {
      'line-color': item.colour,
      'line-width': width(item.width),
      ...(item.dash ? { 'line-dasharray': item.dash } : {}),
    },
  })
  return out
}

/**
 * Adds every tile set and its layers below `beforeId`; answers the legend items with their
 * minimum zoom (from the TileJSON's vector_layers when it has them) and the style layer ids.
 */
export async function addTileSets(map, beforeId) {
  const sets = await Promise.all(GROUPS.map((g) => tileJson(g.set)))
  const items = []
  GROUPS.forEach((group, i) => {
    const json = sets[i]
    map.addSource(group.set, vectorSource(json))
    const zooms = new Map((json.vector_layers ?? []).map((l) => [l.id, l.minzoom ?? json.minzoom ?? 0]))
    const groupItems =
      group.items.length > 0
        ? group.items
        : (json.vector_layers ?? []).map((l, k) => ({
            layer: l.id,
            label: l.description || l.id.replaceAll('_', ' '),
            colour: group.colours[k % group.colours.length],
            points: true,
          }))
    for (const item of groupItems) {
      const minzoom = zooms.get(item.layer) ?? json.minzoom ?? 0
      const layers = itemLayers(group, item, minzoom)
      for (const l of layers) map.addLayer(l, beforeId)
      items.push({ group, item, id: toggleId(group, item), minzoom, layerIds: layers.map((l) => l.id) })
    }
  })
  return items
}

/** Shows or hides the style layers of one legend item. */
export function setItemVisible(map, entry, visible) {
  for (const id of entry.layerIds) map.setLayoutProperty(id, 'visibility', visible ? 'visible' : 'none')
}
