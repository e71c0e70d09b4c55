/**
 * The tiles build-index stores (src/data/tile-store.ts, build-index/tiles/) over the fixture
 * dataset: every stored parcel and plot tile is the tile the server makes when asked, and every
 * tile it would make is stored; how a stored tile is answered (gzip as stored or decompressed,
 * never twice; ETag from its content; 304; 204; fewer layers; zooms beyond the store).
 */
import { createHash } from 'node:crypto'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { PARCEL_TILE_LAYERS, PARCEL_TILES_FILE, PARCEL_TILES_MAX_ZOOM } from '../src/data/parcel-tiles.js'
import { FLAG_HIDDEN, PARCEL_FILES } from '../src/data/parcels-format.js'
import { PLOT_TILE_LAYERS, PLOT_TILES_FILE, PLOT_TILES_MAX_ZOOM, PLOT_TILES_MIN_ZOOM } from '../src/data/plot-tiles.js'
import { PLOT_FILES } from '../src/data/plots-format.js'
import { tmsRow } from '../src/data/tile-store.js'
import { DEFAULT_TILE_BUFFER_PX } from '../src/geo/mvt/encode.js'
import { latToWorldY, lonToWorldX, tileAt } from '../src/geo/tiles.js'
import { sharedParcelFlags, sharedParcelIndex } from '../src/data/parcel-readers.js'
import { POINTS } from './fixtures/parcel-fixtures.js'
import { makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const ds = t.data.dataset
const services = t.data.services
const raw = async (res: Response) => Buffer.from(await res.arrayBuffer())

/** Every stored tile of a store: z/x/y (XYZ), gzip bytes, hash. */
function storedTiles(file: string): { z: number; x: number; y: number; gzip: Buffer; hash: Buffer }[] {
  const rows = ds
    .sqlite(file)
    .prepare('SELECT zoom_level, tile_column, tile_row, tile_data, tile_hash FROM tiles')
    .raw()
    .all() as [number, number, number, Buffer, Buffer][]
  return rows.map(([z, x, row, gzip, hash]) => ({ z, x, y: tmsRow(z, row), gzip, hash }))
}

/** The tiles at zooms z0..z1 whose grown box (the tile buffer) meets one of the boxes. */
function tilesMeeting(boxes: [number, number, number, number][], z0: number, z1: number): Set<string> {
  const out = new Set<string>()
  for (let z = z0; z <= z1; z++) {
    const n = 2 ** z
    const pad = DEFAULT_TILE_BUFFER_PX / 4096
    for (const [w, s, e, nn] of boxes) {
      const x0 = Math.max(0, Math.floor(lonToWorldX(w) * n - pad))
      const x1 = Math.min(n - 1, Math.floor(lonToWorldX(e) * n + pad))
      const y0 = Math.max(0, Math.floor(latToWorldY(nn) * n - pad))
      const y1 = Math.min(n - 1, Math.floor(latToWorldY(s) * n + pad))
      for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) out.add(`${z}/${x}/${y}`)
    }
  }
  return out
}

const sha8 = (b: Uint8Array) => createHash('sha256').update(b).digest().subarray(0, 8)

/** Checks a store against the tiles made when asked: equal bytes, equal hash, and none missing. */
function expectStoreEqualsLive(
  file: string,
  candidates: Set<string>,
  live: (z: number, x: number, y: number) => Uint8Array,
): number {
  const stored = storedTiles(file)
  const keys = new Set<string>()
  for (const s of stored) {
    const k = `${s.z}/${s.x}/${s.y}`
    keys.add(k)
    const plain = gunzipSync(s.gzip)
    expect(plain.equals(Buffer.from(live(s.z, s.x, s.y))), k).toBe(true)
    expect(s.hash.equals(sha8(plain)), k).toBe(true)
  }
  // every tile the server would make with a feature is stored
  let made = 0
  for (const k of candidates) {
    const [z, x, y] = k.split('/').map(Number)
    if (live(z, x, y).byteLength === 0) continue
    made++
    expect(keys.has(k), k).toBe(true)
  }
  expect(made).toBe(stored.length)
  return stored.length
}

describe('the stored tiles', () => {
  it('parcels: every tile z10 to z16 is the tile made when asked, and each one made is stored', () => {
    const index = sharedParcelIndex(ds)
    const flags = sharedParcelFlags(ds)
    const boxes: [number, number, number, number][] = []
    index.search(-180, -90, 180, 90, (i, x0, y0, x1, y1) => {
      if ((flags[i] & FLAG_HIDDEN) === 0) boxes.push([x0, y0, x1, y1])
      return false
    })
    const stored = expectStoreEqualsLive(PARCEL_TILES_FILE, tilesMeeting(boxes, 10, PARCEL_TILES_MAX_ZOOM), (z, x, y) =>
      services.parcels!.tile(z, x, y, PARCEL_TILE_LAYERS),
    )
    expect(stored).toBeGreaterThan(1000)
    expect(ds.has(PARCEL_FILES.sqlite)).toBe(true)
  })

  it('plots: every tile z14 to z16 of both countries is the tile made when asked, and each one made is stored', () => {
    const boxes: [number, number, number, number][] = []
    for (const f of [PLOT_FILES.botswana.sqlite, PLOT_FILES.south_africa.sqlite])
      for (const [lon, lat] of ds.sqlite(f).prepare('SELECT longitude, latitude FROM plot').raw().all() as [
        number,
        number,
      ][])
        boxes.push([lon, lat, lon, lat])
    const stored = expectStoreEqualsLive(
      PLOT_TILES_FILE,
      tilesMeeting(boxes, PLOT_TILES_MIN_ZOOM, PLOT_TILES_MAX_ZOOM),
      (z, x, y) => services.plots!.tile(z, x, y, PLOT_TILE_LAYERS, ['BOTSWANA', 'SOUTH_AFRICA'], {}),
    )
    expect(stored).toBeGreaterThan(100)
  })
})

// the largest stored parcel tile, and the z15 tile of the fixture erven
const big = storedTiles(PARCEL_TILES_FILE).sort((a, b) => b.gzip.byteLength - a.gzip.byteLength)[0]
const path = `/api/v1/parcels/tiles/${big.z}/${big.x}/${big.y}.mvt`
const { gzip, hash } = big
const tag = `"${hash.toString('hex')}"`
const erf1 = tileAt(POINTS.inErf1.longitude, POINTS.inErf1.latitude, 15)
const erf1Path = `/api/v1/parcels/tiles/15/${erf1.x}/${erf1.y}.mvt`

describe('a stored tile answered', () => {
  it('to a client accepting gzip: the stored bytes as they are, Content-Encoding gzip, the tag suffixed', async () => {
    for (const accept of ['gzip', 'gzip, deflate, br', 'br;q=1, gzip;q=0.5', '*']) {
      const res = await t.get(path, key, { 'Accept-Encoding': accept })
      expect(res.status, accept).toBe(200)
      expect(res.headers.get('Content-Encoding'), accept).toBe('gzip')
      expect(res.headers.get('Content-Type')).toBe('application/vnd.mapbox-vector-tile')
      expect(res.headers.get('ETag'), accept).toBe(`"${hash.toString('hex')}-gzip"`)
      expect(res.headers.get('Vary'), accept).toBe('X-API-KEY, Accept-Encoding')
      expect(res.headers.get('Cache-Control')).toBe('private, max-age=3600')
      // compressed once: the stored bytes, one gunzip from the tile
      expect((await raw(res)).equals(gzip), accept).toBe(true)
    }
    const head = await t.app.request(path, { method: 'HEAD', headers: { 'X-API-KEY': key, 'Accept-Encoding': 'gzip' } })
    expect(head.headers.get('Content-Length')).toBe(String(gzip.byteLength))
  })

  it('to a client not accepting gzip: decompressed (br on the fly for a br-only client), never coded twice', async () => {
    const plain = gunzipSync(gzip)
    expect(plain.byteLength).toBeGreaterThan(1024)
    for (const accept of [undefined, 'identity', 'gzip;q=0']) {
      const res = await t.get(path, key, accept === undefined ? {} : { 'Accept-Encoding': accept })
      expect(res.headers.get('Content-Encoding'), accept).toBeNull()
      expect(res.headers.get('ETag'), accept).toBe(tag)
      expect((await raw(res)).equals(plain), accept).toBe(true)
    }
    const br = await t.get(path, key, { 'Accept-Encoding': 'br' })
    expect(br.headers.get('Content-Encoding')).toBe('br')
    expect(br.headers.get('ETag')).toBe(`"${hash.toString('hex')}-br"`)
    expect(brotliDecompressSync(await raw(br)).equals(plain)).toBe(true)
  })

  it('304 for its tag in either form; the tag is the content hash, and another tile has another', async () => {
    for (const held of [tag, `"${hash.toString('hex')}-gzip"`, `W/${tag}`]) {
      const res = await t.get(path, key, { 'Accept-Encoding': 'gzip', 'If-None-Match': held })
      expect(res.status, held).toBe(304)
      expect(res.headers.get('ETag'), held).toBe(held.replace(/^W\//, ''))
    }
    const next = await t.get(erf1Path, key)
    expect(next.status).toBe(200)
    expect(next.headers.get('ETag')).not.toBe(tag)
    expect(next.headers.get('ETag')).toBe(`"${sha8(await raw(next)).toString('hex')}"`)
    // a tag naming the dataset, as the tiles made when asked have, is not this tile's
    const live = `"${services.parcels!.version}:${PARCEL_TILE_LAYERS.join(',')}"`
    expect((await t.get(path, key, { 'If-None-Match': live })).status).toBe(200)
  })

  it('fewer layers, in any order: picked from the stored tile, equal to the tile made when asked', async () => {
    for (const layers of [['erf'], ['parent_farm', 'erf'], ['farm_portion', 'erf', 'parent_farm']] as const) {
      const res = await t.get(`${erf1Path}?layers=${layers.join(',')}`, key)
      expect(res.status, layers.join()).toBe(200)
      const whole = await t.get(erf1Path, key)
      expect(res.headers.get('ETag')).toBe(`${whole.headers.get('ETag')!.slice(0, -1)}:${layers.join(',')}"`)
      const want = services.parcels!.tile(15, erf1.x, erf1.y, [...layers])
      expect((await raw(res)).equals(Buffer.from(want)), layers.join()).toBe(true)
    }
    // a layer with nothing in the tile: 204
    expect((await t.get(`${erf1Path}?layers=street`, key)).status).toBe(204)
  })

  it('204 for a tile the store lacks (empty), with the one tag of every empty tile', async () => {
    const res = await t.get('/api/v1/parcels/tiles/15/0/0.mvt', key, { 'Accept-Encoding': 'gzip' })
    expect(res.status).toBe(204)
    expect(res.headers.get('ETag')).toBe('"empty"')
    expect(res.headers.get('Content-Encoding')).toBeNull()
    expect((await t.get('/api/v1/parcels/tiles/15/0/0.mvt', key, { 'If-None-Match': '"empty"' })).status).toBe(304)
  })

  it('beyond the deepest stored zoom: made when asked, as the same tile set', async () => {
    const z = PARCEL_TILES_MAX_ZOOM + 1
    const at = tileAt(POINTS.inErf1.longitude, POINTS.inErf1.latitude, z)
    const res = await t.get(`/api/v1/parcels/tiles/${z}/${at.x}/${at.y}.mvt`, key)
    expect(res.status).toBe(200)
    expect(res.headers.get('ETag')).toBe(`"${services.parcels!.version}:${PARCEL_TILE_LAYERS.join(',')}"`)
    expect((await raw(res)).equals(Buffer.from(services.parcels!.tile(z, at.x, at.y, PARCEL_TILE_LAYERS)))).toBe(true)
  })

  it('plots: stored for a key that sees every town, made when asked for one limited to some towns', async () => {
    const [first] = storedTiles(PLOT_TILES_FILE)
    const p = `/api/v1/plots/tiles/${first.z}/${first.x}/${first.y}.mvt`
    const all = await t.get(p, key, { 'Accept-Encoding': 'gzip' })
    expect(all.headers.get('ETag')).toBe(`"${first.hash.toString('hex')}-gzip"`)
    expect((await raw(all)).equals(first.gzip)).toBe(true)
    const towns = t.issue({ countries: ['BOTSWANA', 'SOUTH_AFRICA'], cities: { BOTSWANA: ['GABORONE'] } }).key
    const scoped = await t.get(p, towns, { 'Accept-Encoding': 'gzip' })
    expect(scoped.headers.get('ETag')).toContain(encodeURIComponent('BOTSWANA=GABORONE'))
  })
})
