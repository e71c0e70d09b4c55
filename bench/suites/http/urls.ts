/**
 * The seeded URL sets the http suite loads, one per endpoint, each request answering 200 (wrk
 * counts anything else as an error), and for some the in-process answer of the first ones:
 *
 * - `/plots/reverse` and radius (500 m, limit 100) at the plot layers' probes (layers.ts: 80 %
 *   within 400 m of a plot), compared with `createPlotQueries`;
 * - `/parcels/at` at points in published parcels (the parcels suite's HTTP points), compared with
 *   `createParcelQueries`, and `/encumbrances/at` (radius 0) at the same points;
 * - `/jurisdiction/at` at points near townships and wards that resolve (the jurisdiction suite's
 *   HTTP points), compared with `createJurisdictionQueries`;
 * - `/parcels/within`, the box lookup (plots have none): a {@link BOX_SIDE_DEG}° box centred on a
 *   random erf's label point, first page at the default size: 10–30 KB in a township;
 * - z15 parcel tiles at erf points (the tiles suite's URL maker), asked as a map client asks them
 *   (`Accept-Encoding: gzip`: the stored tile is sent as stored).
 *
 * @module
 */
import { johannesburgDate } from '../../../src/auth/dates.js'
import { type OpenDataset, openDataset } from '../../../src/data/open-dataset.js'
import { PARCEL_FILES } from '../../../src/data/parcels-format.js'
import { createJurisdictionQueries } from '../../../src/features/jurisdiction/queries.js'
import { createParcelQueries } from '../../../src/features/parcels/queries.js'
import { createPlotQueries } from '../../../src/features/plots/queries.js'
import { REVERSE_REACH_M } from '../../../src/features/plots/schemas.js'
import { loadLayers, makeProbes } from '../../lib/layers.js'
import { Random } from '../../lib/prng.js'
import { makeJurisdictionProbes } from '../jurisdiction.js'
import { makeParcelProbes } from '../parcels.js'
import { RADIUS_LIMIT, RADIUS_M } from '../plots.js'
import { erfPaths } from '../tiles-http.js'

/** The endpoints loaded, in the order of a round and of the table. */
export const ENDPOINTS = [
  '/plots/reverse',
  '/parcels/at',
  '/jurisdiction/at',
  '/encumbrances/at',
  'radius 500 m, limit 100',
  'box (/parcels/within)',
  'z15 parcel tiles',
] as const
export type Endpoint = (typeof ENDPOINTS)[number]

/** How many paths of each set are fetched once (status, and the answer where a set has `expected`). */
export const CHECKED = 25
/** Side of the `/parcels/within` boxes, degrees: about 160 m, 20–60 erven in a township. */
export const BOX_SIDE_DEG = 0.0015

export interface UrlSet {
  endpoint: Endpoint
  paths: string[]
  /** request headers beyond the key */
  headers: Record<string, string>
  /** statuses an answer may have (wrk counts 2xx as success) */
  statuses: number[]
  /** the in-process answer of the first {@link CHECKED} paths, in the form `answer` gives */
  expected?: string[]
  /** the live answer's JSON reduced to the form of `expected` */
  answer?: (body: unknown) => string
}

const ids = (list: { id: number }[] | undefined) => JSON.stringify(list?.map((p) => p.id) ?? null)

/** `latitude=…&longitude=…` as the URLs write a point: `digits` decimals. */
export function pointQuery(lon: number, lat: number, digits: number): string {
  return `latitude=${lat.toFixed(digits)}&longitude=${lon.toFixed(digits)}`
}

/** The `/parcels/within` path of a `side`° box centred on (lon, lat), 7 decimals. */
export function boxPath(lon: number, lat: number, side: number): string {
  const h = side / 2
  const f = (v: number) => v.toFixed(7)
  return `/api/v1/parcels/within?min_lat=${f(lat - h)}&min_lng=${f(lon - h)}&max_lat=${f(lat + h)}&max_lng=${f(lon + h)}`
}

/** `/plots/reverse` and radius at the plot layers' probes; the first answers in process. */
function plotSets(ds: OpenDataset, count: number, seed: number): UrlSet[] {
  const probes = makeProbes(loadLayers(ds), count, seed, 'http')
  const q = createPlotQueries(ds)
  const reverse: string[] = []
  const radius: string[] = []
  const expected: [string[], string[]] = [[], []]
  for (let k = 0; k < count; k++) {
    const lon = Number(probes.lon[k].toFixed(6))
    const lat = Number(probes.lat[k].toFixed(6))
    const at = pointQuery(lon, lat, 6)
    reverse.push(`/api/v1/plots/reverse?${at}`)
    radius.push(`/api/v1/plots/search-given-coordinates?${at}&radius=${RADIUS_M}&limit=${RADIUS_LIMIT}`)
    if (k >= CHECKED) continue
    expected[0].push(ids(q.reverse(lon, lat, REVERSE_REACH_M, q.countries, {}).plots()))
    expected[1].push(ids(q.radius(lon, lat, RADIUS_M, RADIUS_LIMIT, q.countries, {}).plots()))
  }
  const answer = (body: unknown) => ids((body as { plots?: { id: number }[] }).plots)
  return [
    { endpoint: '/plots/reverse', paths: reverse, headers: {}, statuses: [200], expected: expected[0], answer },
    { endpoint: 'radius 500 m, limit 100', paths: radius, headers: {}, statuses: [200], expected: expected[1], answer },
  ]
}

/** `/parcels/at` and `/encumbrances/at` at the same points, each in a published parcel. */
function parcelSets(ds: OpenDataset, count: number, seed: number): UrlSet[] {
  const probes = makeParcelProbes(ds, count, seed, 'http', 1)
  const q = createParcelQueries(ds)
  const at: string[] = []
  const enc: string[] = []
  const expected: string[] = []
  for (let k = 0; k < count; k++) {
    const lon = Number(probes.lon[k].toFixed(7))
    const lat = Number(probes.lat[k].toFixed(7))
    const found = q.at(lon, lat, { all: false })
    // a 404 would count as an error
    if (!found.length) continue
    at.push(`/api/v1/parcels/at?${pointQuery(lon, lat, 7)}`)
    enc.push(`/api/v1/encumbrances/at?${pointQuery(lon, lat, 7)}`)
    if (expected.length < CHECKED) expected.push(ids(found))
  }
  const sets: UrlSet[] = [
    {
      endpoint: '/parcels/at',
      paths: at,
      headers: {},
      statuses: [200],
      expected,
      answer: (body) => ids((body as { parcels?: { id: number }[] }).parcels),
    },
  ]
  if (ds.domain('encumbrances')) sets.push({ endpoint: '/encumbrances/at', paths: enc, headers: {}, statuses: [200] })
  return sets
}

/** `/jurisdiction/at` at points that resolve; the first answers in process. */
function jurisdictionSet(ds: OpenDataset, count: number, seed: number): UrlSet {
  const q = createJurisdictionQueries(ds)
  const d = johannesburgDate(new Date())
  const probes = makeJurisdictionProbes(q, d, count, seed, 'http', 1)
  const paths: string[] = []
  const expected: string[] = []
  for (let k = 0; k < count; k++) {
    const lon = Number(probes.lon[k].toFixed(7))
    const lat = Number(probes.lat[k].toFixed(7))
    const r = q.resolve(lon, lat, d)
    if (!r.found) continue
    paths.push(`/api/v1/jurisdiction/at?lat=${lat.toFixed(7)}&lon=${lon.toFixed(7)}`)
    if (expected.length < CHECKED) expected.push(JSON.stringify({ jurisdiction: r.jurisdiction, notes: r.notes }))
  }
  return {
    endpoint: '/jurisdiction/at',
    paths,
    headers: {},
    statuses: [200],
    expected,
    answer: (body) => {
      const b = body as { jurisdiction?: unknown; notes?: unknown }
      return JSON.stringify({ jurisdiction: b.jurisdiction, notes: b.notes })
    },
  }
}

/** `/parcels/within` boxes centred on random current erven's label points. */
function boxSet(ds: OpenDataset, count: number, seed: number): UrlSet {
  const db = ds.sqlite(PARCEL_FILES.sqlite)
  const erven = db.prepare("SELECT id FROM parcel WHERE parcel_type = 'ERF' AND hidden = 0").pluck().all() as number[]
  const one = db.prepare('SELECT label_lon, label_lat FROM parcel WHERE id = ?').raw()
  const rnd = new Random(seed >>> 0, 'bench/http/box')
  const paths: string[] = []
  for (let k = 0; erven.length && k < count; k++) {
    const [lon, lat] = one.get(erven[rnd.int(0, erven.length - 1)]) as [number, number]
    paths.push(boxPath(lon, lat, BOX_SIDE_DEG))
  }
  return { endpoint: 'box (/parcels/within)', paths, headers: {}, statuses: [200] }
}

/**
 * Every URL set of the dataset at `dir` (`count` probes each), in {@link ENDPOINTS} order; a
 * domain the dataset lacks leaves its sets out, with a note.
 */
export function buildUrlSets(dir: string, count: number, seed: number): { sets: UrlSet[]; notes: string[] } {
  const ds = openDataset(dir)
  const notes: string[] = []
  try {
    const sets: UrlSet[] = []
    if (ds.domain('plots')) sets.push(...plotSets(ds, count, seed))
    else notes.push('the dataset has no plots: /plots/reverse and radius were not loaded')
    if (ds.domain('parcels')) {
      sets.push(...parcelSets(ds, count, seed), boxSet(ds, count, seed))
      sets.push({
        endpoint: 'z15 parcel tiles',
        paths: erfPaths(ds, count, seed).tiles,
        headers: { 'Accept-Encoding': 'gzip' },
        statuses: [200, 204],
      })
    } else
      notes.push('the dataset has no parcels: /parcels/at, /encumbrances/at, the box and the tiles were not loaded')
    if (ds.domain('jurisdiction')) sets.push(jurisdictionSet(ds, count, seed))
    else notes.push('the dataset has no jurisdiction domain: /jurisdiction/at was not loaded')
    if (ds.domain('parcels') && !ds.domain('encumbrances'))
      notes.push('the dataset has no encumbrances: /encumbrances/at was not loaded')
    for (const s of sets) if (!s.paths.length) notes.push(`${s.endpoint}: no seeded request answers 200`)
    const kept = sets.filter((s) => s.paths.length)
    kept.sort((a, b) => ENDPOINTS.indexOf(a.endpoint) - ENDPOINTS.indexOf(b.endpoint))
    return { sets: kept, notes }
  } finally {
    ds.close()
  }
}
