/**
 * The layers drawn from API answers on top of the tiles: the highlighted search result or clicked
 * parcel (`highlight`), the encumbrances an intersect met (`hits`) with the parcels it entered
 * (the parcel tiles' features of those LPIs, outlined), and the route or area being drawn
 * (`draft`). Each is a GeoJSON source the page replaces as answers come.
 */
export const HIGHLIGHT = '#ffb300'
export const HIT = '#e53935'
export const DRAFT = '#212121'

/** The id of the first overlay layer: the tile layers go below it. */
export const FIRST_OVERLAY = 'highlight-fill'

const empty = () => ({ type: 'FeatureCollection', features: [] })
const PARCEL_LAYERS = ['erf', 'farm_portion', 'holding', 'parent_farm', 'public_place', 'street']

export function addOverlays(map) {
  for (const id of ['highlight', 'hits', 'draft']) map.addSource(id, { type: 'geojson', data: empty() })
  const polygons = ['==', ['geometry-type'], 'Polygon']
  const points = ['==', ['geometry-type'], 'Point']
  map.addLayer({
    id: 'highlight-fill',
    type: 'fill',
    source: 'highlight',
    filter: polygons,
    paint: { 'fill-color': HIGHLIGHT, 'fill-opacity': 0.25 },
  })
  map.addLayer({
    id: 'highlight-line',
    type: 'line',
    source: 'highlight',
    paint: { 'line-color': HIGHLIGHT, 'line-width': 3.5 },
  })
  map.addLayer({
    id: 'highlight-point',
    type: 'circle',
    source: 'highlight',
    filter: points,
    paint: { 'circle-color': HIGHLIGHT, 'circle-radius': 7, 'circle-stroke-color': '#000', 'circle-stroke-width': 1.5 },
  })
  map.addLayer({
    id: 'hits-fill',
    type: 'fill',
    source: 'hits',
    filter: polygons,
    paint: { 'fill-color': HIT, 'fill-opacity': 0.25 },
  })
  map.addLayer({ id: 'hits-line', type: 'line', source: 'hits', paint: { 'line-color': HIT, 'line-width': 2.5 } })
  for (const layer of PARCEL_LAYERS)
    map.addLayer({
      id: `hit-parcels-${layer}`,
      type: 'line',
      source: 'parcels',
      'source-layer': layer,
      filter: ['in', ['get', 'lpi'], ['literal', []]],
      paint: { 'line-color': HIT, 'line-width': 2, 'line-dasharray': [2, 1] },
    })
  map.addLayer({
    id: 'draft-fill',
    type: 'fill',
    source: 'draft',
    filter: polygons,
    paint: { 'fill-color': DRAFT, 'fill-opacity': 0.12 },
  })
  map.addLayer({
    id: 'draft-line',
    type: 'line',
    source: 'draft',
    filter: ['!', points],
    paint: { 'line-color': DRAFT, 'line-width': 2.5, 'line-dasharray': [3, 1.5] },
  })
  map.addLayer({
    id: 'draft-point',
    type: 'circle',
    source: 'draft',
    filter: points,
    paint: { 'circle-color': '#fff', 'circle-radius': 4.5, 'circle-stroke-color': DRAFT, 'circle-stroke-width': 2 },
  })
}

const collection = (geometries) => ({
  type: 'FeatureCollection',
  features: geometries.filter(Boolean).map((geometry) => ({ type: 'Feature', properties: {}, geometry })),
})

/** Draws `geometries` (GeoJSON geometries) as the highlight; none clears it. */
export function highlight(map, geometries = []) {
  map.getSource('highlight')?.setData(collection(geometries))
}

/** Draws an intersect's answer: the encumbrances' geometries, and outlines the parcels of `lpis`. */
export function showHits(map, geometries = [], lpis = []) {
  map.getSource('hits')?.setData(collection(geometries))
  for (const layer of PARCEL_LAYERS)
    if (map.getLayer(`hit-parcels-${layer}`))
      map.setFilter(`hit-parcels-${layer}`, ['in', ['get', 'lpi'], ['literal', lpis]])
}

/** Draws the route or area being drawn: its vertices, and its line or ring so far. */
export function showDraft(map, mode, points) {
  const features = points.map((p) => ({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: p } }))
  if (points.length >= 2) {
    const ring = mode === 'area' && points.length >= 3
    features.push({
      type: 'Feature',
      properties: {},
      geometry: ring
        ? { type: 'Polygon', coordinates: [[...points, points[0]]] }
        : { type: 'LineString', coordinates: points },
    })
  }
  map.getSource('draft')?.setData({ type: 'FeatureCollection', features })
}

/** The [west, south, east, north] of GeoJSON geometries, or null when they hold no position. */
export function bboxOf(geometries) {
  const box = [Infinity, Infinity, -Infinity, -Infinity]
  const visit = (c) => {
    if (typeof c[0] === 'number') {
      box[0] = Math.min(box[0], c[0])
      box[1] = Math.min(box[1], c[1])
      box[2] = Math.max(box[2], c[0])
      box[3] = Math.max(box[3], c[1])
    } else for (const x of c) visit(x)
  }
  for (const g of geometries) if (g?.coordinates) visit(g.coordinates)
  return Number.isFinite(box[0]) ? box : null
}
