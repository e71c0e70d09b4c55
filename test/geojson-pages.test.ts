/**
 * GeoJSON that GIS tools read whole (docs/api.md "GeoJSON output"): a paged list answers
 * `numberReturned` and OGC API Features `links` (self, and next while more remain) whose URLs
 * serve the pages; a Feature's `id` is never repeated with another meaning in its properties,
 * and its properties are flat. Over the fixture dataset, through app.request (origin
 * http://localhost); test/gdal.test.ts reads the same pages with GDAL over a socket.
 */
import { describe, expect, it } from 'vitest'
import { POINTS } from './fixtures/parcel-fixtures.js'
import { RADIUS_CENTRE } from './fixtures/plot-fixtures.js'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const api = (path: string, headers: Record<string, string> = {}) => t.get(`/api/v1${path}`, key, headers)
/** A link's URL as app.request takes it: from the path on (the origin checked apart). */
const local = (href: string) => {
  expect(href.startsWith('http://localhost/api/v1/')).toBe(true)
  return href.slice('http://localhost'.length)
}
type Json = Record<string, any>

const PARCEL_BOX = '17.0005,-34.9095,17.0045,-34.9025'
/** Every paged list that answers GeoJSON, with a page small enough that several pages exist. */
const PAGED: { path: string; list: string; cursorOf: (body: Json) => unknown }[] = [
  { path: `/parcels/within?bbox=${PARCEL_BOX}&limit=2`, list: 'parcels', cursorOf: (b) => b.next_cursor },
  {
    path: '/encumbrances/within?bbox=17,-34.91,17.01,-34.9&limit=2',
    list: 'encumbrances',
    cursorOf: (b) => b.next_cursor,
  },
  { path: '/encumbrances/search?province=WC&limit=2', list: 'encumbrances', cursorOf: (b) => b.next_cursor },
  {
    path: '/jurisdiction/boundaries/local_municipality?province=GP&limit=2',
    list: 'boundaries',
    cursorOf: (b) => b.next_cursor,
  },
]

describe('a paged GeoJSON list carries numberReturned and its links', () => {
  it.each(PAGED.map((p) => [p.path, p] as const))('%s', async (_, p) => {
    // chosen by Accept: the links still name format=geojson, which a GIS tool may not send
    const res = await api(p.path, { Accept: 'application/geo+json' })
    expect(res.headers.get('Content-Type')).toBe('application/geo+json')
    const fc = await json(res)
    expect(fc.numberReturned).toBe(fc.features.length)
    expect(fc.numberReturned).toBe(2)
    const [self, next, ...rest] = fc.links
    expect(rest).toEqual([])
    expect(self).toEqual({
      rel: 'self',
      href: `http://localhost/api/v1${p.path}&format=geojson`,
      type: 'application/geo+json',
    })
    expect(next.rel).toBe('next')
    expect(next.type).toBe('application/geo+json')
    expect(next.href).toBe(`${self.href}&cursor=${encodeURIComponent(String(fc.next_cursor))}`)
    // the next link serves the next page, as the JSON form pages on with the cursor
    const page2 = await json(await api(local(next.href).slice('/api/v1'.length)))
    const json2 = await json(await api(`${p.path}&cursor=${encodeURIComponent(String(fc.next_cursor))}`))
    expect(page2.type).toBe('FeatureCollection')
    expect(page2.features.map((f: Json) => f.properties)).toHaveLength(json2[p.list].length)
    expect(page2.links[0].href).toBe(next.href)
    // the JSON form is unchanged: no links there
    const plain = await json(await api(p.path))
    expect(plain.links).toBeUndefined()
    expect(plain.numberReturned).toBeUndefined()
  })

  it('reads every parcel of a box by following next, each once, with the LPI as id', async () => {
    // the JSON walk by cursor is the reference
    const lpis: string[] = []
    let cursor: string | undefined
    do {
      const body = await json(
        await api(`/parcels/within?bbox=${PARCEL_BOX}&limit=100${cursor ? `&cursor=${cursor}` : ''}`),
      )
      lpis.push(...body.parcels.map((p: Json) => p.lpi))
      cursor = body.next_cursor
    } while (cursor)
    expect(lpis.length).toBeGreaterThan(3)

    const ids: string[] = []
    let href: string | undefined = `http://localhost/api/v1/parcels/within?bbox=${PARCEL_BOX}&limit=2&format=geojson`
    let pages = 0
    while (href) {
      const fc: Json = await json(await t.get(local(href), key))
      ids.push(...fc.features.map((f: Json) => f.id))
      href = fc.links.find((l: Json) => l.rel === 'next')?.href
      pages++
    }
    expect(pages).toBe(Math.ceil(lpis.length / 2))
    expect(ids).toEqual(lpis)
  })

  it('has no next link on the last page', async () => {
    const fc = await json(await api('/jurisdiction/boundaries/province?limit=1000&format=geojson'))
    expect(fc.numberReturned).toBe(9)
    expect(fc.next_cursor).toBeUndefined()
    expect(fc.links.map((l: Json) => l.rel)).toEqual(['self'])
  })

  it('leaves lists that are not paged without links', async () => {
    const fc = await json(
      await api(`/parcels/at?latitude=${POINTS.inErf1.latitude}&longitude=${POINTS.inErf1.longitude}&format=geojson`),
    )
    expect(fc.features.length).toBeGreaterThan(0)
    expect(fc.links).toBeUndefined()
    expect(fc.numberReturned).toBeUndefined()
  })
})

/** Every GeoJSON route, one request each. */
const ROUTES = [
  `/plots/search-given-coordinates?latitude=${RADIUS_CENTRE[1]}&longitude=${RADIUS_CENTRE[0]}&radius=1000`,
  `/plots/reverse?latitude=${RADIUS_CENTRE[1]}&longitude=${RADIUS_CENTRE[0]}`,
  '/plots/990001',
  `/parcels/at?latitude=${POINTS.inErf1.latitude}&longitude=${POINTS.inErf1.longitude}`,
  `/parcels/within?bbox=${PARCEL_BOX}`,
  '/encumbrances/at?latitude=-34.9048&longitude=17.00233&radius_m=50',
  '/encumbrances/within?bbox=17,-34.91,17.01,-34.9',
  '/encumbrances/search?province=WC',
  '/jurisdiction/at?lat=-26.2041&lon=28.0473',
  '/jurisdiction/boundaries/local_municipality?province=GP',
  '/jurisdiction/boundaries/district_municipality/DC48',
  '/jurisdiction/boundaries/district_municipality/DC48/children',
]

describe('Features whose id and properties a GIS tool reads whole', () => {
  it.each(ROUTES)('%s', async (path) => {
    const fc = await json(await api(`${path}&format=geojson`.replace(/^([^?]*)&/, '$1?')))
    expect(fc.features.length, path).toBeGreaterThan(0)
    for (const f of fc.features) {
      // an id property, where there is one, is the Feature's own
      if ('id' in f.properties) expect(f.properties.id).toBe(f.id)
      // nothing nested: a GIS table has one value per column
      for (const [k, v] of Object.entries(f.properties))
        expect(v === null || typeof v !== 'object' || Array.isArray(v), `${path} ${k}`).toBe(true)
    }
  })

  it('gives a parcel its LPI as id, its row id as record_id, and its status and label point flat', async () => {
    const path = `/parcels/at?latitude=${POINTS.inErf1.latitude}&longitude=${POINTS.inErf1.longitude}`
    const records = (await json(await api(path))).parcels
    const fc = await json(await api(`${path}&format=geojson`))
    fc.features.forEach((f: Json, i: number) => {
      const r = records[i]
      expect(f.id).toBe(r.lpi)
      expect(f.properties).not.toHaveProperty('id')
      expect(f.properties).not.toHaveProperty('legal_status')
      expect(f.properties).not.toHaveProperty('label_point')
      expect(f.properties).toMatchObject({
        record_id: r.id,
        lpi: r.lpi,
        legal_status_code: r.legal_status.code,
        legal_status_label: r.legal_status.label,
        label_point_latitude: r.label_point.latitude,
        label_point_longitude: r.label_point.longitude,
      })
      if (r.work_status) expect(f.properties.work_status_code).toBe(r.work_status.code)
    })
  })
})
