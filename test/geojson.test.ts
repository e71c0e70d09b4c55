/**
 * GeoJSON output end to end (docs/api.md "GeoJSON output"): every route that answers it, over the
 * fixture dataset, checked against RFC 7946 and against the JSON form of the same request.
 * A little over 400 lines: the RFC 7946 checks and the table of every covered route stay in one
 * file, so that every route is checked the same way.
 */
import { brotliDecompressSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { FARM_LPI, POINTS } from './fixtures/parcel-fixtures.js'
import { RADIUS_CENTRE } from './fixtures/plot-fixtures.js'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const api = (path: string, headers: Record<string, string> = {}) => t.get(`/api/v1${path}`, key, headers)
const withFormat = (path: string, format: string) => `${path}${path.includes('?') ? '&' : '?'}format=${format}`

type Position = [number, number]
type Json = Record<string, any>

/** Every position of a geometry. */
function positions(g: Json): Position[] {
  const out: Position[] = []
  const walk = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === 'number') out.push(c as Position)
    else if (Array.isArray(c)) for (const x of c) walk(x)
  }
  walk(g.coordinates)
  return out
}

function bboxOf(g: Json): [number, number, number, number] {
  const ps = positions(g)
  return [
    Math.min(...ps.map((p) => p[0])),
    Math.min(...ps.map((p) => p[1])),
    Math.max(...ps.map((p) => p[0])),
    Math.max(...ps.map((p) => p[1])),
  ]
}

/** Twice the signed area of a ring (shoelace): positive when counter-clockwise. */
function signedArea(ring: Position[]): number {
  let a = 0
  for (let i = 0; i + 1 < ring.length; i++) a += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
  return a
}

/** RFC 7946 §3.1.6: linear rings closed, at least 4 positions, exterior CCW and holes CW. */
function checkPolygon(rings: Position[][], where: string): void {
  expect(rings.length, where).toBeGreaterThan(0)
  rings.forEach((ring, k) => {
    expect(ring.length, where).toBeGreaterThanOrEqual(4)
    expect(ring[ring.length - 1], `${where}: ring ${k} closed`).toEqual(ring[0])
    if (k === 0) expect(signedArea(ring), `${where}: exterior counter-clockwise`).toBeGreaterThan(0)
    else expect(signedArea(ring), `${where}: hole clockwise`).toBeLessThan(0)
  })
}

/** RFC 7946 §3.1: a geometry object of a known type, positions [lon, lat] in southern Africa. */
function checkGeometry(g: Json, where: string): void {
  expect(Object.keys(g).sort(), where).toEqual(['coordinates', 'type'])
  for (const [lon, lat] of positions(g)) {
    // longitude first: every position of the dataset lies at 10..40 E, 15..40 S
    expect(lon, where).toBeGreaterThan(10)
    expect(lon, where).toBeLessThan(40)
    expect(lat, where).toBeGreaterThan(-40)
    expect(lat, where).toBeLessThan(-15)
  }
  switch (g.type) {
    case 'Point':
      expect(g.coordinates).toHaveLength(2)
      break
    case 'LineString':
      expect(g.coordinates.length, where).toBeGreaterThanOrEqual(2)
      break
    case 'MultiLineString':
      for (const l of g.coordinates) expect(l.length, where).toBeGreaterThanOrEqual(2)
      break
    case 'Polygon':
      checkPolygon(g.coordinates, where)
      break
    case 'MultiPolygon':
      for (const p of g.coordinates) checkPolygon(p, where)
      break
    default:
      throw new Error(`${where}: unexpected geometry type ${g.type}`)
  }
}

/** RFC 7946 §3.2–3.3: a FeatureCollection of Features with geometry (or null), properties and an id. */
function checkCollection(fc: Json, where: string): void {
  expect(fc.type, where).toBe('FeatureCollection')
  expect(Array.isArray(fc.features), where).toBe(true)
  expect(Object.keys(fc).slice(0, 2), where).toEqual(['type', 'features'])
  for (const k of ['crs', 'geometry', 'properties', 'coordinates']) expect(fc, where).not.toHaveProperty(k)
  fc.features.forEach((f: Json, i: number) => {
    const at = `${where} feature ${i}`
    expect(f.type, at).toBe('Feature')
    expect(f, at).toHaveProperty('geometry')
    expect(f.properties !== null && typeof f.properties === 'object', at).toBe(true)
    expect(['string', 'number'], at).toContain(typeof f.id)
    if (f.geometry !== null) checkGeometry(f.geometry, at)
  })
}

/** Positions within a box (degrees, with a margin for the 7-decimal rounding). */
function within(g: Json, [minX, minY, maxX, maxY]: number[], margin = 1e-7): boolean {
  return positions(g).every(
    ([x, y]) => x >= minX - margin && x <= maxX + margin && y >= minY - margin && y <= maxY + margin,
  )
}

const meets = (a: number[], b: number[]) => a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]

interface Case {
  path: string
  /** the list of the JSON envelope */
  list: string
  /** the Feature id of a JSON record */
  id: (r: Json) => string | number
  /** the Feature's properties for a JSON record */
  properties?: (r: Json) => Json
  /** checks of one Feature's geometry against its JSON record */
  geometry: (g: Json | null, r: Json, f: Json) => void
  /** at least this many records (so the case proves something) */
  min?: number
}

const omit = (r: Json, ...keys: string[]) => Object.fromEntries(Object.entries(r).filter(([k]) => !keys.includes(k)))
const plotCase = (path: string): Case => ({
  path,
  list: 'plots',
  id: (r) => r.id,
  // the plot's position is its geometry, not repeated in its properties
  properties: (r) => omit(r, 'latitude', 'longitude'),
  geometry: (g, r) => expect(g).toEqual({ type: 'Point', coordinates: [r.longitude, r.latitude] }),
})
const encumbranceCase = (path: string, box?: number[]): Case => ({
  path,
  list: 'encumbrances',
  id: (r) => r.encumbrance_uid,
  properties: (r) => omit(r, 'geometry'),
  geometry: (g, r) => {
    expect(g).not.toBeNull()
    if (r.geometry) expect(g).toEqual(r.geometry)
    if (box) expect(meets(bboxOf(g!), box)).toBe(true)
  },
})
/** A boundary: drawn inside the box of its record (simplification only drops vertices). */
const boundaryGeometry = (g: Json | null, r: Json, f: Json) => {
  expect(g).not.toBeNull()
  expect(within(g!, r.bbox)).toBe(true)
  if (f.simplified_m !== undefined) expect(Math.log2(f.simplified_m) % 1).toBe(0)
}

const PARCEL_BOX = [17.0005, -34.9095, 17.0045, -34.9025]
const ENC_BOX = [17.0, -34.91, 17.01, -34.9]
const CASES: Case[] = [
  plotCase(`/plots/search-given-coordinates?latitude=${RADIUS_CENTRE[1]}&longitude=${RADIUS_CENTRE[0]}&radius=1000`),
  plotCase(`/plots/reverse?latitude=${RADIUS_CENTRE[1]}&longitude=${RADIUS_CENTRE[0]}`),
  plotCase('/plots/990001'),
  {
    path: `/parcels/at?latitude=${POINTS.inErf1.latitude}&longitude=${POINTS.inErf1.longitude}`,
    list: 'parcels',
    id: (r) => r.lpi,
    min: 3,
    geometry: (g, r) => {
      expect(g!.type).toBe('MultiPolygon')
      // the boundary holds the point asked and the record's label point
      const [x0, y0, x1, y1] = bboxOf(g!)
      for (const p of [POINTS.inErf1, r.label_point]) {
        expect(p.longitude >= x0 && p.longitude <= x1 && p.latitude >= y0 && p.latitude <= y1).toBe(true)
      }
    },
  },
  {
    path: `/parcels/within?min_lat=${PARCEL_BOX[1]}&min_lng=${PARCEL_BOX[0]}&max_lat=${PARCEL_BOX[3]}&max_lng=${PARCEL_BOX[2]}&page_size=2`,
    list: 'parcels',
    id: (r) => r.lpi,
    min: 2,
    geometry: (g) => expect(meets(bboxOf(g!), PARCEL_BOX)).toBe(true),
  },
  encumbranceCase('/encumbrances/at?latitude=-34.9048&longitude=17.00233&radius_m=50'),
  encumbranceCase(`/encumbrances/within?bbox=${ENC_BOX.join(',')}&limit=2`, ENC_BOX),
  encumbranceCase(`/encumbrances/search?bbox=${ENC_BOX.join(',')}`, ENC_BOX),
  {
    path: '/jurisdiction/boundaries/local_municipality?province=GP&limit=2',
    list: 'boundaries',
    id: (r) => `${r.boundary_type}/${r.code}`,
    min: 2,
    geometry: boundaryGeometry,
  },
  {
    path: '/jurisdiction/boundaries/district_municipality/DC48/children',
    list: 'children',
    id: (r) => `${r.boundary_type}/${r.code}`,
    min: 2,
    geometry: boundaryGeometry,
  },
  {
    // the 2016 wards were published without geometry
    path: '/jurisdiction/boundaries/ward?municipality=JHB&as_at=2019-01-01&limit=1',
    list: 'boundaries',
    id: (r) => `${r.boundary_type}/${r.code}`,
    geometry: (g, r) => {
      expect(r.has_geometry).toBe(false)
      expect(g).toBeNull()
    },
  },
]

describe('GeoJSON answers: RFC 7946, the same records as the JSON form', () => {
  it.each(CASES.map((c) => [c.path, c] as const))('%s', async (_, c) => {
    const plain = await api(c.path)
    expect(plain.status).toBe(200)
    expect(plain.headers.get('Content-Type')).toBe('application/json')
    const body = await json(plain)
    const records: Json[] = body[c.list]
    expect(records.length).toBeGreaterThanOrEqual(c.min ?? 1)

    const res = await api(withFormat(c.path, 'geojson'))
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toBe('application/geo+json')
    // Accept-Encoding too for an answer large enough to compress
    expect(res.headers.get('Vary')).toMatch(/^X-API-KEY, Accept(, Accept-Encoding)?$/)
    const fc = await json(res)
    checkCollection(fc, c.path)
    // the same records, in the same order
    expect(fc.features.map((f: Json) => f.id)).toEqual(records.map(c.id))
    fc.features.forEach((f: Json, i: number) => {
      expect(f.properties).toEqual((c.properties ?? ((r) => r))(records[i]))
      c.geometry(f.geometry, records[i], f)
    })
    // every other envelope field is a foreign member, in the envelope's order
    const envelope = omit(body, c.list)
    expect(Object.keys(fc).slice(2)).toEqual(Object.keys(envelope))
    expect(omit(fc, 'type', 'features')).toEqual(envelope)
  })

  it('carries the envelope: dataset_version, and the cursor of a paged list that pages on', async () => {
    const page = await json(await api(withFormat(CASES[4].path, 'geojson')))
    expect(page.dataset_version).toMatch(/^csg-/)
    expect(typeof page.next_cursor).toBe('string')
    // the cursor serves the next page in either form
    const next = await json(await api(`${withFormat(CASES[4].path, 'geojson')}&cursor=${page.next_cursor}`))
    const nextJson = await json(await api(`${CASES[4].path}&cursor=${page.next_cursor}`))
    expect(next.features.map((f: Json) => f.id)).toEqual(nextJson.parcels.map((p: Json) => p.lpi))
    const enc = await json(await api(withFormat(CASES[6].path, 'geojson')))
    expect(enc.next_cursor).toBeDefined()
    expect(enc).toMatchObject({ count: 2, limit: 2 })
    expect(enc.as_of).toBeDefined()
  })

  it('gives /parcels/at every version of an LPI with its own boundary and the LPI as id', async () => {
    const fc = await json(await api(withFormat(CASES[3].path, 'geojson')))
    expect(fc.features.at(-1).id).toBe(FARM_LPI)
    expect(fc.features.at(-1).properties.parcel_type).toBe('PARENT_FARM')
    // the farm is larger than the erf it holds
    const [a, b] = [bboxOf(fc.features[0].geometry), bboxOf(fc.features.at(-1).geometry)]
    expect(b[0] <= a[0] && b[1] <= a[1] && b[2] >= a[2] && b[3] >= a[3]).toBe(true)
  })

  it('answers one boundary as a collection of one', async () => {
    const path = '/jurisdiction/boundaries/district_municipality/DC48'
    const body = await json(await api(path))
    const fc = await json(await api(withFormat(path, 'geojson')))
    checkCollection(fc, path)
    expect(fc.features).toHaveLength(1)
    expect(fc.features[0].id).toBe('district_municipality/DC48')
    expect(fc.features[0].properties).toEqual(body.boundary)
    boundaryGeometry(fc.features[0].geometry, body.boundary, fc.features[0])
    expect(omit(fc, 'type', 'features')).toEqual(omit(body, 'boundary'))
  })

  it('draws each boundary of the chain at a point, province first, with the notes as a foreign member', async () => {
    const path = '/jurisdiction/at?lat=-26.2041&lon=28.0473'
    const body = await json(await api(path))
    const fc = await json(await api(withFormat(path, 'geojson')))
    checkCollection(fc, path)
    const links = Object.entries(body.jurisdiction).filter(([, l]) => l !== null) as [string, Json][]
    expect(links.length).toBeGreaterThanOrEqual(4)
    expect(fc.features.map((f: Json) => f.id)).toEqual(links.map(([t, l]) => `${t}/${l.code}`))
    expect(fc.features.map((f: Json) => f.properties)).toEqual(links.map(([t, l]) => ({ boundary_type: t, ...l })))
    for (const f of fc.features) {
      expect(f.geometry, f.id).not.toBeNull()
      // a drawing at most about a thousandth of the boundary's extent off: its box holds the point
      const [x0, y0, x1, y1] = bboxOf(f.geometry)
      const slack = (f.simplified_m ?? 0) / 90_000
      expect(28.0473 >= x0 - slack && 28.0473 <= x1 + slack && -26.2041 >= y0 - slack && -26.2041 <= y1 + slack).toBe(
        true,
      )
    }
    // the province is drawn simplified, and stays bounded
    const province = fc.features[0]
    expect(province.id).toBe('province/GP')
    expect(province.simplified_m).toBeGreaterThan(1)
    expect(positions(province.geometry).length).toBeLessThan(20_000)
    expect(omit(fc, 'type', 'features')).toEqual(omit(body, 'jurisdiction'))
    expect(fc.notes).toEqual(body.notes)
  })
})

describe('choosing the form', () => {
  const path = `/parcels/at?latitude=${POINTS.inErf1.latitude}&longitude=${POINTS.inErf1.longitude}`
  const typeOf = async (p: string, headers: Record<string, string> = {}) => {
    const res = await api(p, headers)
    expect(res.status, `${p} ${JSON.stringify(headers)}`).toBe(200)
    return res.headers.get('Content-Type')
  }

  it('answers GeoJSON when Accept ranks application/geo+json above JSON, and format is absent', async () => {
    expect(await typeOf(path, { Accept: 'application/geo+json' })).toBe('application/geo+json')
    expect(await typeOf(path, { Accept: 'application/geo+json, application/json;q=0.9' })).toBe('application/geo+json')
    expect(await typeOf(path, { Accept: 'application/json' })).toBe('application/json')
    expect(await typeOf(path, { Accept: '*/*' })).toBe('application/json')
    // a tie answers the default
    expect(await typeOf(path, { Accept: 'application/geo+json, application/json' })).toBe('application/json')
    expect(await typeOf(path)).toBe('application/json')
  })

  it('lets format win over Accept, in any case', async () => {
    expect(await typeOf(withFormat(path, 'json'), { Accept: 'application/geo+json' })).toBe('application/json')
    expect(await typeOf(withFormat(path, 'geojson'), { Accept: 'application/json' })).toBe('application/geo+json')
    expect(await typeOf(withFormat(path, 'GeoJSON'))).toBe('application/geo+json')
    expect(await typeOf(withFormat(path, 'JSON'))).toBe('application/json')
  })

  it('gives the same GeoJSON by Accept as by format, and the same JSON with format=json as without', async () => {
    const byAccept = await (await api(path, { Accept: 'application/geo+json' })).text()
    expect(byAccept).toBe(await (await api(withFormat(path, 'geojson'))).text())
    expect(await (await api(withFormat(path, 'json'))).text()).toBe(await (await api(path)).text())
  })

  it('refuses another format with a 400 naming the accepted values, with the other bad fields', async () => {
    for (const bad of ['xml', 'wkt', '', 'geo%2Bjson']) {
      const res = await api(withFormat(path, bad), { Accept: 'application/geo+json' })
      expect(res.status, bad).toBe(400)
      expect(res.headers.get('Content-Type')).toBe('application/json')
      const body = await json(res)
      expect(body.error).toBe('ValidationError')
      expect(body.details).toEqual([
        { field: 'format', message: 'format must be one of json, geojson (case-insensitive)' },
      ])
    }
    const both = await json(await api('/plots/reverse?latitude=x&longitude=25&format=kml'))
    expect(both.details.map((d: Json) => d.field).sort()).toEqual(['format', 'latitude'])
  })

  it('keeps errors in the JSON error envelope when GeoJSON was asked', async () => {
    const far = `/parcels/at?latitude=${POINTS.farSouth.latitude}&longitude=${POINTS.farSouth.longitude}`
    for (const [p, headers] of [
      [withFormat(far, 'geojson'), {}],
      [far, { Accept: 'application/geo+json' }],
    ] as const) {
      const res = await api(p, headers)
      expect(res.status).toBe(404)
      expect(res.headers.get('Content-Type')).toBe('application/json')
      expect((await json(res)).error).toBe('NoParcelAtPoint')
    }
    const sea = await api('/jurisdiction/at?lat=-40&lon=10&format=geojson')
    expect(sea.status).toBe(404)
    expect(sea.headers.get('Content-Type')).toBe('application/json')
    const unknown = await api('/jurisdiction/boundaries/province/ZZ?format=geojson')
    expect((await json(unknown)).error).toBe('BoundaryNotFound')
    const noKey = await t.get(`/api/v1${withFormat(path, 'geojson')}`, undefined, { Accept: 'application/geo+json' })
    expect(noKey.status).toBe(401)
    expect(noKey.headers.get('Content-Type')).toBe('application/json')
  })

  it('leaves routes without GeoJSON as they are', async () => {
    const res = await api(`/parcels/${FARM_LPI}?format=geojson`, { Accept: 'application/geo+json' })
    expect(res.status).toBe(200)
    expect(res.headers.get('Content-Type')).toBe('application/json')
    expect(res.headers.get('Vary')).toBe('X-API-KEY, Accept-Encoding')
  })
})

describe('caching and compression of the GeoJSON form', () => {
  const path = '/jurisdiction/boundaries/local_municipality?province=GP&limit=2'
  const GEO = { Accept: 'application/geo+json' }

  it('tags the two forms of one request apart, and answers 304 for each', async () => {
    const plain = await api(path)
    const geo = await api(path, GEO)
    const byFormat = await api(withFormat(path, 'geojson'))
    const tags = [plain, geo, byFormat].map((r) => r.headers.get('ETag'))
    for (const tag of tags) expect(tag).toMatch(/^"[0-9a-f]{16}"$/)
    expect(new Set(tags).size).toBe(3)
    // the JSON form keeps one tag, whatever Accept says when it does not choose GeoJSON
    for (const accept of ['application/json', '*/*', 'application/geo+json, application/json'])
      expect((await api(path, { Accept: accept })).headers.get('ETag'), accept).toBe(tags[0])
    expect(geo.headers.get('Cache-Control')).toBe('private, max-age=60')

    const again = await api(path, { ...GEO, 'If-None-Match': tags[1]! })
    expect(again.status).toBe(304)
    expect(again.headers.get('ETag')).toBe(tags[1])
    // the 304's Vary is its 200's (RFC 9110 15.4.5)
    expect(again.headers.get('Vary')).toBe(geo.headers.get('Vary'))
    expect(again.headers.get('Vary')).toBe('X-API-KEY, Accept, Accept-Encoding')
    expect((await api(withFormat(path, 'geojson'), { 'If-None-Match': tags[2]! })).status).toBe(304)
    // a tag of one form never answers 304 for the other
    const other = await api(path, { 'If-None-Match': tags[1]! })
    expect(other.status).toBe(200)
    expect(other.headers.get('Content-Type')).toBe('application/json')
    expect((await api(path, { ...GEO, 'If-None-Match': tags[0]! })).status).toBe(200)
  })

  it('compresses a large GeoJSON answer, with its own tag per coding', async () => {
    const identity = Buffer.from(await (await api(path, GEO)).arrayBuffer())
    expect(identity.byteLength).toBeGreaterThan(1024)
    const res = await api(path, { ...GEO, 'Accept-Encoding': 'br' })
    expect(res.headers.get('Content-Encoding')).toBe('br')
    expect(res.headers.get('Content-Type')).toBe('application/geo+json')
    expect(res.headers.get('Vary')).toBe('X-API-KEY, Accept, Accept-Encoding')
    expect(res.headers.get('ETag')).toMatch(/-br"$/)
    expect(brotliDecompressSync(Buffer.from(await res.arrayBuffer())).equals(identity)).toBe(true)
    const tag = res.headers.get('ETag')!
    expect((await api(path, { ...GEO, 'Accept-Encoding': 'br', 'If-None-Match': tag })).status).toBe(304)
  })

  it('answers HEAD with the GeoJSON headers and length', async () => {
    const get = await api(path, GEO)
    const head = await t.app.request(`/api/v1${path}`, { method: 'HEAD', headers: { 'X-API-KEY': key, ...GEO } })
    expect(head.status).toBe(200)
    expect(head.headers.get('Content-Type')).toBe('application/geo+json')
    expect(head.headers.get('ETag')).toBe(get.headers.get('ETag'))
    expect(Number(head.headers.get('Content-Length'))).toBe((await get.arrayBuffer()).byteLength)
  })
})
