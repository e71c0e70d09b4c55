/**
 * Drawing a route (a line) or an area (a polygon) by clicking its points, then screening it with
 * `POST /encumbrances/intersect`: the encumbrances met are drawn in red with the parcels entered,
 * and the panel lists both with their overlap (metres along a route, m² of an area).
 */
import { post } from './api.js'
import { showDraft, showHits } from './overlays.js'
import { el, facts, openPanel, section } from './panel.js'

const round = (n, d = 1) => (n === undefined || n === null ? undefined : Number(n.toFixed(d)).toLocaleString('en'))

/** One drawing session at a time; `onChange(active)` tells the toolbar. */
export class Draw {
  constructor(map, onChange) {
    this.map = map
    this.onChange = onChange
    this.mode = null
    this.points = []
  }

  get active() {
    return this.mode !== null
  }

  /** Starts drawing a `route` or an `area`, dropping any earlier drawing and its hits. */
  start(mode) {
    this.mode = mode
    this.points = []
    showDraft(this.map, mode, [])
    showHits(this.map)
    this.map.getCanvas().style.cursor = 'crosshair'
    this.map.doubleClickZoom.disable()
    this.onChange(mode, 0)
  }

  /** A click while drawing: one more point. */
  add(lngLat) {
    this.points.push([Number(lngLat.lng.toFixed(7)), Number(lngLat.lat.toFixed(7))])
    showDraft(this.map, this.mode, this.points)
    this.onChange(this.mode, this.points.length)
  }

  cancel() {
    this.stop()
    showDraft(this.map, null, [])
  }

  stop() {
    this.mode = null
    this.map.getCanvas().style.cursor = ''
    this.map.doubleClickZoom.enable()
    this.onChange(null, 0)
  }

  /** The geometry drawn, or null when it has too few points. */
  geometry() {
    const p = this.points
    if (this.mode === 'route') return p.length >= 2 ? { type: 'LineString', coordinates: p } : null
    return p.length >= 3 ? { type: 'Polygon', coordinates: [[...p, p[0]]] } : null
  }

  /** Ends the drawing and screens it. */
  async finish() {
    const geometry = this.geometry()
    const mode = this.mode
    if (!geometry) return
    this.stop()
    const box = openPanel(mode === 'route' ? 'Route screening' : 'Area screening')
    const answer = await post('/encumbrances/intersect', { geometry })
    section(box, 'Encumbrances and parcels met', answer, (j) => {
      showHits(
        this.map,
        j.encumbrances.map((e) => e.geometry),
        j.parcels.map((p) => p.lpi),
      )
      return el(
        'div',
        { class: 'hits' },
        el('p', {}, j.message),
        facts([
          ['Length', j.length_m !== undefined ? `${round(j.length_m)} m` : undefined],
          ['Area', j.area_sqm !== undefined ? `${round(j.area_sqm, 0)} m²` : undefined],
        ]),
        el('h4', {}, `Encumbrances (${j.encumbrances.length}${j.encumbrances_truncated ? '+' : ''})`),
        el(
          'ul',
          { class: 'encumbrances' },
          j.encumbrances.map((e) =>
            el(
              'li',
              { 'data-uid': String(e.encumbrance_uid) },
              `${e.encumbrance_class.replaceAll('_', ' ')}, ${e.ease_type_normalised}` +
                `${e.sg_number ? `, SG ${e.sg_number}` : ''} (uid ${e.encumbrance_uid}): ${e.relationship}`,
              overlapText(e),
            ),
          ),
        ),
        el('h4', {}, `Parcels entered (${j.parcels.length}${j.parcels_truncated ? '+' : ''})`),
        el(
          'ul',
          { class: 'parcels' },
          j.parcels.map((p) =>
            el('li', {}, el('code', { class: 'lpi' }, p.lpi), ` ${p.parcel_type.toLowerCase()}`, overlapText(p)),
          ),
        ),
      )
    })
  }
}

function overlapText(x) {
  const parts = []
  if (x.overlap_m !== undefined && x.overlap_m !== null) parts.push(`${round(x.overlap_m)} m`)
  if (x.overlap_sqm !== undefined && x.overlap_sqm !== null) parts.push(`${round(x.overlap_sqm)} m²`)
  if (x.overlap_pct_of_parcel !== undefined) parts.push(`${x.overlap_pct_of_parcel} % of the parcel`)
  return parts.length ? `, overlap ${parts.join(', ')}` : ''
}
