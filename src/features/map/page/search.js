/**
 * The search box: an LPI (`/parcels/{lpi}/geometry`), an SG number such as 7001/1999
 * (`/encumbrances/search?sg_number`, then each record for its geometry), a plot or erf number
 * with its town (`/plots/{number}?city`), or else a boundary name, matched fuzzily
 * (`/jurisdiction/search`, then the best match's geometry). The map fits the result and
 * highlights it; the panel lists what was found, each with its request.
 */
import { get, query } from './api.js'
import { bboxOf, highlight } from './overlays.js'
import { el, facts, note, openPanel, section, viewPadding } from './panel.js'

const LPI = /^[OBCFNT][A-Z0-9]{4}[0-9]{16}$/i
const SG_NUMBER = /^\d{1,6}\/\d{4}$/
/** `12 Gaborone`, `erf 12/3, Azaadville`, `plot 79 in Gaborone` */
const NUMBER_IN_TOWN = /^(?:(?:erf|plot|stand)\s+)?([^\s,]*\d[^\s,]*)\s*(?:,\s*|\s+)(?:in\s+)?(.+)$/i

/** What the text asks for: `{ kind, ... }`. */
export function parseSearch(text) {
  const q = text.trim().replace(/\s+/g, ' ')
  if (LPI.test(q)) return { kind: 'lpi', lpi: q.toUpperCase() }
  if (SG_NUMBER.test(q)) return { kind: 'sg', sg: q }
  const m = NUMBER_IN_TOWN.exec(q)
  if (m) return { kind: 'plot', number: m[1], town: m[2] }
  return { kind: 'name', q }
}

/** Fits the map to GeoJSON geometries (or a bbox), not closer than `maxZoom`. */
function fitTo(map, geometriesOrBox, maxZoom = 17) {
  const box =
    Array.isArray(geometriesOrBox) && typeof geometriesOrBox[0] === 'number' ? geometriesOrBox : bboxOf(geometriesOrBox)
  if (!box) return
  map.fitBounds(
    [
      [box[0], box[1]],
      [box[2], box[3]],
    ],
    { padding: viewPadding(), maxZoom, duration: 0 },
  )
}

async function byLpi(map, box, lpi) {
  const answer = await get(`/parcels/${lpi}/geometry`)
  section(box, `Parcel ${lpi}`, answer, (j) => {
    highlight(map, [j.geometry])
    fitTo(map, [j.geometry])
    return facts([
      ['LPI', el('code', { class: 'lpi' }, j.parcel?.lpi ?? lpi)],
      ['Type', j.parcel?.parcel_type],
      ['Number', j.parcel?.tag_value],
      ['Town', j.parcel?.minor_region],
    ])
  })
}

async function bySgNumber(map, box, sg) {
  const answer = await get(`/encumbrances/search?${query({ sg_number: sg, limit: 20 })}`)
  section(box, `Encumbrances with SG number ${sg}`, answer, (j) =>
    el(
      'ul',
      {},
      j.encumbrances.map((e) =>
        el(
          'li',
          {},
          `${e.encumbrance_class.replaceAll('_', ' ')} ${e.ease_type_normalised} (uid ${e.encumbrance_uid})`,
        ),
      ),
    ),
  )
  const records = answer.status === 200 ? answer.json.encumbrances.slice(0, 5) : []
  const details = await Promise.all(records.map((e) => get(`/encumbrances/${e.encumbrance_uid}`)))
  const geometries = details.filter((d) => d.status === 200).map((d) => d.json.encumbrance.geometry)
  for (const d of details) section(box, `Record ${d.url.split('/').pop()}`, d, (j) => el('p', {}, j.message ?? ''))
  highlight(map, geometries)
  fitTo(map, geometries)
}

async function byNumberInTown(map, box, number, town) {
  const answer = await get(`/plots/${encodeURIComponent(number)}?${query({ city: town })}`)
  section(box, `Plot or erf ${number} in ${town}`, answer, (j) => {
    const points = j.plots.map((p) => ({ type: 'Point', coordinates: [p.longitude, p.latitude] }))
    highlight(map, points)
    fitTo(map, points, 17)
    return el(
      'div',
      {},
      el('p', {}, j.message),
      el(
        'ul',
        {},
        j.plots.map((p) => el('li', {}, `${p.plot_number}, ${p.city} (${p.country.toLowerCase().replace('_', ' ')})`)),
      ),
    )
  })
}

/** A boundary's geometry, simplified to about a thousandth of its box. */
async function showBoundary(map, box, match) {
  if (match.bbox) fitTo(map, match.bbox, 16)
  const span = match.bbox ? Math.max(match.bbox[2] - match.bbox[0], match.bbox[3] - match.bbox[1]) : 0.1
  const simplify = Math.min(10_000, Math.max(1, Math.round((span * 111_320) / 1000)))
  const answer = await get(
    `/jurisdiction/boundaries/${match.boundary_type}/${encodeURIComponent(match.code)}/geometry?${query({ simplify })}`,
  )
  if (answer.status === 200) highlight(map, [answer.json.geometry])
  section(box, `Boundary of ${match.name}`, answer, (j) =>
    el('p', {}, j.message ?? `${match.boundary_type} ${match.code}`),
  )
}

async function byName(map, box, q) {
  const answer = await get(`/jurisdiction/search?${query({ q, limit: 8 })}`)
  let best
  section(box, `Boundaries named like “${q}”`, answer, (j) => {
    best = j.matches.find((m) => m.has_geometry)
    if (!j.matches.length) return el('p', {}, j.message)
    return el(
      'ol',
      {},
      j.matches.map((m) =>
        el(
          'li',
          {},
          el(
            'button',
            { type: 'button', class: 'link', onclick: () => showBoundary(map, box, m) },
            `${m.name} (${m.boundary_type.replaceAll('_', ' ')} ${m.code})`,
          ),
          ` ${Math.round(m.similarity * 100)} % similar`,
        ),
      ),
    )
  })
  if (best) await showBoundary(map, box, best)
}

/** Runs a search typed in the box. */
export async function runSearch(map, text) {
  const wanted = parseSearch(text)
  if (wanted.kind === 'name' && wanted.q.length < 2) return
  const box = openPanel(`Search: ${text.trim()}`)
  const waiting = note(box, 'Searching…')
  highlight(map)
  try {
    if (wanted.kind === 'lpi') await byLpi(map, box, wanted.lpi)
    else if (wanted.kind === 'sg') await bySgNumber(map, box, wanted.sg)
    else if (wanted.kind === 'plot') await byNumberInTown(map, box, wanted.number, wanted.town)
    else await byName(map, box, wanted.q)
  } finally {
    waiting.remove()
  }
}
