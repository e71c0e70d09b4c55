import { VectorTile } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import { inject } from 'vitest'
import { describe, expect, it } from 'vitest'
import { johannesburgDate } from '../src/auth/dates.js'
import { openDataset } from '../src/data/open-dataset.js'
import { createJurisdictionQueries } from '../src/features/jurisdiction/queries.js'
import { tileAt } from '../src/geo/tiles.js'
import { FARM_LPI } from './fixtures/parcel-fixtures.js'
import { STRADDLING_FARM_LABEL, STRADDLING_FARM_LPI } from './fixtures/jurisdiction-fixtures.js'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const get = (path: string, k = key, headers: Record<string, string> = {}) =>
  t.get(`/api/v1/jurisdiction${path}`, k, headers)
const at = (lat: number, lon: number, extra = '') => get(`/at?lat=${lat}&lon=${lon}${extra}`)
const post = (body: unknown, k = key) =>
  t.app.request('/api/v1/jurisdiction/batch', {
    method: 'POST',
    headers: { 'X-API-KEY': k, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
const fields = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field).sort()

// well-known places (central coordinates of each city)
const JOHANNESBURG = { lat: -26.2041, lon: 28.0473 }
const CAPE_TOWN = { lat: -33.9249, lon: 18.4241 }
const DURBAN = { lat: -29.8587, lon: 31.0218 }
const BLOEMFONTEIN = { lat: -29.0852, lon: 26.1596 }
const RURAL_NC = { lat: -30.5, lon: 22.0 } // Karoo, Kareeberg local municipality
/** In Cape Town, ward 19100058 of the 2011 delimitation and 19100057 of the 2020 one. */
const WARD_MOVED = { lat: -33.95, lon: 18.48 }

describe('GET /jurisdiction/at: real boundaries', () => {
  it.each([
    ['Johannesburg', JOHANNESBURG, 'GP', 'JHB', 'City of Johannesburg'],
    ['Cape Town', CAPE_TOWN, 'WC', 'CPT', 'City of Cape Town'],
    ['Durban', DURBAN, 'KZ', 'ETH', 'Ethekwini'],
    ['Bloemfontein', BLOEMFONTEIN, 'FS', 'MAN', 'Mangaung'],
  ])(
    '%s resolves to its real province and metro, with the metro note',
    async (_name, p, province, metro, metroName) => {
      const res = await at(p.lat, p.lon)
      expect(res.status).toBe(200)
      const body = await json(res)
      expect(body.jurisdiction.province.code).toBe(province)
      expect(body.jurisdiction.local_municipality).toMatchObject({
        code: metro,
        name: metroName,
        category: 'A',
        vintage: '2018 demarcation',
        effective_from: '2016-08-03',
      })
      expect(body.jurisdiction.district_municipality).toBeNull()
      expect(
        body.notes.some(
          (n: string) => n.includes('metropolitan municipality') && n.includes('no district municipality'),
        ),
      ).toBe(true)
      // the ward comes from the 2020 delimitation and belongs to the same metro (parent chain from codes)
      expect(body.jurisdiction.ward).toMatchObject({ vintage: '2020 delimitation', effective_from: '2021-11-01' })
      expect(body.jurisdiction.ward.name).toContain(metroName)
      expect(body).toMatchObject({
        as_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        dataset_version: expect.stringMatching(/^mdb-/),
        as_of: expect.any(String),
        message: expect.any(String),
      })
      expect(Object.keys(body.jurisdiction)).toEqual([
        'province',
        'district_municipality',
        'local_municipality',
        'ward',
        'registration_division',
        'deeds_office',
        'township',
      ])
    },
  )

  it('a rural Northern Cape point gets a category B local municipality inside its category C district', async () => {
    const body = await json(await at(RURAL_NC.lat, RURAL_NC.lon))
    expect(body.jurisdiction.province).toMatchObject({ code: 'NC', name: 'NORTHERN CAPE' })
    expect(body.jurisdiction.local_municipality).toMatchObject({ code: 'NC074', name: 'Kareeberg', category: 'B' })
    expect(body.jurisdiction.district_municipality).toMatchObject({ code: 'DC7', category: 'C' })
    expect(body.jurisdiction.ward.code).toMatch(/^307040\d\d$/)
    expect(body.notes.some((n: string) => n.includes('metropolitan'))).toBe(false)
  })

  it('the generated register answers the registration division (category ADMIN) and Deeds Office', async () => {
    const body = await json(await at(JOHANNESBURG.lat, JOHANNESBURG.lon))
    expect(body.jurisdiction.registration_division).toMatchObject({ category: 'ADMIN', vintage: 'cadastral register' })
    expect(body.jurisdiction.registration_division.effective_from).toBeUndefined()
    expect(body.jurisdiction.deeds_office).toMatchObject({ vintage: 'cadastral register' })
  })

  it('a Deeds Office is null with a note outside the published areas (FS, GP and NC only)', async () => {
    const body = await json(await at(DURBAN.lat, DURBAN.lon))
    expect(body.jurisdiction.deeds_office).toBeNull()
    expect(body.notes.some((n: string) => n.includes('Deeds Office') && n.includes('FS, GP, NC only'))).toBe(true)
  })

  it('a ward that differs between the 2011 and 2020 sets answers by as_at', async () => {
    const now = await json(await at(WARD_MOVED.lat, WARD_MOVED.lon))
    const then = await json(await at(WARD_MOVED.lat, WARD_MOVED.lon, '&as_at=2012-06-01'))
    expect(now.jurisdiction.ward).toMatchObject({ code: '19100057', vintage: '2020 delimitation' })
    expect(then.jurisdiction.ward).toMatchObject({
      code: '19100058',
      vintage: '2011 delimitation',
      effective_from: '2011-05-18',
    })
    expect(then.jurisdiction.local_municipality).toMatchObject({ code: 'CPT', vintage: '2011 demarcation' })
    expect(then.as_at).toBe('2012-06-01')
  })

  it('between the 2016 and 2021 elections the ward is null with a note (the 2016 set has no geometry)', async () => {
    const body = await json(await at(CAPE_TOWN.lat, CAPE_TOWN.lon, '&as_at=2019-06-01'))
    expect(body.jurisdiction.ward).toBeNull()
    expect(body.jurisdiction.local_municipality.code).toBe('CPT')
    expect(
      body.notes.some((n: string) => n.includes('2016 delimitation') && n.includes('without boundary geometry')),
    ).toBe(true)
  })

  it('effective_from is inclusive and effective_to exclusive', async () => {
    const first = await json(await at(CAPE_TOWN.lat, CAPE_TOWN.lon, '&as_at=2016-08-03'))
    expect(first.jurisdiction.local_municipality.vintage).toBe('2018 demarcation')
    const last = await json(await at(CAPE_TOWN.lat, CAPE_TOWN.lon, '&as_at=2016-08-02'))
    expect(last.jurisdiction.local_municipality.vintage).toBe('2011 demarcation')
    const wards = await json(await at(CAPE_TOWN.lat, CAPE_TOWN.lon, '&as_at=2021-11-01'))
    expect(wards.jurisdiction.ward.vintage).toBe('2020 delimitation')
  })

  it('an as_at before the earliest set answers an empty chain with a note', async () => {
    const res = await at(JOHANNESBURG.lat, JOHANNESBURG.lon, '&as_at=2010-01-01')
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(Object.values(body.jurisdiction).every((v) => v === null)).toBe(true)
    expect(body.notes[0]).toContain('2011-05-18')
  })

  it('the same coordinate always gives the same chain, a shared vertex taking the lowest code', async () => {
    const geo = await json(await get('/boundaries/ward/19100057/geometry'))
    const [x, y] = geo.geometry.coordinates[0][0][3]
    const a = await json(await at(y, x))
    const b = await json(await at(y, x))
    expect(a.jurisdiction).toEqual(b.jurisdiction)
    expect(a.jurisdiction.ward.code <= '19100057').toBe(true)
  })

  it('404 NoJurisdictionAtPoint with the nearest boundary outside the country', async () => {
    const res = await at(-20, 20)
    expect(res.status).toBe(404)
    const body = await json(res)
    expect(body.error).toBe('NoJurisdictionAtPoint')
    expect(body.details.nearest).toMatchObject({ boundary_type: 'province', code: 'NC' })
    expect(body.details.nearest.distance_meters).toBeGreaterThan(100_000)
  })

  it('400 naming every bad field: missing lat, missing lon, impossible dates', async () => {
    const missing = await json(await get('/at'))
    expect(missing.error).toBe('ValidationError')
    expect(fields(missing)).toEqual(['lat', 'lon'])
    const bad = await get('/at?lat=-91&lon=28&as_at=2016-02-30')
    expect(bad.status).toBe(400)
    expect(fields(await json(bad))).toEqual(['as_at', 'lat'])
    expect((await get('/at?lat=abc&lon=28')).status).toBe(400)
  })
})

describe('GET /jurisdiction/at: the answer written from cached bytes', () => {
  it('is byte for byte the JSON text of the resolved chain, on several dates, on first and repeated calls', async () => {
    const ds = openDataset(inject('datasetDir'))
    try {
      const s = createJurisdictionQueries(ds)
      let seed = 11
      const rnd = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32
      const pts = [JOHANNESBURG, CAPE_TOWN, DURBAN, BLOEMFONTEIN, RURAL_NC, WARD_MOVED]
      for (let i = 0; i < 60; i++) pts.push({ lat: -35 + rnd() * 14, lon: 16 + rnd() * 17 })
      const today = johannesburgDate(new Date())
      let compared = 0
      let before = 0
      for (const asAt of [undefined, '2019-01-01', '2012-06-01', '2001-01-01']) {
        const d = asAt ?? today
        for (const p of pts) {
          const r = s.resolve(p.lon, p.lat, d)
          if (!r.found && d >= s.earliest!) continue // 404, covered elsewhere
          const message = r.found ? `Jurisdiction chain on ${d}` : `No boundary in force on ${d} contains the point`
          const expected = JSON.stringify({
            jurisdiction: r.jurisdiction,
            notes: r.notes,
            as_at: d,
            message,
            as_of: s.asOf,
            dataset_version: s.version,
          })
          for (let k = 0; k < 2; k++) {
            const res = await at(p.lat, p.lon, asAt ? `&as_at=${asAt}` : '')
            expect(res.status).toBe(200)
            expect(res.headers.get('content-type')).toBe('application/json')
            expect(await res.text(), `${p.lat},${p.lon} on ${d}`).toBe(expected)
          }
          compared++
          if (!r.found) before++
        }
      }
      // answers with a chain on every date, and empty chains with their note before the earliest set
      expect(compared).toBeGreaterThan(100)
      expect(before).toBeGreaterThan(0)
    } finally {
      ds.close()
    }
  })
})

describe('GET /jurisdiction/parcel/{lpi}', () => {
  it('resolves the label point and names the boundaries the parcel straddles', async () => {
    const res = await get(`/parcel/${STRADDLING_FARM_LPI}`)
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body.lpi).toBe(STRADDLING_FARM_LPI)
    expect(body.label_point).toEqual(STRADDLING_FARM_LABEL)
    expect(body.jurisdiction.local_municipality.code).toBe('CPT')
    const straddle = body.notes.find((n: string) => n.includes('straddles'))
    expect(straddle).toContain('local_municipality CPT')
    expect(straddle).toContain('WC024')
  })

  it('404 ParcelNotFound for an unknown LPI, 400 for a malformed one', async () => {
    expect((await json(await get('/parcel/C01300000000099999900'))).error).toBe('ParcelNotFound')
    const bad = await get('/parcel/NOT-AN-LPI')
    expect(bad.status).toBe(400)
    expect(fields(await json(bad))).toEqual(['lpi'])
  })

  it('a parcel whose label lies outside every boundary is 404 NoJurisdictionAtPoint', async () => {
    // the hand-made farm of the parcel tests lies in the sea south-west of Cape Point
    const res = await get(`/parcel/${FARM_LPI}`)
    expect(res.status).toBe(404)
    expect((await json(res)).error).toBe('NoJurisdictionAtPoint')
  })
})

describe('POST /jurisdiction/batch', () => {
  it('an as_at before every set: each result is the chain and note /at gives (issue #39 item 8)', async () => {
    const body = await json(await post({ points: [{ latitude: -25.75, longitude: 28.19 }], as_at: '1990-01-01' }))
    const at = await json(await get('/at?lat=-25.75&lon=28.19&as_at=1990-01-01'))
    expect(body.results[0]).toEqual({ jurisdiction: at.jurisdiction, notes: at.notes })
    expect(body.found).toBe(0)
  })

  it('answers in input order, null outside the demarcated area, with found and not_found', async () => {
    const res = await post({
      points: [
        { latitude: CAPE_TOWN.lat, longitude: CAPE_TOWN.lon },
        { latitude: -20, longitude: 20 },
        { latitude: DURBAN.lat, longitude: DURBAN.lon },
      ],
    })
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body.results[0].jurisdiction.local_municipality.code).toBe('CPT')
    expect(body.results[1]).toBeNull()
    expect(body.results[2].jurisdiction.local_municipality.code).toBe('ETH')
    expect(body).toMatchObject({
      found: 2,
      not_found: 1,
      as_at: expect.any(String),
      dataset_version: expect.any(String),
      as_of: expect.any(String),
      message: expect.any(String),
    })
    // a batch item is the same chain /at gives
    const single = await json(await at(CAPE_TOWN.lat, CAPE_TOWN.lon))
    expect(body.results[0]).toEqual({ jurisdiction: single.jurisdiction, notes: single.notes })
  })

  it('a large batch (visited in spatial order) answers each point in input order, as /at does, on several dates', async () => {
    // scattered over the country and beyond, repeated points and places out of order
    const pts: { latitude: number; longitude: number }[] = []
    let seed = 7
    const rnd = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32
    for (let i = 0; i < 150; i++) pts.push({ latitude: -35 + rnd() * 14, longitude: 16 + rnd() * 17 })
    for (const p of [JOHANNESBURG, CAPE_TOWN, DURBAN, BLOEMFONTEIN, RURAL_NC, WARD_MOVED, JOHANNESBURG])
      pts.splice(Math.floor(rnd() * pts.length), 0, { latitude: p.lat, longitude: p.lon })
    for (const asAt of [undefined, '2012-06-01', '2019-01-01', '2001-01-01']) {
      const res = await post(asAt ? { points: pts, as_at: asAt } : { points: pts })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/json')
      const text = await res.text()
      const body = JSON.parse(text)
      expect(body.results).toHaveLength(pts.length)
      let found = 0
      for (const [i, p] of pts.entries()) {
        const single = await at(p.latitude, p.longitude, asAt ? `&as_at=${asAt}` : '')
        const one = await json(single)
        if (single.status === 404) expect(body.results[i], `point ${i}`).toBeNull()
        else {
          expect(body.results[i], `point ${i}`).toEqual({ jurisdiction: one.jurisdiction, notes: one.notes })
          if (asAt !== '2001-01-01') found++
        }
      }
      expect(body.found).toBe(found)
      expect(body.not_found).toBe(pts.length - found)
      // the answer is the items joined around the envelope, byte for byte
      const { results, ...rest } = body
      expect(text).toBe(
        `{"results":[${results.map((r: unknown) => JSON.stringify(r)).join(',')}],${JSON.stringify(rest).slice(1)}`,
      )
    }
  })

  it('honours as_at in the body', async () => {
    const body = await json(
      await post({ points: [{ latitude: WARD_MOVED.lat, longitude: WARD_MOVED.lon }], as_at: '2012-06-01' }),
    )
    expect(body.results[0].jurisdiction.ward.code).toBe('19100058')
    expect(body.as_at).toBe('2012-06-01')
  })

  it('400 for 5001 points, non-numeric members, a bad date; 413 for an oversized body', async () => {
    const many = Array.from({ length: 5001 }, () => ({ latitude: -26, longitude: 28 }))
    const tooMany = await post({ points: many })
    expect(tooMany.status).toBe(400)
    expect(fields(await json(tooMany))).toEqual(['points'])
    const bad = await json(await post({ points: [{ latitude: 'x', longitude: 28 }], as_at: '2016-02-30' }))
    expect(fields(bad)).toEqual(['as_at', 'points.0.latitude'])
    const empty = await json(await post({}))
    expect(fields(empty)).toEqual(['points'])
    const huge = await t.app.request('/api/v1/jurisdiction/batch', {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ points: [], pad: 'x'.repeat(3 * 1024 * 1024) }),
    })
    expect(huge.status).toBe(413)
  })
})

describe('boundaries', () => {
  it('lists municipalities of a province by code with an integer cursor', async () => {
    const first = await json(await get('/boundaries/local_municipality?province=GT&limit=2'))
    expect(first.boundaries.map((b: { code: string }) => b.code)).toEqual(['EKU', 'GT421'])
    expect(first).toMatchObject({ total: 9, cursor: 0, limit: 2, next_cursor: 2 })
    expect(first.boundaries[1]).toMatchObject({
      category: 'B',
      province: 'GP',
      parent: { boundary_type: 'district_municipality', code: 'DC42' },
      vintage: '2018 demarcation',
      has_geometry: true,
    })
    const last = await json(await get('/boundaries/local_municipality?province=GP&limit=2&cursor=8'))
    expect(last.boundaries).toHaveLength(1)
    expect(last.next_cursor).toBeUndefined()
  })

  it('filters by municipality and by parent at any level, and by as_at', async () => {
    const jhb = await json(await get('/boundaries/ward?municipality=JHB&limit=1000'))
    expect(jhb.total).toBe(135)
    expect(jhb.boundaries.every((b: { parent: { code: string } }) => b.parent.code === 'JHB')).toBe(true)
    const westRand = await json(await get('/boundaries/ward?parent=DC48&limit=1000'))
    expect(westRand.total).toBeGreaterThan(50)
    const wards2016 = await json(await get('/boundaries/ward?municipality=JHB&as_at=2019-01-01&limit=1'))
    expect(wards2016.total).toBe(135)
    expect(wards2016.boundaries[0]).toMatchObject({ vintage: '2016 delimitation', has_geometry: false })
    const wards2011 = await json(await get('/boundaries/ward?municipality=JHB&as_at=2012-01-01&limit=1'))
    expect(wards2011.total).toBe(130)
  })

  it('detail, children and geometry of one boundary', async () => {
    const dc48 = await json(await get('/boundaries/district_municipality/dc48'))
    expect(dc48.boundary).toMatchObject({
      code: 'DC48',
      name: 'West Rand',
      category: 'C',
      ancestors: [{ boundary_type: 'province', code: 'GP' }],
    })
    expect(dc48.boundary.other_versions).toEqual([
      { set: '2011', vintage: '2011 demarcation', effective_from: '2011-05-18', effective_to: '2016-08-03' },
    ])
    const kids = await json(await get('/boundaries/district_municipality/DC48/children'))
    expect(kids.children.map((k: { code: string }) => k.code)).toEqual(['GT481', 'GT484', 'GT485'])
    const gp = await json(await get('/boundaries/province/GP/children'))
    expect(gp.children.map((k: { code: string }) => k.code).sort()).toEqual(['DC42', 'DC48', 'EKU', 'JHB', 'TSH'])
    const full = await json(await get('/boundaries/local_municipality/JHB/geometry'))
    expect(full.geometry.type).toBe('MultiPolygon')
    const simple = await json(await get('/boundaries/local_municipality/JHB/geometry?simplify=2000'))
    expect(simple.vertices).toBeLessThan(full.vertices)
    expect(simple.simplified_m).toBe(2000)
    const wkt = await json(await get('/boundaries/local_municipality/JHB/geometry?format=wkt'))
    expect(wkt.geometry).toMatch(/^MULTIPOLYGON \(\(\(/)
  })

  it('404 BoundaryNotFound for a code not in force at the date; 400 for an unknown type or bad simplify', async () => {
    // EC103 (Ikwezi) existed in the 2011 demarcation only
    const gone = await get('/boundaries/local_municipality/EC103')
    expect(gone.status).toBe(404)
    const body = await json(gone)
    expect(body.error).toBe('BoundaryNotFound')
    expect(body.message).toContain('2011 demarcation')
    expect((await get('/boundaries/local_municipality/EC103?as_at=2012-01-01')).status).toBe(200)
    expect((await json(await get('/boundaries/ward/99999999'))).error).toBe('BoundaryNotFound')
    const badType = await get('/boundaries/wardz')
    expect(badType.status).toBe(400)
    expect(fields(await json(badType))).toEqual(['boundary_type'])
    const badGeo = await json(await get('/boundaries/province/GP/geometry?simplify=0&format=kml'))
    expect(fields(badGeo)).toEqual(['format', 'simplify'])
    const badList = await json(await get('/boundaries/ward?limit=1001&cursor=-1&province=XX'))
    expect(fields(badList)).toEqual(['cursor', 'limit', 'province'])
  })
})

describe('GET /jurisdiction/search', () => {
  it('before the earliest set finds nothing, the undated register included, as /at (issue #39 item 8)', async () => {
    const before = await json(await get('/search?q=pretoria&as_at=1990-01-01'))
    expect(before.matches).toEqual([])
    expect(before.message).toBe(
      'No boundary set was in force on 1990-01-01: the earliest installed set took force on 2011-05-18',
    )
    const chain = await json(await get('/at?lat=-25.75&lon=28.19&as_at=1990-01-01'))
    expect(Object.values(chain.jurisdiction).every((v) => v === null)).toBe(true)
    // from the earliest set on, the register's Deeds Office is found
    const after = await json(await get('/search?q=pretoria&as_at=2011-05-18'))
    expect(after.matches.map((m: { boundary_type: string }) => m.boundary_type)).toContain('deeds_office')
  })

  it('finds Tshwane from "tshwan" and Nelson Mandela Bay from "mandela bay"', async () => {
    const tsh = await json(await get('/search?q=tshwan&types=local_municipality'))
    expect(tsh.matches[0]).toMatchObject({ code: 'TSH', name: 'City of Tshwane', boundary_type: 'local_municipality' })
    expect(tsh.matches[0].similarity).toBeGreaterThanOrEqual(0.3)
    const nmb = await json(await get('/search?q=mandela%20bay'))
    expect(nmb.matches[0].name).toBe('Nelson Mandela Bay')
    expect(
      nmb.matches.every(
        (m: { similarity: number }, i: number, a: { similarity: number }[]) =>
          i === 0 || a[i - 1].similarity >= m.similarity,
      ),
    ).toBe(true)
  })

  it('an exact code comes first; types, limit and as_at filter', async () => {
    const jhb = await json(await get('/search?q=jhb&types=local_municipality&limit=1'))
    expect(jhb.matches).toHaveLength(1)
    expect(jhb.matches[0]).toMatchObject({ code: 'JHB', similarity: 1 })
    const old = await json(await get('/search?q=ikwezi&as_at=2012-01-01&types=local_municipality'))
    expect(old.matches[0].code).toBe('EC103')
    const now = await json(await get('/search?q=ikwezi&types=local_municipality'))
    expect(now.matches.some((m: { code: string }) => m.code === 'EC103')).toBe(false)
    expect(now.message).toMatch(/No boundary name|match/)
  })

  it('400 for q of 1 or 121 characters and unknown types', async () => {
    expect(fields(await json(await get('/search?q=a')))).toEqual(['q'])
    expect(fields(await json(await get(`/search?q=${'a'.repeat(121)}`)))).toEqual(['q'])
    expect((await get(`/search?q=${'a'.repeat(120)}`)).status).toBe(200)
    const bad = await json(await get('/search?q=cape&types=ward,planet'))
    expect(fields(bad)).toEqual(['types'])
    expect(bad.details[0].message).toContain('planet')
    expect(fields(await json(await get('/search')))).toEqual(['q'])
  })
})

describe('coverage, heatmap and tiles', () => {
  it('coverage lists every type with its sets, vintages, counts and gaps', async () => {
    const body = await json(await get('/coverage'))
    const layer = (t: string) => body.layers.find((l: { boundary_type: string }) => l.boundary_type === t)
    expect(layer('province').in_force).toBe(9)
    expect(layer('district_municipality').in_force).toBe(52)
    expect(layer('local_municipality').in_force).toBe(213)
    expect(layer('ward').in_force).toBe(4468)
    expect(layer('ward').sets.map((s: { vintage: string; count: number }) => [s.vintage, s.count])).toEqual([
      ['2011 delimitation', 4277],
      ['2016 delimitation', 4392],
      ['2020 delimitation', 4468],
    ])
    expect(layer('ward').sets[1].geometry).toBe(false)
    expect(layer('registration_division').in_force).toBe(221)
    expect(layer('deeds_office')).toMatchObject({ in_force: 5, provinces: ['FS', 'GP', 'NC'] })
    expect(layer('suburb')).toMatchObject({ in_force: 74, provinces: ['EC', 'FS', 'NC'] })
    expect(layer('pre1994_municipal')).toMatchObject({ in_force: 452, provinces: ['EC', 'FS', 'NC', 'WC'] })
    expect(body.known_gaps.some((g: string) => g.startsWith('deeds_office: published for FS, GP, NC only'))).toBe(true)
    expect(body.earliest_as_at).toBe('2011-05-18')
  })

  it('heatmap draws the municipal chain at any span and gates wards by scale', async () => {
    const wide = await json(await get('/heatmap?north=-22&south=-35&east=33&west=16&types=province,ward'))
    expect(wide.type).toBe('FeatureCollection')
    expect(
      wide.features.filter((f: { properties: { boundary_type: string } }) => f.properties.boundary_type === 'province'),
    ).toHaveLength(9)
    expect(wide.omitted).toEqual([expect.objectContaining({ boundary_type: 'ward', max_span_degrees: 2 })])
    const close = await json(await get('/heatmap?north=-26.15&south=-26.25&east=28.1&west=28.0&types=ward'))
    expect(close.omitted).toEqual([])
    expect(close.features.length).toBeGreaterThan(3)
    expect(close.features[0]).toMatchObject({
      type: 'Feature',
      properties: { boundary_type: 'ward' },
      geometry: { type: 'MultiPolygon' },
    })
    const bad = await json(await get('/heatmap?north=-30&south=-20&east=28&west=29'))
    expect(fields(bad)).toEqual(['south', 'west'])
  })

  it('tiles: MVT layers per type, 204 when empty, 400 out of range, ETag and 304', async () => {
    const { x, y } = tileAt(JOHANNESBURG.lon, JOHANNESBURG.lat, 9)
    const res = await get(`/tiles/9/${x}/${y}.mvt?layers=local_municipality,ward`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/vnd.mapbox-vector-tile')
    const tile = new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer())))
    expect(Object.keys(tile.layers).sort()).toEqual(['local_municipality', 'ward'])
    const munis = tile.layers.local_municipality
    expect(munis.version).toBe(2)
    expect(munis.extent).toBe(4096)
    const codes = Array.from({ length: munis.length }, (_, i) => munis.feature(i).properties.code)
    expect(codes).toContain('JHB')
    expect(munis.feature(codes.indexOf('JHB')).type).toBe(3)
    // wards appear from z8: at z6 only the municipality layer is drawn
    const z6 = tileAt(JOHANNESBURG.lon, JOHANNESBURG.lat, 6)
    const low = new VectorTile(
      new PbfReader(
        new Uint8Array(await (await get(`/tiles/6/${z6.x}/${z6.y}.mvt?layers=local_municipality,ward`)).arrayBuffer()),
      ),
    )
    expect(Object.keys(low.layers)).toEqual(['local_municipality'])
    const etag = res.headers.get('etag')!
    expect(etag).toContain('mdb-')
    expect(
      (await get(`/tiles/9/${x}/${y}.mvt?layers=local_municipality,ward`, key, { 'If-None-Match': etag })).status,
    ).toBe(304)
    // the South Atlantic: nothing to draw
    const sea = tileAt(0, -40, 9)
    expect((await get(`/tiles/9/${sea.x}/${sea.y}.mvt`)).status).toBe(204)
    const out = await get('/tiles/23/0/0.mvt')
    expect(out.status).toBe(400)
    const range = await json(await get('/tiles/3/8/9.mvt'))
    expect(fields(range)).toEqual(['x', 'y'])
    expect(fields(await json(await get('/tiles/3/1/1.mvt?layers=oceans')))).toEqual(['layers'])
  })
})

describe('access', () => {
  it('403 without the jurisdiction product or for a Botswana-only key; 401 without a key', async () => {
    const plotsOnly = t.issue({ products: ['plots'] }).key
    expect((await json(await get('/at?lat=-26&lon=28', plotsOnly))).error).toBe('ProductNotPermitted')
    const bw = t.issue({ countries: ['BOTSWANA'] }).key
    expect((await json(await get('/at?lat=-26&lon=28', bw))).error).toBe('CountryNotPermitted')
    expect((await get('/at?lat=-26&lon=28', '')).status).toBe(401)
  })

  it('503 JurisdictionDataUnavailable when the boundaries are not installed', async () => {
    const bare = makeTestApp({ datasetDir: inject('plotsOnlyDatasetDir') })
    const k = bare.issue().key
    const res = await bare.get('/api/v1/jurisdiction/at?lat=-26&lon=28', k)
    expect(res.status).toBe(503)
    expect((await json(res)).error).toBe('JurisdictionDataUnavailable')
  })

  it('the OpenAPI document describes every endpoint and the accepted boundary types', async () => {
    const doc = await json(await t.get('/api/v1/openapi.json'))
    for (const p of [
      '/at',
      '/parcel/{lpi}',
      '/batch',
      '/boundaries/{boundary_type}',
      '/boundaries/{boundary_type}/{code}',
      '/boundaries/{boundary_type}/{code}/geometry',
      '/boundaries/{boundary_type}/{code}/children',
      '/search',
      '/coverage',
      '/heatmap',
      '/tiles/{z}/{x}/{y}.mvt',
    ]) {
      const item = doc.paths[`/api/v1/jurisdiction${p}`]
      expect(item?.get ?? item?.post, p).toBeDefined()
    }
    const typeParam = doc.paths['/api/v1/jurisdiction/boundaries/{boundary_type}'].get.parameters.find(
      (x: { name: string }) => x.name === 'boundary_type',
    )
    expect(typeParam.schema.enum).toEqual(
      expect.arrayContaining(['ward', 'registration_division', 'pre1994_municipal']),
    )
  })
})
