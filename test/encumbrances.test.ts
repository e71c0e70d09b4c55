import { VectorTile } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import { describe, expect, inject, it } from 'vitest'
import { tileAt } from '../src/geo/tiles.js'
import { ENC_SG, ENC_UID } from './fixtures/encumbrance-fixtures.js'
import { FARM_LPI, PORTION1_LPI, PORTION2_LPI, erfLpi } from './fixtures/parcel-fixtures.js'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const get = (path: string, k = key, headers: Record<string, string> = {}) =>
  t.get(`/api/v1/encumbrances${path}`, k, headers)
const post = (path: string, body: unknown, k = key) =>
  t.app.request(`/api/v1/encumbrances${path}`, {
    method: 'POST',
    headers: { 'X-API-KEY': k, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
const fields = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field).sort()
type Item = Record<string, any>
const byUid = (items: Item[], uid: number) => items.find((e) => e.encumbrance_uid === uid)

/**
 * Metres per degree on the WGS84 ellipsoid at a latitude (meridian and parallel radii), computed independently of src/.
 */
function metresPerDegree(latDeg: number): { lat: number; lon: number } {
  const a = 6378137
  const e2 = 0.00669437999014
  const phi = (latDeg * Math.PI) / 180
  const w = 1 - e2 * Math.sin(phi) ** 2
  return {
    lat: ((a * (1 - e2)) / w ** 1.5) * (Math.PI / 180),
    lon: (a / Math.sqrt(w)) * Math.cos(phi) * (Math.PI / 180),
  }
}
const m = metresPerDegree(-34.9045)
const ERF_SQM = 0.001 * m.lon * 0.001 * m.lat
const STRIP_HALF_SQM = 0.0005 * m.lon * 0.0002 * m.lat
const near = (actual: number, expected: number, rel = 0.005) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(expected * rel)

describe('GET /encumbrances/parcel/{lpi}: hand-made fixtures', () => {
  it('a strip servitude crossing two erven: a tenth of each, areas and percentages as computed by hand', async () => {
    for (const n of [1, 2]) {
      const res = await get(`/parcel/${erfLpi(n)}`)
      expect(res.status).toBe(200)
      const body = await json(res)
      expect(body.parcel).toMatchObject({ lpi: erfLpi(n), parcel_type: 'ERF', province: 'WC' })
      near(body.parcel.area_sqm, ERF_SQM)
      const strip = byUid(body.encumbrances, ENC_UID.strip)!
      expect(strip).toMatchObject({
        encumbrance_class: 'servitude_area',
        ease_type_normalised: 'right_of_way',
        // as the source gave it, less the trailing padding every reader strips (DBF pads fields)
        ease_type: ' Right of Way',
        sg_number: ENC_SG.strip,
        province: 'WC',
        relationship: 'crosses',
        date_stamp: '1999-04-12',
      })
      near(strip.overlap_sqm, STRIP_HALF_SQM)
      near(strip.overlap_pct_of_parcel, 10, 0.01)
      expect(strip.geometry.type).toBe('Polygon')
      // the clipped half: x from the strip's end to the shared edge
      const xs = strip.geometry.coordinates[0].map((p: number[]) => p[0])
      expect(Math.min(...xs)).toBeCloseTo(n === 1 ? 17.0015 : 17.002, 7)
      expect(Math.max(...xs)).toBeCloseTo(n === 1 ? 17.002 : 17.0025, 7)
      expect(strip.overlap_m).toBeUndefined()
      expect(strip.record_status).toBeUndefined()
      expect(body).toMatchObject({
        dataset_version: expect.any(String),
        as_of: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        message: expect.any(String),
      })
    }
  })

  it('a servitude line along the shared edge touches both erven: overlap_sqm 0, overlap_m the shared length', async () => {
    for (const n of [1, 2]) {
      const edge = byUid((await json(await get(`/parcel/${erfLpi(n)}`))).encumbrances, ENC_UID.edge)!
      expect(edge).toMatchObject({
        encumbrance_class: 'servitude_line',
        ease_type_normalised: 'sewer',
        relationship: 'touches',
        overlap_sqm: 0,
        overlap_pct_of_parcel: 0,
      })
      near(edge.overlap_m, 0.001 * m.lat)
      expect(edge.note).toBeUndefined()
      expect(edge.extent_sqm).toBeUndefined()
    }
  })

  it(
    'inside the portion the same undimensioned line is within it: overlap_sqm null with a note, overlap_m its ' +
      'length',
    async () => {
      const body = await json(await get(`/parcel/${PORTION1_LPI}`))
      const edge = byUid(body.encumbrances, ENC_UID.edge)!
      expect(edge.relationship).toBe('within')
      expect(edge.overlap_sqm).toBeNull()
      expect(edge.note).toMatch(/undimensioned/)
      expect(edge.overlap_pct_of_parcel).toBeUndefined()
      near(edge.overlap_m, 0.001 * m.lat)
      expect(byUid(body.encumbrances, ENC_UID.strip)?.relationship).toBe('within')
    },
  )

  it('a dimensioned line reports the area of its strip inside the parcel; an undimensioned one null', async () => {
    const body = await json(await get(`/parcel/${erfLpi(4)}`))
    const pipe = byUid(body.encumbrances, ENC_UID.pipe)!
    expect(pipe).toMatchObject({ ease_type_normalised: 'pipeline', relationship: 'crosses', width_m: 4 })
    near(pipe.overlap_m, 0.003 * m.lon)
    near(pipe.overlap_sqm, 0.003 * m.lon * 4, 0.01)
    expect(pipe.note).toBeUndefined()
    const drain = byUid(body.encumbrances, ENC_UID.drain)!
    expect(drain).toMatchObject({ ease_type_normalised: 'drainage', relationship: 'crosses', overlap_sqm: null })
    expect(drain.note).toMatch(/undimensioned/)
    near(drain.overlap_m, 0.0025 * m.lon)
    expect(drain.geometry.type).toBe('LineString')
    // an unlisted raw type is served as `other`, never guessed
    expect(byUid(body.encumbrances, ENC_UID.odd)).toMatchObject({
      ease_type: 'WAYLEAVE',
      ease_type_normalised: 'other',
      relationship: 'within',
    })
  })

  it('a mineral right equal to portion 2 contains it, touches portion 1 and is within the farm', async () => {
    const p2 = byUid((await json(await get(`/parcel/${PORTION2_LPI}`))).encumbrances, ENC_UID.mineral)!
    expect(p2).toMatchObject({
      encumbrance_class: 'mineral_right',
      ease_type_normalised: 'mineral',
      relationship: 'contains',
      overlap_pct_of_parcel: 100,
      extent_sqm: 500000,
    })
    const p1 = byUid((await json(await get(`/parcel/${PORTION1_LPI}`))).encumbrances, ENC_UID.mineral)!
    expect(p1).toMatchObject({ relationship: 'touches', overlap_sqm: 0 })
    const farm = byUid((await json(await get(`/parcel/${FARM_LPI}`))).encumbrances, ENC_UID.mineral)!
    expect(farm.relationship).toBe('within')
    near(farm.overlap_pct_of_parcel, 50, 0.01)
  })

  it('a cancelled record is excluded from every intersection', async () => {
    const erf2 = await json(await get(`/parcel/${erfLpi(2)}`))
    expect(byUid(erf2.encumbrances, ENC_UID.cancel)).toBeUndefined()
    const sum = await json(await get(`/summary/parcel/${erfLpi(2)}`))
    expect(sum.counts_by_class).toEqual({ servitude_area: 1, servitude_line: 1 })
    const atPoint = await json(await get('/at?latitude=-34.9041&longitude=17.0028'))
    expect(byUid(atPoint.encumbrances, ENC_UID.cancel)).toBeUndefined()
  })

  it('an empty answer says nothing was found, never that the parcel is unencumbered', async () => {
    const body = await json(await get(`/parcel/${erfLpi(3)}`))
    expect(body.encumbrances).toEqual([])
    expect(body.message).toMatch(/does not mean the property is unencumbered/)
    expect(body.message).not.toMatch(/is unencumbered\b(?! \()/)
  })

  it('404 ParcelNotFound for an unknown LPI and for one whose every version is hidden; 400 for a malformed one', async () => {
    expect((await json(await get('/parcel/C01307770000099900000'))).error).toBe('ParcelNotFound')
    expect((await json(await get(`/parcel/${erfLpi(6)}`))).error).toBe('ParcelNotFound')
    const bad = await get('/parcel/XYZ')
    expect(bad.status).toBe(400)
    expect(fields(await json(bad))).toEqual(['lpi'])
  })
})

describe('GET /encumbrances/summary/parcel/{lpi}', () => {
  it('counts by class and the largest single overlap', async () => {
    const body = await json(await get(`/summary/parcel/${erfLpi(1)}`))
    expect(body).toMatchObject({
      lpi: erfLpi(1),
      province: 'WC',
      has_encumbrances: true,
      counts_by_class: { servitude_area: 1, servitude_line: 1 },
      classes: ['servitude_area', 'servitude_line'],
    })
    near(body.highest_impact_pct, 10, 0.01)
    const none = await json(await get(`/summary/parcel/${erfLpi(3)}`))
    expect(none).toMatchObject({ has_encumbrances: false, counts_by_class: {}, classes: [], highest_impact_pct: 0 })
    expect(none.message).toMatch(/does not mean/)
  })

  it(
    'finds the version of every LPI that ORDER BY (current first, then lowest id) picks, versions and all-hidden ' +
      'LPIs included',
    () => {
      const s = t.data.services.encumbrances!
      const db = t.data.dataset.sqlite('parcels/parcels.sqlite')
      const reference = db.prepare(
        `SELECT id, lpi, parcel_type, province, extent_sqm FROM parcel WHERE lpi = ? AND hidden = 0
       ORDER BY CASE WHEN wstatus IS NULL OR wstatus = 'C' THEN 0 ELSE 1 END, id LIMIT 1`,
      )
      const lpis = db
        .prepare('SELECT lpi FROM parcel GROUP BY lpi ORDER BY count(*) DESC, lpi')
        .pluck()
        .all() as string[]
      const allHidden = db
        .prepare('SELECT count(*) FROM (SELECT lpi FROM parcel GROUP BY lpi HAVING min(hidden) = 1)')
        .pluck()
        .get() as number
      expect(lpis.length).toBeGreaterThan(100)
      expect(allHidden).toBeGreaterThan(0)
      for (const lpi of lpis) expect(s.parcelByLpi(lpi), lpi).toEqual(reference.get(lpi) ?? null)
      // several visible versions (none in this dataset): publishedVersion's own test (src/data)
    },
  )

  it(
    'counts classes from the in-memory class table exactly as SQL does from the rows, for every parcel with ' +
      'overlaps',
    () => {
      const s = t.data.services.encumbrances!
      const db = t.data.dataset.sqlite('encumbrances/encumbrances.sqlite')
      const parcels = db
        .prepare('SELECT DISTINCT parcel_id FROM parcel_overlap ORDER BY parcel_id')
        .pluck()
        .all() as number[]
      expect(parcels.length).toBeGreaterThan(20)
      let classes = 0
      for (const id of parcels) {
        const fast = s.summaryOfParcel(id)
        const bySql = s.summaryOfParcelBySql(id)
        expect(fast, `parcel ${id}`).toEqual(bySql)
        // same key order too: the answer's counts_by_class and classes follow it
        expect(Object.keys(fast.counts)).toEqual(Object.keys(bySql.counts))
        classes += Object.keys(fast.counts).length
      }
      expect(classes).toBeGreaterThan(parcels.length)
    },
  )
})

describe('GET /encumbrances/{encumbrance_uid}', () => {
  it('the strip with the parcels it affects', async () => {
    const body = await json(await get(`/${ENC_UID.strip}`))
    expect(body.encumbrance).toMatchObject({ encumbrance_uid: ENC_UID.strip, encumbrance_class: 'servitude_area' })
    expect(body.encumbrance.geometry.type).toBe('Polygon')
    const lpis = body.affected_parcels.map((p: Item) => p.lpi).sort()
    expect(lpis).toEqual([FARM_LPI, PORTION1_LPI, erfLpi(1), erfLpi(2)].sort())
    near(body.affected_parcels.find((p: Item) => p.lpi === erfLpi(1)).overlap_sqm, STRIP_HALF_SQM)
  })

  it('a cancelled record answers 200 with its record_status and no affected parcels; an unknown uid 404', async () => {
    const body = await json(await get(`/${ENC_UID.cancel}`))
    expect(body.encumbrance.record_status).toBe('CANCELLED')
    expect(body.affected_parcels).toEqual([])
    expect((await json(await get('/999999999'))).error).toBe('EncumbranceNotFound')
    expect(fields(await json(await get('/abc')))).toEqual(['encumbrance_uid'])
  })
})

describe('GET /encumbrances/search', () => {
  it('a cancelled record is found only with record_status=any (or its own status)', async () => {
    expect((await json(await get(`/search?sg_number=${ENC_SG.cancel}`))).encumbrances).toEqual([])
    const any = await json(await get(`/search?sg_number=${ENC_SG.cancel}&record_status=any`))
    expect(any.encumbrances.map((e: Item) => e.encumbrance_uid)).toEqual([ENC_UID.cancel])
    expect(any.encumbrances[0].record_status).toBe('CANCELLED')
    expect(
      (await json(await get(`/search?sg_number=${ENC_SG.cancel}&record_status=cancelled`))).encumbrances,
    ).toHaveLength(1)
  })

  it('sg_number wildcards: prefix, suffix and inner, never an injection', async () => {
    const prefix = await json(await get('/search?sg_number=700*/1999'))
    expect(prefix.encumbrances.map((e: Item) => e.encumbrance_uid).sort()).toEqual([ENC_UID.strip, ENC_UID.edge])
    const suffix = await json(await get('/search?sg_number=*/1888&province=WC'))
    expect(suffix.encumbrances.map((e: Item) => e.encumbrance_uid).sort()).toEqual([ENC_UID.pipe, ENC_UID.drain])
    const inner = await json(await get('/search?sg_number=*00*/19*&encumbrance_class=servitude_line'))
    expect(inner.encumbrances.map((e: Item) => e.encumbrance_uid)).toContain(ENC_UID.edge)
    for (const bad of ["7001/1999' OR '1'='1", '%25', '*', '1*2*3*4*5', '[7]*']) {
      const res = await get(`/search?sg_number=${encodeURIComponent(bad)}`)
      expect(res.status, bad).toBe(400)
      expect(fields(await json(res))).toEqual(['sg_number'])
    }
  })

  it('filters by normalised type, raw type (trimmed, case-insensitive) and class, with cursor pages', async () => {
    const row = await json(await get('/search?ease_type=right%20of%20way&province=WC'))
    expect(row.encumbrances.some((e: Item) => e.encumbrance_uid === ENC_UID.strip)).toBe(true)
    const page1 = await json(await get('/search?ease_type_normalised=unspecified&limit=3'))
    expect(page1.encumbrances).toHaveLength(3)
    expect(
      page1.encumbrances.every((e: Item) => e.ease_type_normalised === 'unspecified' && e.record_status === undefined),
    ).toBe(true)
    const page2 = await json(await get(`/search?ease_type_normalised=unspecified&limit=3&cursor=${page1.next_cursor}`))
    const uids1 = page1.encumbrances.map((e: Item) => e.encumbrance_uid)
    expect(page2.encumbrances.some((e: Item) => uids1.includes(e.encumbrance_uid))).toBe(false)
  })

  it('400 naming every bad field', async () => {
    const res = await get(
      '/search?encumbrance_class=servitude_area,moat&ease_type_normalised=castle&record_status=maybe&limit=0&bbox=1,2,3',
    )
    expect(fields(await json(res))).toEqual([
      'bbox',
      'ease_type_normalised',
      'encumbrance_class',
      'limit',
      'record_status',
    ])
  })
})

describe('GET /encumbrances/at and /within', () => {
  it("at a point inside the strip: the strip, the portion's mineral right is elsewhere", async () => {
    const body = await json(await get('/at?latitude=-34.9045&longitude=17.0018'))
    expect(body.encumbrances.map((e: Item) => e.encumbrance_uid)).toContain(ENC_UID.strip)
    expect(byUid(body.encumbrances, ENC_UID.strip)?.distance_m).toBe(0)
    expect(byUid(body.encumbrances, ENC_UID.mineral)).toBeUndefined()
    // 30 m east of the shared edge: the edge line is within 50 m
    const near50 = await json(await get('/at?latitude=-34.9048&longitude=17.00233&radius_m=50'))
    expect(byUid(near50.encumbrances, ENC_UID.edge)?.distance_m).toBeGreaterThan(25)
  })

  it('at a pole, with the largest radius: an empty answer (the radius stays a bounded box)', async () => {
    for (const q of ['latitude=90&longitude=0', 'latitude=-90&longitude=45', 'latitude=-89.99&longitude=0']) {
      const res = await get(`/at?${q}&radius_m=1000`)
      expect(res.status).toBe(200)
      expect((await json(res)).encumbrances).toEqual([])
    }
  })

  it('within a box: every fixture meeting it, paged by cursor', async () => {
    const all = await json(await get('/within?bbox=17.0,-34.91,17.01,-34.9'))
    const uids = all.encumbrances.map((e: Item) => e.encumbrance_uid)
    for (const u of [ENC_UID.strip, ENC_UID.edge, ENC_UID.pipe, ENC_UID.drain, ENC_UID.mineral, ENC_UID.odd])
      expect(uids).toContain(u)
    expect(uids).not.toContain(ENC_UID.cancel)
    const p1 = await json(await get('/within?bbox=17.0,-34.91,17.01,-34.9&limit=2'))
    expect(p1.encumbrances).toHaveLength(2)
    const p2 = await json(await get(`/within?bbox=17.0,-34.91,17.01,-34.9&limit=2&cursor=${p1.next_cursor}`))
    expect(p2.encumbrances[0].encumbrance_uid).not.toBe(p1.encumbrances[1].encumbrance_uid)
  })

  it('within and search: pages add up to the whole answer, and the last carries no next_cursor (never null)', async () => {
    for (const base of [
      '/within?bbox=17.0,-34.91,17.01,-34.9',
      '/search?province=WC&encumbrance_class=servitude_line',
    ]) {
      const whole = await json(await get(`${base}&limit=1000`))
      expect(whole).not.toHaveProperty('next_cursor')
      const seen: number[] = []
      let path = `${base}&limit=2`
      for (let pages = 0; pages < 500; pages++) {
        const page = await json(await get(path))
        seen.push(...page.encumbrances.map((e: Item) => e.encumbrance_uid))
        if (!('next_cursor' in page)) break
        expect(typeof page.next_cursor).toBe('number')
        path = `${base}&limit=2&cursor=${page.next_cursor}`
      }
      expect(seen).toEqual(whole.encumbrances.map((e: Item) => e.encumbrance_uid))
    }
  })

  it('400 for bad coordinates, radius and boxes', async () => {
    expect(fields(await json(await get('/at?latitude=91&radius_m=5000')))).toEqual([
      'latitude',
      'longitude',
      'radius_m',
    ])
    expect(fields(await json(await get('/within?bbox=18,-34,17,-33')))).toEqual(['bbox'])
    expect(fields(await json(await get('/within?bbox=16,-35,19,-33')))).toEqual(['bbox'])
    expect(fields(await json(await get('/within?bbox=a,b,c,d&encumbrance_class=x')))).toEqual([
      'bbox',
      'encumbrance_class',
    ])
    expect(fields(await json(await get('/within')))).toEqual(['bbox'])
  })
})

describe('POST /encumbrances/intersect', () => {
  const line = (coords: number[][]) => ({ geometry: { type: 'LineString', coordinates: coords } })
  it('a route across the fixture farm: the encumbrances met and the parcels entered with their overlap', async () => {
    const res = await post(
      '/intersect',
      line([
        [16.9995, -34.9045],
        [17.0035, -34.9045],
      ]),
    )
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body.geometry_type).toBe('LineString')
    near(body.length_m, 0.004 * m.lon)
    const strip = byUid(body.encumbrances, ENC_UID.strip)!
    expect(strip.relationship).toBe('crosses')
    near(strip.overlap_m, 0.001 * m.lon)
    expect(byUid(body.encumbrances, ENC_UID.edge)?.relationship).toBe('crosses')
    const parcels = Object.fromEntries(body.parcels.map((p: Item) => [p.lpi, p]))
    near(parcels[erfLpi(1)].overlap_m, 0.001 * m.lon)
    near(parcels[erfLpi(2)].overlap_m, 0.001 * m.lon)
    near(parcels[PORTION1_LPI].overlap_m, 0.0035 * m.lon)
    // parent farms are not listed (docs/decisions.md), nor hidden parcels
    expect(parcels[FARM_LPI]).toBeUndefined()
    expect(parcels[erfLpi(1)]).toMatchObject({ parcel_type: 'ERF', province: 'WC', extent_sqm: expect.any(Number) })
    expect(body).toMatchObject({ encumbrances_truncated: false, parcels_truncated: false })
    // each encumbrance carries its geometry (its record has it), unless include_geometry is false
    expect(strip.geometry.type).toBe('Polygon')
    expect(body.encumbrances.every((e: Item & { geometry?: { type: string } }) => e.geometry?.type)).toBe(true)
    for (const include_geometry of [true, false]) {
      const asked = await json(
        await post('/intersect', {
          ...line([
            [16.9995, -34.9045],
            [17.0035, -34.9045],
          ]),
          include_geometry,
        }),
      )
      const got = byUid(asked.encumbrances, ENC_UID.strip) as (Item & { geometry?: { type: string } }) | undefined
      expect(got?.geometry?.type).toBe(include_geometry ? 'Polygon' : undefined)
      expect(asked.encumbrances.map((e: Item) => e.encumbrance_uid)).toEqual(
        body.encumbrances.map((e: Item) => e.encumbrance_uid),
      )
    }
    expect(
      fields(
        await json(
          await post('/intersect', {
            ...line([
              [16.9995, -34.9045],
              [17.0035, -34.9045],
            ]),
            include_geometry: 'yes',
          }),
        ),
      ),
    ).toEqual(['include_geometry'])
  })

  it('a polygon: overlap_sqm per parcel and the encumbrance relative to the area', async () => {
    const body = await json(
      await post('/intersect', {
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [17.0, -34.91],
              [17.01, -34.91],
              [17.01, -34.9],
              [17.0, -34.9],
              [17.0, -34.91],
            ],
          ],
        },
      }),
    )
    expect(byUid(body.encumbrances, ENC_UID.strip)?.relationship).toBe('within')
    expect(byUid(body.encumbrances, ENC_UID.mineral)?.relationship).toBe('within')
    const p2 = body.parcels.find((p: Item) => p.lpi === PORTION2_LPI)
    near(p2.overlap_sqm, 0.005 * m.lon * 0.01 * m.lat, 0.01)
    expect(byUid(body.encumbrances, ENC_UID.drain)).toMatchObject({
      overlap_sqm: null,
      note: expect.stringMatching(/undimensioned/),
    })
  })

  it('400 naming the problem: too long, too large, self-intersecting, wrong type, NaN, Infinity, out of range', async () => {
    const cases: [unknown, string, RegExp][] = [
      [
        line([
          [17, -34],
          [19.5, -34],
        ]),
        'geometry',
        /km/,
      ],
      [
        {
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [17, -34],
                [18, -34],
                [18, -33],
                [17, -33],
                [17, -34],
              ],
            ],
          },
        },
        'geometry',
        /km²/,
      ],
      [
        line([
          [17, -34],
          [17.01, -34.01],
          [17.01, -34],
          [17, -34.01],
        ]),
        'geometry.coordinates',
        /cross|intersect/,
      ],
      [{ geometry: { type: 'Point', coordinates: [17, -34] } }, 'geometry.type', /.*/],
      [
        line([
          [17, -34],
          ['NaN' as unknown as number, -34.01],
        ]),
        'geometry.coordinates.1',
        /finite/,
      ],
      [
        line([
          [17, -34],
          [200, -34.01],
        ]),
        'geometry.coordinates.1',
        /range/,
      ],
      [
        {
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [17, -34],
                [17.01, -34],
                [17.01, -34.01],
              ],
            ],
          },
        },
        'geometry.coordinates',
        /.+/,
      ],
      [{}, 'geometry', /.+/],
    ]
    for (const [body, field, msg] of cases) {
      const res = await post('/intersect', body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      const err = await json(res)
      expect(err.error).toBe('ValidationError')
      expect(fields(err), JSON.stringify(body)).toContain(field)
      expect(err.details.map((d: Item) => d.message).join(' ')).toMatch(msg)
    }
    // JSON cannot carry NaN or Infinity: a body that tries is not JSON
    const raw = await t.app.request('/api/v1/encumbrances/intersect', {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
      body: '{"geometry":{"type":"LineString","coordinates":[[17,-34],[Infinity,-34]]}}',
    })
    expect(raw.status).toBe(400)
  })

  const wkt = (coords: number[][]) => coords.map(([x, y]) => `${x} ${y}`).join(', ')
  it('WKT text: a LINESTRING and a POLYGON answer exactly as the same GeoJSON does', async () => {
    const route = [
      [16.9995, -34.9045],
      [17.0035, -34.9045],
    ]
    const ring = [
      [17.0, -34.91],
      [17.01, -34.91],
      [17.01, -34.9],
      [17.0, -34.9],
      [17.0, -34.91],
    ]
    const pairs: [unknown, unknown][] = [
      [
        { geometry: { type: 'LineString', coordinates: route }, include_geometry: true },
        { geometry: `LINESTRING (${wkt(route)})`, include_geometry: true },
      ],
      [{ geometry: { type: 'LineString', coordinates: route } }, { geometry: `  linestring(${wkt(route)}) ` }],
      [{ geometry: { type: 'LineString', coordinates: route } }, { geometry: `SRID=4326;LINESTRING(${wkt(route)})` }],
      [
        { geometry: { type: 'Polygon', coordinates: [ring] }, encumbrance_class: 'servitude_area,servitude_line' },
        { geometry: `POLYGON ((${wkt(ring)}))`, encumbrance_class: 'servitude_area,servitude_line' },
      ],
    ]
    for (const [geoJson, asWkt] of pairs) {
      const a = await post('/intersect', geoJson)
      const b = await post('/intersect', asWkt)
      expect(a.status).toBe(200)
      expect(b.status, JSON.stringify(asWkt)).toBe(200)
      const body = await json(b)
      expect(body.encumbrances.length).toBeGreaterThan(0)
      expect(body).toEqual(await json(a))
    }
  })

  it(
    'WKT text: malformed, another type, not WKT at all or another SRID answers 400 naming geometry; then the ' +
      'GeoJSON checks apply',
    async () => {
      const cases: [string, RegExp][] = [
        ['LINESTRING (17 -34, 17.01', /not valid WKT/],
        ['LINESTRING (17 -34, 17.01 -34.01) and more', /not valid WKT/],
        ['POLYGON ((17 -34, 17.01 -34, 17.01 -34.01, 17 -34))))', /not valid WKT/],
        ['POINT (17 -34)', /POINT is not accepted/],
        ['MULTIPOLYGON (((17 -34, 17.01 -34, 17.01 -34.01, 17 -34)))', /MULTIPOLYGON is not accepted/],
        ['GEOMETRYCOLLECTION (POINT (17 -34))', /GEOMETRYCOLLECTION is not accepted/],
        ['the farm next to the river', /not valid WKT/],
        ['', /not valid WKT/],
        ['{"type":"LineString","coordinates":[[17,-34],[17.01,-34]]}', /GeoJSON as an object/],
        ['SRID=2048;LINESTRING (17 -34, 17.01 -34.01)', /SRID=2048/],
      ]
      for (const [text, msg] of cases) {
        const res = await post('/intersect', { geometry: text })
        expect(res.status, text).toBe(400)
        const err = await json(res)
        expect(err.error).toBe('ValidationError')
        expect(fields(err), text).toEqual(['geometry'])
        expect(err.details[0].message, text).toMatch(msg)
        expect(err.message).toMatch(/geometry/)
      }
      // read into GeoJSON, WKT meets the same checks: too long, self-intersecting, out of range
      const checks: [string, string, RegExp][] = [
        ['LINESTRING (17 -34, 19.5 -34)', 'geometry', /km/],
        ['LINESTRING (17 -34, 17.01 -34.01, 17.01 -34, 17 -34.01)', 'geometry.coordinates', /cross|intersect/],
        ['LINESTRING (17 -34, 200 -34.01)', 'geometry.coordinates.1', /range/],
      ]
      for (const [text, field, msg] of checks) {
        const err = await json(await post('/intersect', { geometry: text }))
        expect(fields(err), text).toContain(field)
        expect(err.details.map((d: Item) => d.message).join(' ')).toMatch(msg)
      }
    },
  )

  it('WKT nested deeper than 3 answers 400 naming the depth and the limit, never a 500', async () => {
    // a POLYGON of 5 000 parentheses (10 KB), and 50 000 nested collections (1 MB), which
    // wellknown read by recursion until the stack ran out
    const cases: [string, number][] = [
      [`POLYGON ${'('.repeat(5000)}17 -34${')'.repeat(5000)}`, 5000],
      [`${'GEOMETRYCOLLECTION ('.repeat(50_000)}POINT (17 -34)${')'.repeat(50_000)}`, 50_001],
      ['POLYGON ((((17 -34, 17.01 -34, 17.01 -34.01, 17 -34))))', 4],
    ]
    for (const [text, depth] of cases) {
      const res = await post('/intersect', { geometry: text })
      expect(res.status).toBe(400)
      const err = await json(res)
      expect(err.error).toBe('ValidationError')
      expect(err.details).toEqual([
        {
          field: 'geometry',
          message: `geometry: WKT nests its parentheses ${depth} deep; at most 3 (a POLYGON nests 2: POLYGON ((x y, …), (x y, …)))`,
        },
      ])
    }
  })
})

describe('POST /encumbrances/batch', () => {
  it('results aligned with the items, null where no parcel; points screen the most specific parcel', async () => {
    const body = await json(
      await post('/batch', [
        { lpi: erfLpi(1) },
        { lpi: 'C01307770000099900000' },
        { latitude: -34.9045, longitude: 17.0018 },
        { latitude: -30, longitude: 40 },
      ]),
    )
    expect(body.results).toHaveLength(4)
    expect(body.results[0]).toMatchObject({ lpi: erfLpi(1), has_encumbrances: true })
    expect(body.results[1]).toBeNull()
    expect(body.results[2]).toMatchObject({ lpi: erfLpi(1), parcel_type: 'ERF' })
    expect(body.results[3]).toBeNull()
    expect(body).toMatchObject({ found: 2, not_found: 2 })
    const wrapped = await json(await post('/batch', { items: [{ lpi: erfLpi(3) }] }))
    expect(wrapped.results[0]).toMatchObject({ has_encumbrances: false })
  })

  it('400 for a batch of 501 and for bad items, naming each', async () => {
    const big = await post(
      '/batch',
      Array.from({ length: 501 }, () => ({ lpi: erfLpi(1) })),
    )
    expect(big.status).toBe(400)
    const bad = await json(
      await post('/batch', [{ lpi: 'nope' }, { latitude: 95 }, { lpi: erfLpi(1), latitude: 1, longitude: 1 }, {}]),
    )
    expect(fields(bad)).toEqual(expect.arrayContaining(['0.lpi', '1.latitude']))
    expect(bad.details.length).toBeGreaterThanOrEqual(4)
  })
})

describe('GET /encumbrances/coverage', () => {
  it('the coverage caveats of the spec hold in the generated data and are stated', async () => {
    const body = await json(await get('/coverage'))
    const prov = Object.fromEntries(body.provinces.map((p: Item) => [p.province, p]))
    expect(prov.KZ?.missing_classes).toContain('lease')
    expect(prov.GP?.missing_classes).toContain('state_land')
    for (const p of ['FS', 'GP', 'LP', 'MP', 'NC', 'NW'])
      if (prov[p]) expect(prov[p].missing_classes, p).toContain('river_bed')
    for (const p of ['NC', 'NW']) if (prov[p]) expect(prov[p].missing_classes, p).toContain('established_boundary')
    expect(prov.WC.classes.servitude_area.unlisted).toBeGreaterThanOrEqual(1)
    expect(prov.WC.classes.servitude_area.not_current).toBeGreaterThanOrEqual(1)
    expect(body.caveats.join(' ')).toMatch(/No lease layer in .*KZ/)
    expect(body.totals.unspecified_share_of_servitude_areas).toBeGreaterThan(50)
  })
})

describe('GET /encumbrances/heatmap', () => {
  it('zoomed out: density cells in whole multiples of 0.01°, busiest first', async () => {
    const body = await json(await get('/heatmap?north=-22&south=-35&east=33&west=16'))
    expect(body.view).toBe('density')
    expect(Math.round(body.cell_deg * 100)).toBe(body.cell_deg * 100)
    expect(body.cells.length).toBeGreaterThan(0)
    for (let i = 1; i < body.cells.length; i++)
      expect(body.cells[i - 1].count).toBeGreaterThanOrEqual(body.cells[i].count)
    expect(body.truncated).toBe(false)
  })

  it('zoomed in or view=boundaries: geometries, gated classes listed as omitted', async () => {
    const body = await json(await get('/heatmap?north=-34.9&south=-34.91&east=17.01&west=17.0'))
    expect(body.view).toBe('boundaries')
    expect(body.features.map((f: Item) => f.properties.encumbrance_uid)).toEqual(
      expect.arrayContaining([ENC_UID.strip, ENC_UID.mineral]),
    )
    const wide = await json(await get('/heatmap?north=-34&south=-35&east=17.5&west=16.9&view=boundaries'))
    expect(wide.omitted.map((o: Item) => o.encumbrance_class)).toContain('servitude_area')
    expect(fields(await json(await get('/heatmap?north=-35&south=-34&east=17&west=17.5')))).toEqual(['south', 'west'])
    expect(fields(await json(await get('/heatmap?north=-34&south=-35&east=18&west=17&view=pie&classes=moat')))).toEqual(
      ['classes', 'view'],
    )
  })
})

describe('GET /encumbrances/tiles/{z}/{x}/{y}.mvt', () => {
  it('a tile over the fixtures decodes with one layer per class, feature by feature', async () => {
    const { x, y } = tileAt(17.002, -34.9045, 14)
    const res = await get(`/tiles/14/${x}/${y}.mvt`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/vnd.mapbox-vector-tile')
    const etag = res.headers.get('etag')!
    const tile = new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer())))
    expect(Object.keys(tile.layers)).toEqual(
      expect.arrayContaining(['servitude_area', 'servitude_line', 'mineral_right']),
    )
    const areas = tile.layers.servitude_area
    const uids = Array.from({ length: areas.length }, (_, i) => areas.feature(i).properties.encumbrance_uid)
    expect(uids).toContain(ENC_UID.strip)
    expect(uids).not.toContain(ENC_UID.cancel)
    const strip = areas.feature(uids.indexOf(ENC_UID.strip))
    expect(strip.type).toBe(3)
    expect(strip.properties).toMatchObject({ ease_type_normalised: 'right_of_way', sg_number: ENC_SG.strip })
    const lines = tile.layers.servitude_line
    const edge = Array.from({ length: lines.length }, (_, i) => lines.feature(i)).find(
      (f) => f.properties.encumbrance_uid === ENC_UID.edge,
    )!
    expect(edge.type).toBe(2)
    // the edge line is vertical: its two points share x
    const pts = edge.loadGeometry()[0]
    expect(pts[0].x).toBe(pts[pts.length - 1].x)
    const notModified = await get(`/tiles/14/${x}/${y}.mvt`, key, { 'If-None-Match': etag })
    expect(notModified.status).toBe(304)
    // binary and empty answers carry the request id like JSON ones
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(notModified.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('an empty tile is 204; out-of-range z/x/y 400', async () => {
    const empty = await get('/tiles/14/0/0.mvt')
    expect(empty.status).toBe(204)
    expect(empty.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(fields(await json(await get('/tiles/3/8/9.mvt')))).toEqual(['x', 'y'])
    expect(fields(await json(await get('/tiles/23/0/0.mvt')))).toContain('z')
  })
})

describe('access', () => {
  it('403 without the encumbrance product or for a Botswana-only key; 401 without a key', async () => {
    const plotsOnly = t.issue({ products: ['plots'] }).key
    expect((await json(await get('/coverage', plotsOnly))).error).toBe('ProductNotPermitted')
    const bw = t.issue({ countries: ['BOTSWANA'] }).key
    expect((await json(await get('/coverage', bw))).error).toBe('CountryNotPermitted')
    expect((await get('/coverage', '')).status).toBe(401)
  })

  it('503 EncumbranceDataUnavailable when the domain is not installed', async () => {
    const bare = makeTestApp({ datasetDir: inject('plotsOnlyDatasetDir') })
    const res = await bare.get('/api/v1/encumbrances/coverage', bare.issue().key)
    expect(res.status).toBe(503)
    expect((await json(res)).error).toBe('EncumbranceDataUnavailable')
  })

  it('the OpenAPI document describes every endpoint', async () => {
    const doc = await json(await t.get('/api/v1/openapi.json'))
    for (const p of [
      '/parcel/{lpi}',
      '/summary/parcel/{lpi}',
      '/at',
      '/within',
      '/intersect',
      '/search',
      '/batch',
      '/coverage',
      '/heatmap',
      '/tiles/{z}/{x}/{y}.mvt',
      '/{encumbrance_uid}',
    ]) {
      const item = doc.paths[`/api/v1/encumbrances${p}`]
      expect(item?.get ?? item?.post, p).toBeDefined()
    }
  })
})
