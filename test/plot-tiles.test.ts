/**
 * Plot point tiles and their TileJSON over the fixture plots and erven
 * (test/fixtures/plot-fixtures.ts), decoded back with @mapbox/vector-tile; the key's countries
 * and towns decide what a tile holds, as for every plot answer.
 */
import { VectorTile } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import { describe, expect, it } from 'vitest'
import { tileAt } from '../src/geo/tiles.js'
import { GABORONE_A, INSIDE } from './fixtures/plot-fixtures.js'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const botswanaOnly = t.issue({ countries: ['BOTSWANA'] }).key
const gaboroneOnly = t.issue({ countries: ['BOTSWANA'], cities: { BOTSWANA: ['GABORONE'] } }).key
const get = (path: string, k = key, headers: Record<string, string> = {}) => t.get(`/api/v1/plots${path}`, k, headers)

async function decode(res: Response): Promise<VectorTile> {
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('application/vnd.mapbox-vector-tile')
  return new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer())))
}

const featuresOf = (tile: VectorTile, layer: string) => {
  const l = tile.layers[layer]
  return l ? Array.from({ length: l.length }, (_, i) => l.feature(i)) : []
}

const tilePath = (lon: number, lat: number, z: number) => {
  const { x, y } = tileAt(lon, lat, z)
  return { path: `/tiles/${z}/${x}/${y}.mvt`, x, y }
}

describe('GET /plots/tiles/{z}/{x}/{y}.mvt', () => {
  it('a Botswana plot is a point of layer plot in its z14 tile, with its number, town and district', async () => {
    const { path, x, y } = tilePath(INSIDE[0], INSIDE[1], 14)
    const tile = await decode(await get(path))
    expect(Object.keys(tile.layers)).toEqual(['plot'])
    const plot = featuresOf(tile, 'plot').find((f) => f.properties.plot_number === 'R-IN')!
    expect(plot.type).toBe(1)
    expect(plot.properties).toEqual({ plot_number: 'R-IN', city: 'MAUN', district: 'North-West' })
    const record = (await json(await get('/R-IN'))).plots[0]
    expect(plot.id).toBe(record.id)
    const [lon, lat] = (plot.toGeoJSON(x, y, 14).geometry as { coordinates: number[] }).coordinates
    expect(lon).toBeCloseTo(INSIDE[0], 5)
    expect(lat).toBeCloseTo(INSIDE[1], 5)
  })

  it('a South African erf is a point of layer erf, with its province; none below z14', async () => {
    const { path } = tilePath(28.0504, -26.2002, 14)
    const tile = await decode(await get(path))
    const erf = featuresOf(tile, 'erf').find((f) => f.properties.plot_number === '12/3')!
    const record = (await json(await get('/12%2F3?country=south_africa'))).plots[0]
    expect(erf.properties).toEqual({ plot_number: '12/3', city: record.city, province: record.province })
    expect(erf.id).toBe(record.id)
    expect((await get(tilePath(28.0504, -26.2002, 13).path)).status).toBe(204)
    expect((await get('/tiles/14/0/0.mvt')).status).toBe(204)
  })

  it("serves the key's countries and towns only; a layer of no country the key covers is a 403", async () => {
    const erf = tilePath(28.0504, -26.2002, 14).path
    expect((await get(erf, botswanaOnly)).status).toBe(204)
    expect((await json(await get(`${erf}?layers=erf`, botswanaOnly))).error).toBe('CountryNotPermitted')
    const maun = tilePath(INSIDE[0], INSIDE[1], 14).path
    expect((await get(maun, gaboroneOnly)).status).toBe(204)
    const gaborone = tilePath(GABORONE_A[0], GABORONE_A[1], 14).path
    const tile = await decode(await get(gaborone, gaboroneOnly))
    expect(featuresOf(tile, 'plot').map((f) => f.properties.plot_number)).toContain('990001')
    expect(featuresOf(tile, 'plot').every((f) => f.properties.city === 'GABORONE')).toBe(true)
    // the ETag names the scope: another scope's tag is not this tile's
    const full = await get(gaborone)
    const etag = full.headers.get('etag')!
    expect((await get(gaborone, key, { 'If-None-Match': etag })).status).toBe(304)
    expect((await get(gaborone, gaboroneOnly, { 'If-None-Match': etag })).status).toBe(200)
  })

  it('400 for a bad address or layer; 401 without a key; 403 without the plots product', async () => {
    expect((await get('/tiles/14/16384/0.mvt')).status).toBe(400)
    expect((await get('/tiles/14/0/0.mvt?layers=parcel')).status).toBe(400)
    expect((await get('/tiles/14/0/0.mvt', '')).status).toBe(401)
    const parcelsOnly = t.issue({ products: ['parcels'] }).key
    expect((await json(await get('/tiles/14/0/0.mvt', parcelsOnly))).error).toBe('ProductNotPermitted')
  })
})

describe('GET /plots/tiles.json', () => {
  it("lists the layers of the key's countries, and its template resolves to the tiles", async () => {
    const doc = await json(await get('/tiles.json'))
    expect(doc.tilejson).toBe('3.0.0')
    expect(doc.tiles).toEqual(['http://localhost/api/v1/plots/tiles/{z}/{x}/{y}.mvt'])
    expect(doc.vector_layers.map((l: { id: string }) => l.id)).toEqual(['plot', 'erf'])
    expect(doc.minzoom).toBe(14)
    expect(Object.keys(doc.vector_layers[0].fields).sort()).toEqual(['city', 'district', 'plot_number'])
    const { x, y } = tileAt(INSIDE[0], INSIDE[1], 14)
    const url = new URL(doc.tiles[0].replace('{z}', '14').replace('{x}', String(x)).replace('{y}', String(y)))
    const tile = await decode(await t.get(url.pathname, key))
    expect(featuresOf(tile, 'plot').map((f) => f.properties.plot_number)).toContain('R-IN')
    // both countries: from the Okavango to the Cape
    expect(doc.bounds[1]).toBeLessThan(-33.8)
    expect(doc.bounds[3]).toBeGreaterThan(-19.3)
    const bw = await json(await get('/tiles.json', botswanaOnly))
    expect(bw.vector_layers.map((l: { id: string }) => l.id)).toEqual(['plot'])
    // Botswana only: north of the Cape
    expect(bw.bounds[1]).toBeGreaterThan(-27.5)
  })
})
