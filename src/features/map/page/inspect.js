/**
 * A click on the map: the panel lists the parcels at that point (most specific first,
 * `/parcels/at`), the encumbrance summary of the first (`/encumbrances/summary/parcel/{lpi}`),
 * and the jurisdiction chain (`/jurisdiction/at`), each with its request; the first parcel's
 * boundary is highlighted (`/parcels/{lpi}/geometry`).
 */
import { get, query } from './api.js'
import { highlight } from './overlays.js'
import { el, facts, note, openPanel, section } from './panel.js'

const CHAIN = [
  ['province', 'Province'],
  ['district_municipality', 'District'],
  ['local_municipality', 'Municipality'],
  ['ward', 'Ward'],
  ['registration_division', 'Registration division'],
  ['deeds_office', 'Deeds Office'],
  ['township', 'Township'],
]

const area = (sqm) =>
  sqm === undefined || sqm === null ? undefined : sqm >= 10_000 ? `${(sqm / 10_000).toFixed(2)} ha` : `${sqm} m²`

/** Draws a parcel's boundary as the highlight. */
async function highlightParcel(map, lpi) {
  const answer = await get(`/parcels/${encodeURIComponent(lpi)}/geometry`)
  if (answer.status === 200) highlight(map, [answer.json.geometry ?? answer.json])
}

function parcelList(map, parcels) {
  const ol = el('ol', { class: 'parcels' })
  for (const p of parcels)
    ol.append(
      el(
        'li',
        {},
        el(
          'button',
          { type: 'button', class: 'link', onclick: () => highlightParcel(map, p.lpi) },
          `${p.parcel_type.replaceAll('_', ' ').toLowerCase()} ${p.tag_value ?? ''}`,
        ),
        facts([
          ['LPI', el('code', { class: 'lpi' }, p.lpi)],
          ['Town', p.minor_region],
          ['Status', p.legal_status?.label],
          ['Extent', area(p.extent_sqm)],
        ]),
      ),
    )
  return ol
}

function summary(json) {
  if (!json.has_encumbrances) return el('p', {}, 'No current encumbrance meets this parcel.')
  return facts([
    ...Object.entries(json.counts_by_class).map(([cls, n]) => [cls.replaceAll('_', ' '), String(n)]),
    ['Highest share', `${json.highest_impact_pct} %`],
  ])
}

function chain(json) {
  const pairs = CHAIN.map(([k, label]) => {
    const link = json.jurisdiction?.[k]
    return [label, link ? `${link.name} (${link.code})` : undefined]
  })
  return el('div', {}, facts(pairs), ...(json.notes ?? []).map((n) => el('p', { class: 'note' }, n)))
}

/** Fills the panel for the point `lngLat` ({lng, lat}). */
export async function inspectPoint(map, lngLat) {
  const lat = lngLat.lat.toFixed(7)
  const lon = lngLat.lng.toFixed(7)
  const box = openPanel(`At ${lat}, ${lon}`)
  const waiting = note(box, 'Asking the API…')
  highlight(map)
  const [parcels, jurisdiction] = await Promise.all([
    get(`/parcels/at?${query({ latitude: lat, longitude: lon })}`),
    get(`/jurisdiction/at?${query({ lat, lon })}`),
  ])
  const first = parcels.status === 200 ? parcels.json.parcels[0] : undefined
  const enc = first ? await get(`/encumbrances/summary/parcel/${encodeURIComponent(first.lpi)}`) : undefined
  waiting.remove()
  section(
    box,
    'Parcels here',
    parcels,
    (j) => el('div', {}, el('p', {}, j.message), parcelList(map, j.parcels)),
    (a) =>
      a.status === 404 && a.json?.details?.nearest
        ? el('p', {}, `${a.json.message} (nearest: ${a.json.details.nearest.lpi ?? '?'})`)
        : undefined,
  )
  if (enc) section(box, `Encumbrances of ${first.lpi}`, enc, summary)
  section(box, 'Jurisdiction', jurisdiction, chain)
  if (first) await highlightParcel(map, first.lpi)
}
