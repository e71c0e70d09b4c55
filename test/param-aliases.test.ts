/**
 * Parameter aliases end to end (docs/api.md "Parameter aliases"): every other spelling of a point,
 * a box, a page size and a radius gives the very answer (bytes and ETag) of the route's own
 * names, over the fixture dataset; two spellings that differ are a 400 naming both; a bad `bbox`
 * is a 400 naming `bbox`; a `limit` that is not a page size is no alias.
 */
import { describe, expect, it } from 'vitest'
import { POINTS } from './fixtures/parcel-fixtures.js'
import { RADIUS_CENTRE } from './fixtures/plot-fixtures.js'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const api = (path: string, headers: Record<string, string> = {}) => t.get(`/api/v1${path}`, key, headers)

const [plotLon, plotLat] = RADIUS_CENTRE
const erf = POINTS.inErf1
const PARCEL_BOX = [17.0005, -34.9095, 17.0045, -34.9025]
const ENC_BOX = [17.0, -34.91, 17.01, -34.9]

/** [canonical request, the same with aliases]: each pair must answer the same. */
const SAME: [string, string][] = [
  [
    `/plots/search-given-coordinates?latitude=${plotLat}&longitude=${plotLon}&radius=1000&limit=5`,
    `/plots/search-given-coordinates?lat=${plotLat}&lon=${plotLon}&radius_m=1000&limit=5`,
  ],
  [`/plots/reverse?latitude=${plotLat}&longitude=${plotLon}`, `/plots/reverse?lat=${plotLat}&lon=${plotLon}`],
  [
    `/parcels/at?latitude=${erf.latitude}&longitude=${erf.longitude}`,
    `/parcels/at?lat=${erf.latitude}&lon=${erf.longitude}`,
  ],
  [
    `/parcels/at?latitude=${erf.latitude}&longitude=${erf.longitude}&format=geojson`,
    `/parcels/at?lat=${erf.latitude}&longitude=${erf.longitude}&format=geojson`,
  ],
  [
    `/parcels/within?min_lng=${PARCEL_BOX[0]}&min_lat=${PARCEL_BOX[1]}&max_lng=${PARCEL_BOX[2]}&max_lat=${PARCEL_BOX[3]}&page_size=2`,
    `/parcels/within?bbox=${PARCEL_BOX.join(',')}&limit=2`,
  ],
  [
    `/encumbrances/at?latitude=-34.9048&longitude=17.00233&radius_m=50`,
    `/encumbrances/at?lat=-34.9048&lon=17.00233&radius=50`,
  ],
  [
    `/encumbrances/within?bbox=${ENC_BOX.join(',')}&limit=2`,
    `/encumbrances/within?bbox=${ENC_BOX.join(',')}&page_size=2`,
  ],
  [`/encumbrances/search?province=WC&limit=3`, `/encumbrances/search?province=WC&page_size=3`],
  [
    '/encumbrances/heatmap?west=17&south=-34.91&east=17.01&north=-34.9',
    '/encumbrances/heatmap?bbox=17,-34.91,17.01,-34.9',
  ],
  ['/jurisdiction/at?lat=-26.2041&lon=28.0473', '/jurisdiction/at?latitude=-26.2041&longitude=28.0473'],
  [
    '/jurisdiction/boundaries/local_municipality?province=GP&limit=2',
    '/jurisdiction/boundaries/local_municipality?province=GP&page_size=2',
  ],
  [
    '/jurisdiction/heatmap?west=27.9&south=-26.3&east=28.1&north=-26.1',
    '/jurisdiction/heatmap?bbox=27.9,-26.3,28.1,-26.1',
  ],
]

describe('every alias answers as the canonical name', () => {
  it.each(SAME)('%s', async (canonical, aliased) => {
    const a = await api(canonical)
    const b = await api(aliased)
    expect(a.status, canonical).toBe(200)
    expect(b.status, aliased).toBe(200)
    const [ta, tb] = [await a.text(), await b.text()]
    expect(ta.length).toBeGreaterThan(50)
    expect(tb).toBe(ta)
    // the same answer, the same tag: a cache or If-None-Match sees one answer
    expect(b.headers.get('ETag')).toBe(a.headers.get('ETag'))
    expect((await api(aliased, { 'If-None-Match': a.headers.get('ETag')! })).status).toBe(304)
  })

  it('gives the alias requests answers that differ where the canonical ones do', async () => {
    // a check that the alias is read, not dropped: another value, another answer
    const one = await json(await api('/parcels/within?bbox=17.0005,-34.9095,17.0045,-34.9025&limit=1'))
    const two = await json(await api('/parcels/within?bbox=17.0005,-34.9095,17.0045,-34.9025&limit=2'))
    expect(one.parcels).toHaveLength(1)
    expect(two.parcels).toHaveLength(2)
    const near = await json(await api(`/plots/search-given-coordinates?lat=${plotLat}&lon=${plotLon}&radius_m=1`))
    const far = await json(await api(`/plots/search-given-coordinates?lat=${plotLat}&lon=${plotLon}&radius_m=5000`))
    expect(far.plots.length).toBeGreaterThan(near.plots.length)
    const p = await json(await api('/encumbrances/search?page_size=1'))
    expect(p.limit).toBe(1)
  })

  it('pages on with a cursor issued to the other spelling', async () => {
    const canonical = `/parcels/within?min_lng=${PARCEL_BOX[0]}&min_lat=${PARCEL_BOX[1]}&max_lng=${PARCEL_BOX[2]}&max_lat=${PARCEL_BOX[3]}&page_size=1`
    const first = await json(await api(`/parcels/within?bbox=${PARCEL_BOX.join(',')}&limit=1`))
    expect(first.next_cursor).toBeDefined()
    const next = await api(`${canonical}&cursor=${first.next_cursor}`)
    expect(next.status).toBe(200)
    expect((await json(next)).parcels[0].id).toBeGreaterThan(first.parcels[0].id)
  })

  it('accepts both spellings with the same value, as numbers or as text', async () => {
    const base = `/parcels/at?latitude=${erf.latitude}&longitude=${erf.longitude}`
    const same = await api(`${base}&lat=${erf.latitude}0&lon=+${erf.longitude}`)
    expect(same.status).toBe(200)
    expect(await same.text()).toBe(await (await api(base)).text())
    const box = `/parcels/within?min_lng=${PARCEL_BOX[0]}&bbox=${PARCEL_BOX.join(',')}`
    expect((await api(box)).status).toBe(200)
  })

  it('leaves a limit that is not a page size alone: page_size is no alias there', async () => {
    // /plots/search-given-coordinates and /jurisdiction/search take no cursor: their limit caps one answer
    const plots = `/plots/search-given-coordinates?latitude=${plotLat}&longitude=${plotLon}&radius=5000`
    const all = await json(await api(plots))
    expect(all.plots.length).toBeGreaterThan(1)
    expect(await json(await api(`${plots}&page_size=1`))).toEqual(all)
    const search = await json(await api('/jurisdiction/search?q=cape'))
    expect(search.matches.length).toBeGreaterThan(1)
    expect(await json(await api('/jurisdiction/search?q=cape&page_size=1'))).toEqual(search)
  })
})

describe('two spellings that differ, and bad values under an alias', () => {
  const fields = async (path: string) => {
    const res = await api(path)
    expect(res.status, path).toBe(400)
    const body = await json(res)
    expect(body.error).toBe('ValidationError')
    return body.details as { field: string; message: string }[]
  }

  it('answers 400 naming both spellings', async () => {
    const d = await fields(`/parcels/at?latitude=${erf.latitude}&longitude=${erf.longitude}&lat=-34.5`)
    expect(d.map((x) => x.field)).toEqual(['latitude', 'lat'])
    expect(d[0].message).toMatch(/lat is another spelling of latitude.*latitude="-34.9045".*lat="-34.5"/)
    const j = await fields('/jurisdiction/at?lat=-26.2&lon=28&longitude=28.1')
    expect(j.map((x) => x.field)).toEqual(['lon', 'longitude'])
    const page = await fields('/encumbrances/within?bbox=17,-34.91,17.01,-34.9&limit=2&page_size=3')
    expect(page.map((x) => x.field)).toEqual(['limit', 'page_size'])
    const r = await fields('/encumbrances/at?latitude=-34.9&longitude=17&radius_m=5&radius=6')
    expect(r.map((x) => x.field)).toEqual(['radius_m', 'radius'])
  })

  it('answers 400 naming bbox and the parameter it differs from', async () => {
    const d = await fields(`/parcels/within?bbox=${PARCEL_BOX.join(',')}&max_lat=-34.9`)
    expect(d.map((x) => x.field)).toEqual(['max_lat', 'bbox'])
  })

  it('answers a malformed bbox with a 400 naming bbox', async () => {
    for (const bad of ['a,b,c,d', '17,-34.9,17.01', '17,-34.91,17.01,-34.9,1', '17,,17.01,-34.9', '0x1,1,2,3', ' ']) {
      const d = await fields(`/parcels/within?bbox=${encodeURIComponent(bad)}`)
      expect(d, bad).toEqual([{ field: 'bbox', message: 'bbox must be four numbers minlon,minlat,maxlon,maxlat' }])
    }
    expect(await fields('/parcels/within?bbox=181,-34.91,182,-34.9')).toEqual([
      { field: 'bbox', message: 'bbox longitudes must be within -180..180 and latitudes within -90..90' },
    ])
    expect(await fields('/encumbrances/heatmap?bbox=17.01,-34.91,17,-34.9')).toEqual([
      { field: 'bbox', message: 'bbox minimums must not be above maximums (minlon,minlat,maxlon,maxlat)' },
    ])
    // the route's own rules on the box, told as bbox: /parcels/within spans at most 0.05°
    const wide = await fields('/parcels/within?bbox=17,-34.95,17.1,-34.9')
    expect(wide.map((x) => x.field)).toEqual(['bbox'])
    expect(wide[0].message).toMatch(/at most 0.05 degrees.*\(sent as bbox\)$/)
  })

  it('names the alias a bad value came under, with the other bad fields', async () => {
    const d = await fields('/plots/search-given-coordinates?lat=north&lon=25&radius_m=0&limit=0')
    expect(d.map((x) => x.field).sort()).toEqual(['lat', 'limit', 'radius_m'])
    expect(d.find((x) => x.field === 'lat')!.message).toBe('latitude must be a number (sent as lat)')
  })
})

describe('the aliases in the OpenAPI document', () => {
  it('lists each alias as an optional parameter marked x-alias-of, the canonical names unchanged', async () => {
    const doc = await json(await t.get('/api/v1/openapi.json'))
    const params = (path: string) =>
      Object.fromEntries(
        (doc.paths[`/api/v1${path}`].get.parameters as { name: string; required?: boolean; schema: any }[])
          .filter((p) => p.name !== 'format')
          .map((p) => [p.name, p]),
      )
    const at = params('/parcels/at')
    expect(at.latitude.required).toBe(true)
    expect(at.lat.required).toBe(false)
    expect(at.lat.schema['x-alias-of']).toBe('latitude')
    const within = params('/parcels/within')
    expect(within.bbox.schema['x-alias-of']).toEqual(['min_lng', 'min_lat', 'max_lng', 'max_lat'])
    expect(within.limit.schema['x-alias-of']).toBe('page_size')
    expect(params('/jurisdiction/at').latitude.schema['x-alias-of']).toBe('lat')
    expect(params('/encumbrances/at').radius.schema['x-alias-of']).toBe('radius_m')
    expect(params('/encumbrances/within').page_size.schema['x-alias-of']).toBe('limit')
    // no alias where the idea is absent, or where limit is not a page size
    expect(params('/plots/search-given-coordinates').page_size).toBeUndefined()
    expect(params('/jurisdiction/search').page_size).toBeUndefined()
    expect(params('/encumbrances/within').min_lat).toBeUndefined()
  })
})
