/**
 * The soak's request mix: every service, seeded from the dataset. Each kind has a weight (its
 * share of the requests, in percent: {@link WEIGHTS}) and a list of seeded requests it rotates
 * through. The point lookups, radius, box and z15 parcel tiles are the http suite's URL sets
 * (bench/suites/http/urls.ts); the rest is drawn here from the same points and from published
 * parcels' LPIs and plot rows:
 *
 * - batches of {@link BATCH_POINTS} points (`/parcels/batch` by points and by LPIs,
 *   `/jurisdiction/batch`) and of {@link ENCUMBRANCE_BATCH} points (`/encumbrances/batch`);
 * - `/encumbrances/intersect` routes of {@link ROUTE_M} m (5 vertices) and areas of
 *   {@link AREA_SIDE_M} m squares, both starting at a point in a parcel;
 * - z15 tiles of each tile family (parcels, plots, encumbrances, jurisdiction) at the same points,
 *   asked with `Accept-Encoding: gzip` as a map client asks them.
 *
 * The weights: a map page asks many tiles per view, so tiles are a third; the point lookups that
 * clients call per address most of the rest; batches and intersects, the heaviest answers, 1 % each.
 *
 * @module
 */
import { openDataset } from '../../../src/data/open-dataset.js'
import { PARCEL_FILES } from '../../../src/data/parcels-format.js'
import { PLOT_COUNTRIES, PLOT_COUNTRY_ENUM, PLOT_FILES } from '../../../src/data/plots-format.js'
import { metresPerDegree } from '../../../src/geo/geodesic.js'
import { tileAt } from '../../../src/geo/tiles.js'
import type { MixRequest } from '../../lib/paced.js'
import { Random } from '../../lib/prng.js'
import { buildUrlSets, type Endpoint } from '../http/urls.js'

/** Share of the requests, percent, by kind. */
export const WEIGHTS = {
  'GET /plots/reverse': 10,
  'GET /plots/search-given-coordinates': 5,
  'GET /plots/{number}': 3,
  'GET /parcels/at': 12,
  'GET /parcels/{lpi}': 5,
  'GET /parcels/within': 4,
  'POST /parcels/batch (points)': 1,
  'POST /parcels/batch (LPIs)': 1,
  'GET /encumbrances/at': 6,
  'GET /encumbrances/parcel/{lpi}': 4,
  'GET /encumbrances/summary/parcel/{lpi}': 4,
  'POST /encumbrances/intersect (route)': 1,
  'POST /encumbrances/intersect (area)': 1,
  'POST /encumbrances/batch': 1,
  'GET /jurisdiction/at': 10,
  'POST /jurisdiction/batch': 1,
  'GET /parcels/tiles z15': 12,
  'GET /plots/tiles z15': 6,
  'GET /encumbrances/tiles z15': 7,
  'GET /jurisdiction/tiles z15': 6,
} as const
export type Kind = keyof typeof WEIGHTS

export const BATCH_POINTS = 100
export const ENCUMBRANCE_BATCH = 50
export const ROUTE_M = 2_000
export const AREA_SIDE_M = 600
const TILE_ZOOM = 15

/** The http suite's sets this mix takes as they are. */
const FROM_HTTP: Partial<Record<Endpoint, Kind>> = {
  '/plots/reverse': 'GET /plots/reverse',
  'radius 500 m, limit 100': 'GET /plots/search-given-coordinates',
  '/parcels/at': 'GET /parcels/at',
  'box (/parcels/within)': 'GET /parcels/within',
  '/encumbrances/at': 'GET /encumbrances/at',
  '/jurisdiction/at': 'GET /jurisdiction/at',
  'z15 parcel tiles': 'GET /parcels/tiles z15',
}

type Point = { latitude: number; longitude: number }

/** The point of a lookup path (`latitude`/`longitude` or `lat`/`lon`). */
export function pointOf(path: string): Point {
  const q = new URLSearchParams(path.slice(path.indexOf('?') + 1))
  return { latitude: Number(q.get('latitude') ?? q.get('lat')), longitude: Number(q.get('longitude') ?? q.get('lon')) }
}

const r7 = (v: number) => Math.round(v * 1e7) / 1e7
const get = (kind: Kind, path: string, headers?: Record<string, string>): MixRequest => ({
  kind,
  method: 'GET',
  path,
  ...(headers ? { headers } : {}),
})
const post = (kind: Kind, path: string, body: unknown): MixRequest => ({
  kind,
  method: 'POST',
  path,
  body: JSON.stringify(body),
})
const GZIP = { 'Accept-Encoding': 'gzip' }

/** `count` bodies of `size` points each, taken in turn from `points` (wrapping around). */
function chunks<T>(points: T[], count: number, size: number): T[][] {
  if (!points.length) return []
  return Array.from({ length: count }, (_, b) =>
    Array.from({ length: size }, (_, i) => points[(b * size + i) % points.length]),
  )
}

/** A {@link ROUTE_M} m line from `p` on a seeded bearing, and a {@link AREA_SIDE_M} m square around it. */
function shapes(p: Point, rnd: Random): { route: number[][]; area: number[][] } {
  const m = metresPerDegree(p.latitude)
  const at = (dx: number, dy: number) => [r7(p.longitude + dx / m.lon), r7(p.latitude + dy / m.lat)]
  const a = rnd.range(0, 2 * Math.PI)
  const route = Array.from({ length: 5 }, (_, i) => {
    const d = (ROUTE_M * i) / 4
    const wiggle = i % 2 ? 40 : 0
    return at(d * Math.cos(a) - wiggle * Math.sin(a), d * Math.sin(a) + wiggle * Math.cos(a))
  })
  const h = AREA_SIDE_M / 2
  const area = [at(-h, -h), at(h, -h), at(h, h), at(-h, h), at(-h, -h)]
  return { route, area }
}

/** Seeded LPIs of published parcels, and plot numbers with their town and country. */
function lookups(dir: string, count: number, seed: number) {
  const ds = openDataset(dir)
  try {
    const rnd = new Random(seed >>> 0, 'bench/soak/lookups')
    const lpis: string[] = []
    if (ds.domain('parcels')) {
      // by random row id (not every LPI read: ten million at national scale)
      const db = ds.sqlite(PARCEL_FILES.sqlite)
      const maxId = (db.prepare('SELECT max(id) FROM parcel').pluck().get() as number | null) ?? 0
      const published = db.prepare('SELECT lpi FROM parcel WHERE id = ? AND hidden = 0').pluck()
      for (let tries = 0; maxId && lpis.length < count && tries < count * 20; tries++) {
        const lpi = published.get(rnd.int(1, maxId)) as string | undefined
        if (lpi) lpis.push(lpi)
      }
    }
    const plots: string[] = []
    const layers = PLOT_COUNTRIES.flatMap((country) => {
      const rows = ds.domain('plots')?.layers[country]?.rows ?? 0
      if (!rows) return []
      const one = ds
        .sqlite(PLOT_FILES[country].sqlite)
        .prepare('SELECT p.plot_number, c.name FROM plot p JOIN city c ON c.id = p.city_id WHERE p.id = ?')
        .raw()
      return [{ country, rows, one }]
    })
    for (let k = 0; layers.length && k < count; k++) {
      const { country, rows, one } = layers[k % layers.length]
      const row = one.get(rnd.int(1, rows)) as [string, string] | undefined
      if (!row) continue
      const q = new URLSearchParams({ city: row[1], country: PLOT_COUNTRY_ENUM[country] })
      plots.push(`/api/v1/plots/${encodeURIComponent(row[0])}?${q}`)
    }
    return { lpis, plots }
  } finally {
    ds.close()
  }
}

/**
 * Every kind's requests over the dataset at `dir` (`count` of each, fewer for batches and
 * intersects), and notes on the kinds left out because the dataset lacks their domain.
 */
export function buildMix(
  dir: string,
  count: number,
  seed: number,
): { kinds: Map<Kind, MixRequest[]>; notes: string[] } {
  const { sets, notes } = buildUrlSets(dir, count, seed)
  const kinds = new Map<Kind, MixRequest[]>()
  const add = (kind: Kind, list: MixRequest[]) => {
    if (list.length) kinds.set(kind, list)
    else notes.push(`${kind}: no seeded request (the dataset lacks its domain)`)
  }
  const pathsOf = (e: Endpoint) => sets.find((s) => s.endpoint === e)?.paths ?? []
  for (const s of sets) {
    const kind = FROM_HTTP[s.endpoint]
    if (kind)
      add(
        kind,
        s.paths.map((p) => get(kind, p, kind === 'GET /parcels/tiles z15' ? GZIP : undefined)),
      )
  }
  const { lpis, plots } = lookups(dir, count, seed)
  add(
    'GET /plots/{number}',
    plots.map((p) => get('GET /plots/{number}', p)),
  )
  add(
    'GET /parcels/{lpi}',
    lpis.map((l) => get('GET /parcels/{lpi}', `/api/v1/parcels/${l}`)),
  )
  const hasEnc = kinds.has('GET /encumbrances/at')
  const ofLpi = (kind: Kind, prefix: string) => add(kind, hasEnc ? lpis.map((l) => get(kind, `${prefix}${l}`)) : [])
  ofLpi('GET /encumbrances/parcel/{lpi}', '/api/v1/encumbrances/parcel/')
  ofLpi('GET /encumbrances/summary/parcel/{lpi}', '/api/v1/encumbrances/summary/parcel/')

  const batches = Math.max(1, Math.round(count / 10))
  const parcelPoints = pathsOf('/parcels/at').map(pointOf)
  const jurisdictionPoints = pathsOf('/jurisdiction/at').map(pointOf)
  const plotPoints = pathsOf('/plots/reverse').map(pointOf)
  add(
    'POST /parcels/batch (points)',
    chunks(parcelPoints, batches, BATCH_POINTS).map((points) =>
      post('POST /parcels/batch (points)', '/api/v1/parcels/batch', { points }),
    ),
  )
  add(
    'POST /parcels/batch (LPIs)',
    chunks(lpis, batches, BATCH_POINTS).map((l) =>
      post('POST /parcels/batch (LPIs)', '/api/v1/parcels/batch', { lpis: l }),
    ),
  )
  add(
    'POST /jurisdiction/batch',
    chunks(jurisdictionPoints, batches, BATCH_POINTS).map((points) =>
      post('POST /jurisdiction/batch', '/api/v1/jurisdiction/batch', { points }),
    ),
  )
  const encPoints = hasEnc ? parcelPoints : []
  add(
    'POST /encumbrances/batch',
    chunks(encPoints, batches, ENCUMBRANCE_BATCH).map((items) =>
      post('POST /encumbrances/batch', '/api/v1/encumbrances/batch', items),
    ),
  )
  const rnd = new Random(seed >>> 0, 'bench/soak/shapes')
  const drawn = encPoints.slice(0, batches).map((p) => shapes(p, rnd))
  const intersect = (kind: Kind, geometry: (s: (typeof drawn)[number]) => unknown) =>
    add(
      kind,
      drawn.map((s) => post(kind, '/api/v1/encumbrances/intersect', { geometry: geometry(s) })),
    )
  intersect('POST /encumbrances/intersect (route)', (s) => ({ type: 'LineString', coordinates: s.route }))
  intersect('POST /encumbrances/intersect (area)', (s) => ({ type: 'Polygon', coordinates: [s.area] }))

  const tiles = (kind: Kind, family: string, points: Point[]) =>
    add(
      kind,
      points.map((p) => {
        const t = tileAt(p.longitude, p.latitude, TILE_ZOOM)
        return get(kind, `/api/v1/${family}/tiles/${TILE_ZOOM}/${t.x}/${t.y}.mvt`, GZIP)
      }),
    )
  tiles('GET /plots/tiles z15', 'plots', plotPoints)
  tiles('GET /encumbrances/tiles z15', 'encumbrances', encPoints)
  tiles('GET /jurisdiction/tiles z15', 'jurisdiction', jurisdictionPoints)
  return { kinds, notes }
}

/**
 * The order requests are sent in: cycles of 100 slots, each kind holding its weight's share of
 * slots (kinds the mix lacks left out, the others' shares kept), shuffled anew each cycle from
 * `seed`; each kind rotating through its own requests.
 */
export function mixSequence(kinds: Map<Kind, MixRequest[]>, seed: number): () => MixRequest {
  const rnd = new Random(seed >>> 0, 'bench/soak/sequence')
  const slots: Kind[] = []
  for (const [kind, weight] of Object.entries(WEIGHTS) as [Kind, number][])
    if (kinds.get(kind)?.length) for (let i = 0; i < weight; i++) slots.push(kind)
  if (!slots.length) throw new Error('the soak mix is empty: the dataset has none of its domains')
  const next = new Map<Kind, number>()
  let cycle: Kind[] = []
  return () => {
    if (!cycle.length) cycle = rnd.shuffle([...slots])
    const kind = cycle.pop()!
    const list = kinds.get(kind)!
    const k = next.get(kind) ?? 0
    next.set(kind, (k + 1) % list.length)
    return list[k]
  }
}
