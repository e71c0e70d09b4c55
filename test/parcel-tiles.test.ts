/**
 * Parcel vector tiles over the fixture cadastre (test/fixtures/parcel-fixtures.ts: a farm, two
 * portions and six erven south-west of Cape Point), decoded back with @mapbox/vector-tile.
 */
import { VectorTile, type VectorTileLayer } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import { describe, expect, it } from 'vitest'
import { tileAt } from '../src/geo/tiles.js'
import { STRADDLING_FARM_LPI } from './fixtures/jurisdiction-fixtures.js'
import { FARM_LPI, PORTION1_LPI, erfLpi, POINTS } from './fixtures/parcel-fixtures.js'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const get = (path: string, k: string | undefined = key, headers: Record<string, string> = {}) =>
  t.get(`/api/v1/parcels${path}`, k, headers)

async function decode(res: Response): Promise<VectorTile> {
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('application/vnd.mapbox-vector-tile')
  return new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer())))
}

const features = (l: VectorTileLayer | undefined) => (l ? Array.from({ length: l.length }, (_, i) => l.feature(i)) : [])
const lpisOf = (l: VectorTileLayer | undefined) => features(l).map((f) => f.properties.lpi)

/** Twice the signed area of a ring in tile coordinates (y down): positive is clockwise on screen. */
const area2 = (ring: { x: number; y: number }[]) => {
  let a = 0
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += ring[j].x * ring[i].y - ring[i].x * ring[j].y
  return a
}

const erf1 = tileAt(POINTS.inErf1.longitude, POINTS.inErf1.latitude, 15)

describe('GET /parcels/tiles/{z}/{x}/{y}.mvt', () => {
  it('a z15 tile holds one layer per type, named in lower case, with the current records only', async () => {
    const tile = await decode(await get(`/tiles/15/${erf1.x}/${erf1.y}.mvt`))
    expect(Object.keys(tile.layers).sort()).toEqual(['erf', 'farm_portion', 'parent_farm'])
    const erven = features(tile.layers.erf)
    const lpis = erven.map((f) => f.properties.lpi)
    // erf 1's historic version, archived erf 5 and withdrawn erf 6 are left out
    expect(lpis.filter((l) => l === erfLpi(1))).toHaveLength(1)
    expect(lpis).toEqual(expect.arrayContaining([erfLpi(1), erfLpi(2), erfLpi(3), erfLpi(4)]))
    expect(lpis).not.toContain(erfLpi(5))
    expect(lpis).not.toContain(erfLpi(6))
    const one = erven[lpis.indexOf(erfLpi(1))]
    expect(one.type).toBe(3)
    expect(one.properties).toEqual({
      lpi: erfLpi(1),
      parcel_type: 'ERF',
      tag: '1',
      status: 'current',
      legal_status: 'R',
    })
    expect(typeof one.id).toBe('number')
    // the id is the parcel's id of the JSON answers, and the tile is the one of its label point
    const record = (await json(await get(`/${erfLpi(1)}`))).parcels[0]
    expect(one.id).toBe(record.id)
    expect(tileAt(record.label_point.longitude, record.label_point.latitude, 15)).toEqual(erf1)
    // its current version's square, back in degrees (within a tile pixel, about 0.5 m)
    const ring = (one.toGeoJSON(erf1.x, erf1.y, 15).geometry as { coordinates: number[][][] }).coordinates[0]
    const lons = ring.map((p) => p[0])
    const lats = ring.map((p) => p[1])
    expect(Math.min(...lons)).toBeCloseTo(17.001, 5)
    expect(Math.max(...lons)).toBeCloseTo(17.002, 5)
    expect(Math.min(...lats)).toBeCloseTo(-34.905, 5)
    expect(Math.max(...lats)).toBeCloseTo(-34.904, 5)
    // erf 3 has no work status: current
    expect(erven[lpis.indexOf(erfLpi(3))].properties.status).toBe('current')
    expect(lpisOf(tile.layers.parent_farm)).toEqual([FARM_LPI])
    expect(tile.layers.parent_farm.feature(0).properties.parcel_type).toBe('PARENT_FARM')
    expect(lpisOf(tile.layers.farm_portion)).toContain(PORTION1_LPI)
  })

  it('a polygon with a hole keeps it: exterior clockwise, hole anticlockwise in tile coordinates', async () => {
    const at = tileAt(17.0025, -34.9075, 15)
    const tile = await decode(await get(`/tiles/15/${at.x}/${at.y}.mvt`))
    const erf4 = features(tile.layers.erf).find((f) => f.properties.lpi === erfLpi(4))!
    const rings = erf4.loadGeometry()
    expect(rings).toHaveLength(2)
    expect(area2(rings[0])).toBeGreaterThan(0)
    expect(area2(rings[1])).toBeLessThan(0)
    // one polygon with its hole, as GeoJSON
    const g = erf4.toGeoJSON(at.x, at.y, 15).geometry
    expect(g.type).toBe('Polygon')
    expect((g as { coordinates: unknown[] }).coordinates).toHaveLength(2)
    // erf 3 was written clockwise in the source: its exterior is still the positive ring
    const erf3 = features(tile.layers.erf).find((f) => f.properties.lpi === erfLpi(3))!
    expect(erf3.loadGeometry()).toHaveLength(1)
    expect(area2(erf3.loadGeometry()[0])).toBeGreaterThan(0)
  })

  it('a far tile holds other parcels and not the fixture erven', async () => {
    const far = tileAt(18.8, -33.95, 12)
    const tile = await decode(await get(`/tiles/12/${far.x}/${far.y}.mvt`))
    expect(lpisOf(tile.layers.parent_farm)).toContain(STRADDLING_FARM_LPI)
    const all = Object.values(tile.layers).flatMap((l) => lpisOf(l))
    expect(all).not.toContain(erfLpi(1))
    expect(all).not.toContain(FARM_LPI)
  })

  it('scale gates: below its zoom a layer is absent; below every gate the tile is empty', async () => {
    const z14 = tileAt(POINTS.inErf1.longitude, POINTS.inErf1.latitude, 14)
    const tile = await decode(await get(`/tiles/14/${z14.x}/${z14.y}.mvt`))
    expect(tile.layers.erf).toBeUndefined()
    expect(Object.keys(tile.layers).sort()).toEqual(['farm_portion', 'parent_farm'])
    expect((await get(`/tiles/14/${z14.x}/${z14.y}.mvt?layers=erf`)).status).toBe(204)
    const z10 = tileAt(POINTS.inErf1.longitude, POINTS.inErf1.latitude, 10)
    expect(Object.keys((await decode(await get(`/tiles/10/${z10.x}/${z10.y}.mvt`))).layers)).toEqual(['parent_farm'])
    const z9 = tileAt(POINTS.inErf1.longitude, POINTS.inErf1.latitude, 9)
    expect((await get(`/tiles/9/${z9.x}/${z9.y}.mvt`)).status).toBe(204)
  })

  it('layers= picks layers, case-insensitive; an unknown one is a 400 naming it', async () => {
    const tile = await decode(await get(`/tiles/15/${erf1.x}/${erf1.y}.mvt?layers=ERF,parent_farm`))
    expect(Object.keys(tile.layers).sort()).toEqual(['erf', 'parent_farm'])
    const bad = await get(`/tiles/15/${erf1.x}/${erf1.y}.mvt?layers=erf,plot`)
    expect(bad.status).toBe(400)
    const body = await json(bad)
    expect(body.details.map((d: { field: string }) => d.field)).toEqual(['layers'])
    expect(body.message + JSON.stringify(body.details)).toContain('plot')
  })

  it('204 for an empty tile; 400 for a tile that does not exist or is not a number', async () => {
    const empty = await get('/tiles/14/0/0.mvt')
    expect(empty.status).toBe(204)
    expect(empty.headers.get('etag')).toBeTruthy()
    const fields = async (path: string) => {
      const res = await get(path)
      expect(res.status).toBe(400)
      const body = await json(res)
      expect(body.error).toBe('ValidationError')
      return body.details.map((d: { field: string }) => d.field)
    }
    expect(await fields('/tiles/3/8/0.mvt')).toEqual(['x'])
    expect(await fields('/tiles/3/0/8.mvt')).toEqual(['y'])
    expect(await fields('/tiles/23/0/0.mvt')).toEqual(['z'])
    expect(await fields('/tiles/a/0/0.mvt')).toEqual(['z'])
    expect(await fields('/tiles/3/1.5/0.mvt')).toEqual(['x'])
  })

  it('ETag from the tile content (stored at build time); If-None-Match gives 304; keyed caching headers', async () => {
    const path = `/tiles/15/${erf1.x}/${erf1.y}.mvt`
    const res = await get(path)
    const etag = res.headers.get('etag')!
    // test/tile-store.test.ts: the stored hash of the tile's bytes
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/)
    expect(res.headers.get('cache-control')).toBe('private, max-age=3600')
    expect(res.headers.get('vary')).toContain('X-API-KEY')
    const again = await get(path, key, { 'If-None-Match': etag })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    const other = await get(`${path}?layers=erf`, key, { 'If-None-Match': etag })
    expect(other.status).toBe(200)
  })

  it('401 without a key; 403 without the parcels product or South Africa', async () => {
    const path = `/tiles/15/${erf1.x}/${erf1.y}.mvt`
    const none = await get(path, '')
    expect(none.status).toBe(401)
    expect((await json(none)).error).toBe('ApiKeyMissing')
    const plotsOnly = t.issue({ products: ['plots'] }).key
    const noProduct = await get(path, plotsOnly)
    expect(noProduct.status).toBe(403)
    expect((await json(noProduct)).error).toBe('ProductNotPermitted')
    const bw = t.issue({ countries: ['BOTSWANA'] }).key
    expect((await json(await get(path, bw))).error).toBe('CountryNotPermitted')
  })
})
