/**
 * No operation leaks (issue #29): every endpoint is called in process over the fixture dataset,
 * warmed up until its caches are full, then called SOAK_REQUESTS more times; the heap after a
 * forced collection must stay within HEAP_BOUND of where it was. A schema built per request and
 * kept alive (the /intersect leak: about 4 KB a request) fails it several times over. Bounded in
 * time: about 1,200 requests per operation.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { tileAt } from '../src/geo/tiles.js'
import { ENC_UID } from './fixtures/encumbrance-fixtures.js'
import { STRADDLING_FARM_LPI } from './fixtures/jurisdiction-fixtures.js'
import { erfLpi, FARM_LPI, POINTS } from './fixtures/parcel-fixtures.js'
import { GABORONE_A } from './fixtures/plot-fixtures.js'
import { makeTestApp } from './helpers.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const WARM_UP = 500
const SOAK_REQUESTS = 1_000
/** 1.5 KB a request over the soak, at most (the /intersect leak was about 4 KB a request). */
const HEAP_BOUND = 1_500 * SOAK_REQUESTS

const t = makeTestApp()
const { key } = t.issue()

type Call = { method?: 'GET' | 'POST'; path: string; body?: unknown }
const at = (lon: number, lat: number) => `latitude=${lat}&longitude=${lon}`
const [px, py] = [POINTS.inErf1.longitude, POINTS.inErf1.latitude]
const { x: tx, y: ty } = tileAt(px, py, 14)
const square = (x: number, y: number, d: number) => ({
  type: 'Polygon',
  coordinates: [
    [
      [x - d, y - d],
      [x + d, y - d],
      [x + d, y + d],
      [x - d, y + d],
      [x - d, y - d],
    ],
  ],
})

const OPERATIONS: Record<string, Call> = {
  'plots/search-given-coordinates': { path: `/plots/search-given-coordinates?${at(...GABORONE_A)}&radius=2000` },
  'plots/reverse': { path: `/plots/reverse?${at(...GABORONE_A)}` },
  cities: { path: '/cities?country=BOTSWANA' },
  'parcels/at': { path: `/parcels/at?${at(px, py)}` },
  'parcels/within': { path: `/parcels/within?${at(px, py)}&radius=200` },
  'parcels/{lpi}': { path: `/parcels/${erfLpi(1)}` },
  'parcels/{lpi}/neighbours': { path: `/parcels/${erfLpi(1)}/neighbours` },
  'parcels/{lpi}/geometry': { path: `/parcels/${FARM_LPI}/geometry` },
  'parcels/batch': { method: 'POST', path: '/parcels/batch', body: { lpis: [erfLpi(1), erfLpi(2)] } },
  'encumbrances/parcel/{lpi}': { path: `/encumbrances/parcel/${erfLpi(1)}` },
  'encumbrances/at': { path: `/encumbrances/at?${at(px, py)}&radius_m=100` },
  'encumbrances/within': { path: `/encumbrances/within?bbox=${px - 0.01},${py - 0.01},${px + 0.01},${py + 0.01}` },
  'encumbrances/{uid}': { path: `/encumbrances/${ENC_UID.strip}` },
  'encumbrances/intersect (area)': {
    method: 'POST',
    path: '/encumbrances/intersect',
    body: { geometry: square(px, py, 0.005), encumbrance_class: 'servitude_area,servitude_line' },
  },
  'encumbrances/intersect (route)': {
    method: 'POST',
    path: '/encumbrances/intersect',
    body: {
      geometry: {
        type: 'LineString',
        coordinates: [
          [px - 0.01, py],
          [px + 0.01, py + 0.001],
        ],
      },
    },
  },
  'encumbrances/tiles': { path: `/encumbrances/tiles/14/${tx}/${ty}.mvt` },
  'jurisdiction/at': { path: `/jurisdiction/at?${at(px, py)}` },
  'jurisdiction/parcel/{lpi}': { path: `/jurisdiction/parcel/${STRADDLING_FARM_LPI}` },
  'jurisdiction/search': { path: '/jurisdiction/search?q=cape' },
}

async function call(c: Call): Promise<number> {
  const res = await t.app.request(`/api/v1${c.path}`, {
    method: c.method ?? 'GET',
    headers: { 'X-API-KEY': key, ...(c.body ? { 'Content-Type': 'application/json' } : {}) },
    body: c.body ? JSON.stringify(c.body) : undefined,
  })
  await res.arrayBuffer()
  return res.status
}

/** The heap after collections with turns of the event loop between them (request bodies are released through finalizers). */
async function heap(): Promise<number> {
  for (let k = 0; k < 4; k++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return process.memoryUsage().heapUsed
}

describe('no operation leaks', () => {
  for (const [name, c] of Object.entries(OPERATIONS))
    it(`${name}: heap after ${SOAK_REQUESTS} more requests stays within ${HEAP_BOUND / 1e6} MB`, async () => {
      const status = await call(c)
      expect(status, `${name} answers`).toBeLessThan(500)
      for (let k = 0; k < WARM_UP; k++) await call(c)
      const before = await heap()
      for (let k = 0; k < SOAK_REQUESTS; k++) await call(c)
      const grown = (await heap()) - before
      expect(grown, `${name} grew the heap by ${grown} bytes`).toBeLessThan(HEAP_BOUND)
    })
})
