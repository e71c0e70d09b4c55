/**
 * TileJSON 3.0.0 of every tile set: the document's fields, its template resolved into a tile
 * the fixture dataset answers (whose layers and properties the document lists), and the origin
 * of the template, which X-Forwarded-Proto and -Host change only from a trusted proxy (over a
 * real socket, so the peer address is the proxy's).
 */
import type { Server } from 'node:http'
import { VectorTile } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/app.js'
import { createHttpServer } from '../src/http/node-server.js'
import { tileAt } from '../src/geo/tiles.js'
import { MemoryRateLimiter } from '../src/rate-limit/memory.js'
import { POINTS } from './fixtures/parcel-fixtures.js'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const get = (path: string, k = key, headers: Record<string, string> = {}) => t.get(`/api/v1${path}`, k, headers)

interface Doc {
  tilejson: string
  tiles: string[]
  minzoom: number
  maxzoom: number
  bounds?: number[]
  attribution?: string
  dataset_version: string
  vector_layers: { id: string; fields: Record<string, string>; minzoom: number; maxzoom: number }[]
}

/** The tile of the template at z/x/y, fetched through the app (the origin dropped), decoded. */
async function tileOf(doc: Doc, z: number, x: number, y: number): Promise<VectorTile> {
  const url = new URL(doc.tiles[0].replace('{z}', String(z)).replace('{x}', String(x)).replace('{y}', String(y)))
  const res = await t.get(url.pathname + url.search, key)
  expect(res.status).toBe(200)
  return new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer())))
}

/** Every layer of the tile is listed, from a zoom at or below z, with every property its features carry. */
function expectDescribed(doc: Doc, tile: VectorTile, z: number): void {
  const byId = new Map(doc.vector_layers.map((l) => [l.id, l]))
  expect(Object.keys(tile.layers).length).toBeGreaterThan(0)
  for (const [name, layer] of Object.entries(tile.layers)) {
    const described = byId.get(name)
    expect(described, name).toBeDefined()
    expect(described!.minzoom).toBeLessThanOrEqual(z)
    for (let i = 0; i < layer.length; i++)
      for (const p of Object.keys(layer.feature(i).properties)) expect(Object.keys(described!.fields)).toContain(p)
  }
}

const erf1 = tileAt(POINTS.inErf1.longitude, POINTS.inErf1.latitude, 15)

describe('GET /parcels/tiles.json', () => {
  it('describes the six layers, the zoom range, the bounds and the template of the tiles', async () => {
    const res = await get('/parcels/tiles.json')
    expect(res.status).toBe(200)
    const doc = await json<Doc>(res)
    expect(doc.tilejson).toBe('3.0.0')
    expect(doc.tiles).toEqual(['http://localhost/api/v1/parcels/tiles/{z}/{x}/{y}.mvt'])
    expect(doc.vector_layers.map((l) => l.id)).toEqual([
      'erf',
      'farm_portion',
      'holding',
      'parent_farm',
      'public_place',
      'street',
    ])
    expect(doc.vector_layers.find((l) => l.id === 'erf')).toMatchObject({ minzoom: 15, maxzoom: 16 })
    expect(doc.vector_layers.find((l) => l.id === 'parent_farm')!.minzoom).toBe(10)
    expect(Object.keys(doc.vector_layers[0].fields).sort()).toEqual([
      'legal_status',
      'lpi',
      'parcel_type',
      'status',
      'tag',
    ])
    expect(doc.minzoom).toBe(10)
    expect(doc.maxzoom).toBe(16)
    // the data's extent: it holds the fixture erven and the Cape farm (18.7..18.95)
    const [w, s, e, n] = doc.bounds!
    expect(w).toBeLessThanOrEqual(17.0)
    expect(e).toBeGreaterThanOrEqual(18.95)
    expect(s).toBeLessThanOrEqual(-34.91)
    expect(n).toBeGreaterThanOrEqual(-33.9)
    expect(e - w).toBeLessThan(20)
    expect(doc.dataset_version).toBe((await json(await get('/parcels/coverage'))).dataset_version)
    expectDescribed(doc, await tileOf(doc, 15, erf1.x, erf1.y), 15)
  })

  it('layers= narrows the document and the template alike', async () => {
    const doc = await json<Doc>(await get('/parcels/tiles.json?layers=ERF'))
    expect(doc.tiles[0]).toBe('http://localhost/api/v1/parcels/tiles/{z}/{x}/{y}.mvt?layers=erf')
    expect(doc.vector_layers.map((l) => l.id)).toEqual(['erf'])
    expect(doc.minzoom).toBe(15)
    const tile = await tileOf(doc, 15, erf1.x, erf1.y)
    expect(Object.keys(tile.layers)).toEqual(['erf'])
    expect((await get('/parcels/tiles.json?layers=plot')).status).toBe(400)
  })

  it('ETag and 304 as every JSON GET; keyed like the tiles', async () => {
    const res = await get('/parcels/tiles.json')
    const etag = res.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/)
    expect(res.headers.get('cache-control')).toBe('private, max-age=60')
    expect((await get('/parcels/tiles.json', key, { 'If-None-Match': etag })).status).toBe(304)
    expect((await get('/parcels/tiles.json', '')).status).toBe(401)
    const plotsOnly = t.issue({ products: ['plots'] }).key
    expect((await json(await get('/parcels/tiles.json', plotsOnly))).error).toBe('ProductNotPermitted')
  })
})

describe('GET /encumbrances/tiles.json and /jurisdiction/tiles.json', () => {
  it('encumbrances: every class, the template of a tile that holds only listed layers and fields', async () => {
    const doc = await json<Doc>(await get('/encumbrances/tiles.json'))
    expect(doc.tiles).toEqual(['http://localhost/api/v1/encumbrances/tiles/{z}/{x}/{y}.mvt'])
    expect(doc.vector_layers.map((l) => l.id)).toContain('servitude_area')
    expect(doc.vector_layers.find((l) => l.id === 'servitude_area')!.minzoom).toBe(12)
    expect(doc.minzoom).toBe(8)
    expect(doc.bounds).toHaveLength(4)
    const at = tileAt(17.002, -34.9045, 14)
    expectDescribed(doc, await tileOf(doc, 14, at.x, at.y), 14)
    const some = await json<Doc>(await get('/encumbrances/tiles.json?classes=lease,servitude_line'))
    expect(some.tiles[0]).toMatch(/\/encumbrances\/tiles\/\{z\}\/\{x\}\/\{y\}\.mvt\?classes=lease,servitude_line$/)
    const noProduct = t.issue({ products: ['parcels'] }).key
    expect((await get('/encumbrances/tiles.json', noProduct)).status).toBe(403)
  })

  it('jurisdiction: the default layers, the sources as attribution, layers and as_at kept in the template', async () => {
    const doc = await json<Doc>(await get('/jurisdiction/tiles.json'))
    expect(doc.vector_layers.map((l) => l.id)).toEqual([
      'province',
      'district_municipality',
      'local_municipality',
      'ward',
    ])
    expect(doc.minzoom).toBe(0)
    expect(doc.maxzoom).toBe(14)
    expect(doc.attribution).toContain('Municipal Demarcation Board')
    expect(doc.bounds![0]).toBeLessThan(20)
    expect(doc.bounds![2]).toBeGreaterThan(30)
    const cape = tileAt(18.42, -33.92, 9)
    expectDescribed(doc, await tileOf(doc, 9, cape.x, cape.y), 9)
    const asked = await json<Doc>(await get('/jurisdiction/tiles.json?layers=Ward&as_at=2014-06-01'))
    expect(asked.tiles[0]).toMatch(/\/jurisdiction\/tiles\/\{z\}\/\{x\}\/\{y\}\.mvt\?layers=ward&as_at=2014-06-01$/)
    expect(asked.vector_layers.map((l) => l.id)).toEqual(['ward'])
    expect(asked.minzoom).toBe(8)
  })
})

describe('the template origin behind a proxy', () => {
  const servers: Server[] = []
  const bases: string[] = []
  beforeAll(async () => {
    // the same store and dataset; one app trusts the loopback peer as its proxy, one trusts nobody
    for (const trusted of [new Set(['127.0.0.1']), new Set<string>()]) {
      const app = createApp({
        log: pino({ level: 'silent' }),
        keys: t.keys,
        limiter: new MemoryRateLimiter(),
        data: t.data,
        trustedProxies: trusted,
      })
      const limits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 }
      const server = createHttpServer(app.fetch, pino({ level: 'silent' }), limits, '127.0.0.1')
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
      servers.push(server)
      bases.push(`http://127.0.0.1:${(server.address() as { port: number }).port}`)
    }
  })
  afterAll(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))))

  const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'maps.example.org, inner.local' }
  const templateFrom = async (base: string, headers: Record<string, string>) => {
    const res = await fetch(`${base}/api/v1/parcels/tiles.json`, { headers: { 'X-API-KEY': key, ...headers } })
    expect(res.status).toBe(200)
    return ((await res.json()) as Doc).tiles[0]
  }

  it('honours X-Forwarded-Proto and -Host from a trusted proxy (the first of a list)', async () => {
    expect(await templateFrom(bases[0], forwarded)).toBe(
      'https://maps.example.org/api/v1/parcels/tiles/{z}/{x}/{y}.mvt',
    )
    // without the headers: the request's own origin
    expect(await templateFrom(bases[0], {})).toBe(`${bases[0]}/api/v1/parcels/tiles/{z}/{x}/{y}.mvt`)
    // a value that is no host is ignored
    expect(await templateFrom(bases[0], { 'X-Forwarded-Host': 'evil.org/x?', 'X-Forwarded-Proto': 'ftp' })).toBe(
      `${bases[0]}/api/v1/parcels/tiles/{z}/{x}/{y}.mvt`,
    )
  })

  it('ignores them from any other client', async () => {
    expect(await templateFrom(bases[1], forwarded)).toBe(`${bases[1]}/api/v1/parcels/tiles/{z}/{x}/{y}.mvt`)
  })
})
