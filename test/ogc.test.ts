/**
 * The OGC API - Features facade over HTTP (docs/api.md "OGC API - Features (GDAL, QGIS)"): the
 * landing page, conformance, the collections, their items page after page along `next`, one
 * item, and every error in the envelope. test/gdal.test.ts reads the same collections with GDAL.
 */
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, inject, it } from 'vitest'
import { erfLpi } from './fixtures/parcel-fixtures.js'
import { json, makeTestApp } from './helpers.js'

type Json = Record<string, any>

const t = makeTestApp()
const { key } = t.issue()
const ORIGIN = 'http://localhost'
const OGC = '/api/v1/ogc'
const BOX = '17.0005,-34.9095,17.0045,-34.9025'
const get = (path: string, k = key) => t.get(path.startsWith('/') ? path : `${OGC}/${path}`, k)
const linkOf = (doc: Json, rel: string): string | undefined =>
  doc.links.find((l: { rel: string }) => l.rel === rel)?.href

/** Every page of `url` along `next`: the features, and the number of pages. */
async function readAll(url: string): Promise<{ features: Json[]; pages: Json[] }> {
  const features: Json[] = []
  const pages: Json[] = []
  let next: string | undefined = url
  while (next) {
    const res = await get(next.startsWith(ORIGIN) ? next.slice(ORIGIN.length) : next)
    expect(res.status, await res.clone().text()).toBe(200)
    const page = await json(res)
    expect(page.numberReturned).toBe(page.features.length)
    features.push(...page.features)
    pages.push(page)
    next = linkOf(page, 'next')
  }
  return { features, pages }
}

/** The dataset's own answer (SQLite, not the API): every LPI with a visible version. */
function visibleLpis(): string[] {
  const db = new Database(join(inject('datasetDir'), 'parcels', 'parcels.sqlite'), { readonly: true })
  try {
    return (db.prepare('SELECT DISTINCT lpi FROM parcel WHERE hidden = 0').pluck().all() as string[]).sort()
  } finally {
    db.close()
  }
}

describe('landing page and conformance', () => {
  it('links itself, the OpenAPI document, the docs, conformance and the collections', async () => {
    const res = await get(OGC)
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toBe('application/json')
    const body = await json(res)
    expect(body.links.map((l: Json) => [l.rel, l.href, l.type])).toEqual([
      ['self', `${ORIGIN}${OGC}`, 'application/json'],
      ['service-desc', `${ORIGIN}/api/v1/openapi.json`, 'application/vnd.oai.openapi+json;version=3.1'],
      ['service-doc', `${ORIGIN}/docs`, 'text/html'],
      ['conformance', `${ORIGIN}${OGC}/conformance`, 'application/json'],
      ['data', `${ORIGIN}${OGC}/collections`, 'application/json'],
    ])
    const doc = await json(await t.get('/api/v1/openapi.json'))
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths)).toContain(`${OGC}/collections/{collectionId}/items`)
  })

  it('declares core and GeoJSON, and not oas30 (the document is OpenAPI 3.1)', async () => {
    const body = await json(await get('conformance'))
    expect(body.conformsTo).toEqual([
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
      'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
    ])
  })

  it('needs the key, as every API route', async () => {
    const res = await t.get(`${OGC}/collections`)
    expect(res.status).toBe(401)
    expect((await json(res)).error).toBe('ApiKeyMissing')
  })
})

describe('collections', () => {
  it('lists parcels and encumbrances, with their extent, CRS84 and links', async () => {
    const res = await get('collections')
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(linkOf(body, 'self')).toBe(`${ORIGIN}${OGC}/collections`)
    expect(body.collections.map((c: Json) => c.id)).toEqual(['parcels', 'encumbrances'])
    for (const c of body.collections) {
      expect(c.itemType).toBe('feature')
      expect(c.crs).toEqual(['http://www.opengis.net/def/crs/OGC/1.3/CRS84'])
      expect(c.extent.spatial.crs).toBe('http://www.opengis.net/def/crs/OGC/1.3/CRS84')
      expect(c.links.map((l: Json) => [l.rel, l.href, l.type])).toEqual([
        ['self', `${ORIGIN}${OGC}/collections/${c.id}`, 'application/json'],
        ['items', `${ORIGIN}${OGC}/collections/${c.id}/items`, 'application/geo+json'],
      ])
      // the same document at its own URL
      expect(await json(await get(`collections/${c.id}`))).toEqual(c)
    }
    // the extent is the box of the data: the TileJSON's bounds (rounded outwards to 1e-6)
    const parcels = body.collections[0].extent.spatial.bbox
    const tiles = await json(await t.get('/api/v1/parcels/tiles.json', key))
    expect(parcels).toHaveLength(1)
    for (const [i, v] of (parcels[0] as number[]).entries()) expect(Math.abs(v - tiles.bounds[i])).toBeLessThan(2e-6)
  })

  it('leaves out what the key may not read; asked by name, that is a 403', async () => {
    const { key: plotsOnly } = t.issue({ products: ['plots'] })
    expect((await json(await get('collections', plotsOnly))).collections).toEqual([])
    const res = await get('collections/parcels/items', plotsOnly)
    expect(res.status).toBe(403)
    expect((await json(res)).error).toBe('ProductNotPermitted')
    const { key: encumbranceOnly } = t.issue({ products: ['encumbrance'] })
    const some = await json(await get('collections', encumbranceOnly))
    expect(some.collections.map((c: Json) => c.id)).toEqual(['encumbrances'])
  })

  it('leaves out what the dataset lacks; asked by name, that is the domain’s 503', async () => {
    const plotsOnly = makeTestApp({ datasetDir: inject('plotsOnlyDatasetDir') })
    const { key: k } = plotsOnly.issue()
    expect((await json(await plotsOnly.get(`${OGC}/collections`, k))).collections).toEqual([])
    for (const [id, code] of [
      ['parcels', 'ParcelDataUnavailable'],
      ['encumbrances', 'EncumbranceDataUnavailable'],
    ]) {
      const res = await plotsOnly.get(`${OGC}/collections/${id}/items`, k)
      expect(res.status, id).toBe(503)
      expect((await json(res)).error, id).toBe(code)
    }
  })

  it('answers an unknown collection 404 CollectionNotFound, naming the collections', async () => {
    for (const path of ['collections/plots', 'collections/plots/items', 'collections/plots/items/1']) {
      const res = await get(path)
      expect(res.status, path).toBe(404)
      const body = await json(res)
      expect(body).toMatchObject({ error: 'CollectionNotFound', requestId: expect.any(String) })
      expect(body.message).toBe('no collection plots; the collections are parcels, encumbrances')
    }
  })
})

describe('parcels: items', () => {
  it('pages with 10 by default: GeoJSON, numberReturned, timeStamp, self, next and collection links', async () => {
    const before = Date.now()
    const res = await get('collections/parcels/items')
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toBe('application/geo+json')
    const page = await json(res)
    expect(page.type).toBe('FeatureCollection')
    expect(page.numberReturned).toBe(10)
    expect(page.features).toHaveLength(10)
    expect(page.numberMatched).toBeUndefined()
    expect(Date.parse(page.timeStamp)).toBeGreaterThanOrEqual(before - 1000)
    expect(page.timeStamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(page.links.map((l: Json) => l.rel)).toEqual(['self', 'next', 'collection'])
    expect(linkOf(page, 'self')).toBe(`${ORIGIN}${OGC}/collections/parcels/items`)
    expect(linkOf(page, 'next')).toMatch(
      /^http:\/\/localhost\/api\/v1\/ogc\/collections\/parcels\/items\?cursor=[\w-]+$/,
    )
    expect(linkOf(page, 'collection')).toBe(`${ORIGIN}${OGC}/collections/parcels`)
    const f = page.features[0]
    expect(f.id).toBe(f.properties.lpi)
    expect(f.geometry.type).toBe('MultiPolygon')
    expect(f.properties).toHaveProperty('record_id')
    expect(f.properties).not.toHaveProperty('id')
  })

  it('reads every LPI once along next: its current version, the same at any page size', async () => {
    const lpis = visibleLpis()
    const { features, pages } = await readAll(`${OGC}/collections/parcels/items?limit=37`)
    expect(pages.length).toBe(Math.ceil(lpis.length / 37))
    expect(linkOf(pages.at(-1)!, 'next')).toBeUndefined()
    const ids = features.map((f) => f.id)
    expect([...ids].sort()).toEqual(lpis)
    // the next link keeps the page size it was given
    expect(linkOf(pages[0], 'next')).toContain('limit=37&cursor=')
    const whole = await readAll(`${OGC}/collections/parcels/items?limit=1000`)
    expect(whole.features.map((f) => f.id)).toEqual(ids)
    // an LPI's feature is the version /parcels/{lpi} lists first
    for (const lpi of [erfLpi(1), ids[0], ids.at(-1)]) {
      const first = (await json(await t.get(`/api/v1/parcels/${lpi}`, key))).parcels[0]
      expect(features.find((f) => f.id === lpi)!.properties.record_id, lpi).toBe(first.id)
    }
  })

  it('keeps the parcels meeting bbox: the LPIs of /parcels/within for the same box', async () => {
    const within = await json(await t.get(`/api/v1/parcels/within?bbox=${BOX}&limit=500`, key))
    const expected = [...new Set(within.parcels.map((p: Json) => p.lpi))].sort()
    expect(expected.length).toBeGreaterThan(2)
    const { features, pages } = await readAll(`${OGC}/collections/parcels/items?bbox=${BOX}&limit=2`)
    expect(pages.length).toBeGreaterThan(1)
    expect(linkOf(pages[0], 'next')).toContain(`bbox=${BOX}&limit=2&cursor=`)
    expect(features.map((f) => f.id).sort()).toEqual(expected)
  })

  it('answers a limit above 1000 as 1000, and refuses one below 1 or not a whole number', async () => {
    const big = await json(await get('collections/parcels/items?limit=5000'))
    expect(big.numberReturned).toBe(Math.min(1000, visibleLpis().length))
    for (const bad of ['0', '-3', '2.5', 'ten', '']) {
      const res = await get(`collections/parcels/items?limit=${bad}`)
      expect(res.status, bad).toBe(400)
      const body = await json(res)
      expect(body.error).toBe('ValidationError')
      expect(body.details).toEqual([{ field: 'limit', message: 'limit must be a whole number of at least 1' }])
    }
  })

  it('refuses a bad bbox, naming it', async () => {
    for (const bad of ['1,2,3', '17,-34,16,-33', 'a,b,c,d', '17,-95,18,-34']) {
      const res = await get(`collections/parcels/items?bbox=${bad}`)
      expect(res.status, bad).toBe(400)
      const body = await json(res)
      expect(body.error).toBe('ValidationError')
      expect(body.details.map((d: Json) => d.field)).toEqual(['bbox'])
    }
  })

  it('refuses a cursor it did not issue, or one issued for another box', async () => {
    const page = await json(await get(`collections/parcels/items?bbox=${BOX}&limit=2`))
    const cursor = new URL(linkOf(page, 'next')!).searchParams.get('cursor')!
    const within = await json(await t.get(`/api/v1/parcels/within?bbox=${BOX}&limit=2`, key))
    for (const [bad, query] of [
      ['nonsense', ''],
      [cursor, ''],
      [within.next_cursor, `&bbox=${BOX}`],
    ]) {
      const res = await get(`collections/parcels/items?limit=2&cursor=${encodeURIComponent(bad)}${query}`)
      expect(res.status, bad).toBe(400)
      expect((await json(res)).details.map((d: Json) => d.field)).toEqual(['cursor'])
    }
    expect((await get(`collections/parcels/items?limit=2&bbox=${BOX}&cursor=${cursor}`)).status).toBe(200)
  })

  it('answers one parcel by its LPI (any case), and 404 ParcelNotFound for another', async () => {
    const res = await get(`collections/parcels/items/${erfLpi(1).toLowerCase()}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toBe('application/geo+json')
    const f = await json(res)
    expect(f).toMatchObject({ type: 'Feature', id: erfLpi(1), geometry: { type: 'MultiPolygon' } })
    expect(f.links.map((l: Json) => [l.rel, l.href])).toEqual([
      ['self', `${ORIGIN}${OGC}/collections/parcels/items/${erfLpi(1)}`],
      ['collection', `${ORIGIN}${OGC}/collections/parcels`],
    ])
    for (const id of ['C01307770000099900000', 'not-an-lpi']) {
      const miss = await get(`collections/parcels/items/${id}`)
      expect(miss.status, id).toBe(404)
      expect(await json(miss)).toMatchObject({ error: 'ParcelNotFound', message: `no parcel carries the LPI ${id}` })
    }
  })
})

describe('encumbrances: items', () => {
  it('reads every current record once along next; numberMatched says how many', async () => {
    const { features, pages } = await readAll(`${OGC}/collections/encumbrances/items?limit=250`)
    const matched = pages[0].numberMatched
    expect(matched).toBeGreaterThan(250)
    expect(pages.every((p) => p.numberMatched === matched)).toBe(true)
    expect(features).toHaveLength(matched)
    const ids = features.map((f) => f.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(features.every((f) => f.id === f.properties.encumbrance_uid && !('record_status' in f.properties))).toBe(
      true,
    )
    // the same records as /search with no filter (current ones, in source order)
    const search = await readSearch()
    expect(ids).toEqual(search)
  })

  it('keeps the records meeting bbox: those of /encumbrances/within for the same box', async () => {
    const box = '17.0,-34.95,17.05,-34.9'
    const within = await json(await t.get(`/api/v1/encumbrances/within?bbox=${box}&limit=1000`, key))
    expect(within.encumbrances.length).toBeGreaterThan(2)
    const { features, pages } = await readAll(`${OGC}/collections/encumbrances/items?bbox=${box}&limit=2`)
    expect(pages.length).toBeGreaterThan(1)
    expect(pages[0].numberMatched).toBeUndefined()
    expect(features.map((f) => f.id)).toEqual(within.encumbrances.map((e: Json) => e.encumbrance_uid))
  })

  it('answers one record by its uid, and 404 EncumbranceNotFound for another; a bad cursor is a 400', async () => {
    const [first] = (await json(await get('collections/encumbrances/items?limit=1'))).features
    const res = await get(`collections/encumbrances/items/${first.id}`)
    expect(res.status).toBe(200)
    expect(await json(res)).toMatchObject({ type: 'Feature', id: first.id, properties: first.properties })
    for (const id of ['999999999', 'x1']) {
      const miss = await get(`collections/encumbrances/items/${id}`)
      expect(miss.status, id).toBe(404)
      expect((await json(miss)).error).toBe('EncumbranceNotFound')
    }
    const bad = await get('collections/encumbrances/items?cursor=abc')
    expect(bad.status).toBe(400)
    expect((await json(bad)).details).toEqual([{ field: 'cursor', message: 'cursor is not one this service issued' }])
  })
})

/** The uids /encumbrances/search lists with no filter, every page. */
async function readSearch(): Promise<number[]> {
  const uids: number[] = []
  let cursor = 0
  for (;;) {
    const page = await json(await t.get(`/api/v1/encumbrances/search?limit=1000&cursor=${cursor}`, key))
    uids.push(...page.encumbrances.map((e: Json) => e.encumbrance_uid))
    if (page.next_cursor === undefined) return uids
    cursor = page.next_cursor
  }
}
