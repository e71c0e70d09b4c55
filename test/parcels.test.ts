import { statSync } from 'node:fs'
import { join } from 'node:path'
import geographiclib from 'geographiclib-geodesic'
import { describe, expect, inject, it } from 'vitest'
import { FARM_LPI, PARTING, PORTION1_LPI, PORTION2_LPI, POINTS, erfLpi, sourceKey } from './fixtures/parcel-fixtures.js'
import { PARCEL_FILES } from '../src/data/parcels-format.js'
import { lpiRowReader } from '../src/data/parcel-readers.js'
import { json, makeTestApp } from './helpers.js'

const { Geodesic } = geographiclib
const t = makeTestApp()
const { key } = t.issue()
const get = (path: string, k = key) => t.get(`/api/v1/parcels${path}`, k)
const at = (p: { latitude: number; longitude: number }, extra = '') =>
  get(`/at?latitude=${p.latitude}&longitude=${p.longitude}${extra}`)
const post = (body: unknown, k = key) =>
  t.app.request('/api/v1/parcels/batch', {
    method: 'POST',
    headers: { 'X-API-KEY': k, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
const lpis = (body: { parcels: { lpi: string }[] }) => body.parcels.map((p) => p.lpi)

describe('GET /parcels/at', () => {
  it('answers the erf, then the portion, then the parent farm, with full records', async () => {
    const res = await at(POINTS.inErf1)
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(lpis(body)).toEqual([erfLpi(1), PORTION1_LPI, FARM_LPI])
    expect(body.dataset_version).toMatch(/^csg-/)
    expect(body.message).toBe('3 parcels contain the point; the first is the most specific')
    expect(Object.keys(body)).toEqual(['parcels', 'message', 'dataset_version'])
    expect(res.headers.get('Content-Type')).toBe('application/json')
    const [erf, , farm] = body.parcels
    expect(erf).toMatchObject({
      parcel_type: 'ERF',
      province: 'WESTERN CAPE',
      lpi: erfLpi(1),
      source_key: sourceKey(erfLpi(1), 2),
      parcel_number: 1,
      portion: 0,
      minor_region: 'FIXTURE TOWN',
      minor_code: '0777',
      legal_status: { code: 'R', label: 'Registered' },
      work_status: { code: 'C', label: 'Current' },
      date_stamp: '2019-07-01',
      dataset_version: body.dataset_version,
    })
    // 0.001 x 0.001 degrees at 34.9 S is about 91.4 m x 110.9 m
    expect(erf.extent_sqm).toBeGreaterThan(10_000)
    expect(erf.extent_sqm).toBeLessThan(10_300)
    expect(farm.parcel_type).toBe('PARENT_FARM')
    expect(farm).not.toHaveProperty('minor_region')
    expect(farm).not.toHaveProperty('minor_code')
    expect(Object.values(erf)).not.toContain(null)
  })

  it('counts a point on a shared edge in both erven (closed sets)', async () => {
    const body = await json(await at(POINTS.onSharedEdge))
    expect(lpis(body)).toEqual([erfLpi(1), erfLpi(2), PORTION1_LPI, FARM_LPI])
  })

  it('leaves out an erf whose hole holds the point', async () => {
    expect(lpis(await json(await at(POINTS.inHole)))).toEqual([PORTION1_LPI, FARM_LPI])
  })

  it('hides archived parcels by default and shows them with include_status=all', async () => {
    expect(lpis(await json(await at(POINTS.inArchived)))).toEqual([PORTION2_LPI, FARM_LPI])
    const all = await json(await at(POINTS.inArchived, '&include_status=ALL'))
    expect(lpis(all)).toEqual([erfLpi(5), PORTION2_LPI, FARM_LPI])
    expect(all.parcels[0].legal_status).toEqual({ code: 'A', label: 'Archived' })
  })

  it('shows historic versions with include_status=all, current version first', async () => {
    const all = await json(await at(POINTS.inErf1, '&include_status=all'))
    expect(lpis(all)).toEqual([erfLpi(1), erfLpi(1), PORTION1_LPI, FARM_LPI])
    expect(all.parcels.slice(0, 2).map((p: { work_status: { code: string } }) => p.work_status.code)).toEqual([
      'C',
      'H',
    ])
  })

  it('restricts to one layer with parcel_type, case-insensitively', async () => {
    expect(lpis(await json(await at(POINTS.inErf1, '&parcel_type=farm_portion')))).toEqual([PORTION1_LPI])
  })

  it('404 NoParcelAtPoint with the nearest parcel within 2 km, geodesic distance to its boundary', async () => {
    const res = await at(POINTS.southOfFarm)
    expect(res.status).toBe(404)
    const body = await json(res)
    expect(body.error).toBe('NoParcelAtPoint')
    const nearest = body.details.nearest
    // the portion and the farm share the south edge: the more specific one wins the tie
    expect(nearest.lpi).toBe(PORTION1_LPI)
    const exact = Geodesic.WGS84.Inverse(
      POINTS.southOfFarm.latitude,
      POINTS.southOfFarm.longitude,
      -34.91,
      POINTS.southOfFarm.longitude,
    ).s12!
    expect(Math.abs(nearest.distance_meters - exact)).toBeLessThan(1)
  })

  it('details.nearest obeys the status filter and parcel_type', async () => {
    const body = await json(await at(POINTS.inArchived, '&parcel_type=ERF'))
    expect(body.error).toBe('NoParcelAtPoint')
    // erf 5 (archived) holds the point and erf 6 (withdrawn) is nearer, but both are hidden: erf 3 is next
    expect(body.details.nearest.lpi).toBe(erfLpi(3))
    expect(body.details.nearest.distance_meters).toBeGreaterThan(200)
    expect(body.details.nearest.distance_meters).toBeLessThan(260)
  })

  it('a point at or near a pole is a plain 404, at once (issue #39 item 9: it once read every parcel)', async () => {
    for (const [latitude, longitude] of [
      [90, 0],
      [-90, 0],
      [-89.99, 0],
      [89.985, 179.5],
    ]) {
      const res = await at({ latitude, longitude })
      expect(res.status).toBe(404)
      const body = await json(res)
      expect(body.error).toBe('NoParcelAtPoint')
      expect(body.message).toBe('no parcel contains the point, and none lies within 2000 m')
    }
    const batch = await post({ points: [{ latitude: -90, longitude: 0 }] })
    expect(batch.status).toBe(200)
  })

  it('404 without details when nothing lies within 2 km', async () => {
    const body = await json(await at(POINTS.farSouth))
    expect(body.error).toBe('NoParcelAtPoint')
    expect(body).not.toHaveProperty('details')
  })

  it('400 naming every bad parameter', async () => {
    const res = await get('/at?latitude=abc&longitude=200&parcel_type=farm&include_status=some')
    expect(res.status).toBe(400)
    const body = await json(res)
    expect(body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'include_status',
      'latitude',
      'longitude',
      'parcel_type',
    ])
    expect((await json(await get('/at?longitude=17'))).details.map((d: { field: string }) => d.field)).toEqual([
      'latitude',
    ])
  })
})

describe('GET /parcels/{lpi} and /parcels/by-key/{source_key}', () => {
  it('gives a parcel without a source label point one inside it: erf 4, whose box centre is in its hole', async () => {
    const erf4 = (await json(await get(`/${erfLpi(4)}`))).parcels[0]
    const { latitude, longitude } = erf4.label_point
    // the box centre lies in the hole (not the erf's), so a label there would be wrong
    expect((await json(await at(POINTS.inHole))).parcels.map((p: { lpi: string }) => p.lpi)).not.toContain(erfLpi(4))
    expect({ latitude, longitude }).not.toEqual(POINTS.inHole)
    const here = await json(await at({ latitude, longitude }))
    expect(here.parcels[0].lpi).toBe(erfLpi(4))
    // the pole of inaccessibility: at least 55 m (about half the erf's 111 m strips) from the outer
    // edges and from the hole; a box centre nudged to a vertex or an edge would not be
    const m = 111_320
    const kx = Math.cos((latitude * Math.PI) / 180) * m
    const toOuter = Math.min(
      (longitude - 17.001) * kx,
      (17.004 - longitude) * kx,
      (latitude + 34.909) * m,
      (-34.906 - latitude) * m,
    )
    const dx = Math.max(17.002 - longitude, 0, longitude - 17.003) * kx
    const dy = Math.max(-34.908 - latitude, 0, latitude + 34.907) * m
    expect(toOuter).toBeGreaterThan(55)
    expect(Math.hypot(dx, dy)).toBeGreaterThan(55)
  })

  it('returns the current version; include_status=all adds the historic one after it', async () => {
    const body = await json(await get(`/${erfLpi(1)}`))
    expect(body.parcels).toHaveLength(1)
    expect(body.parcels[0].work_status.code).toBe('C')
    const all = await json(await get(`/${erfLpi(1).toLowerCase()}?include_status=all`))
    expect(all.parcels.map((p: { work_status: { code: string } }) => p.work_status.code)).toEqual(['C', 'H'])
  })

  it(
    "orders every LPI's and source key's versions as the SQL order did (visible, current, proposed, historic, " +
      'newest, id)',
    () => {
      const q = t.data.services.parcels!
      const db = t.data.dataset.sqlite('parcels/parcels.sqlite')
      const ORDER =
        `hidden, CASE COALESCE(wstatus, 'C') WHEN 'C' THEN 0 WHEN 'P' THEN 1 ELSE 2 END, date_stamp ` + `DESC, id`
      const byLpi = db.prepare(
        `SELECT source_key, lpi, wstatus, date_stamp, hidden FROM parcel WHERE lpi = ? ORDER BY ${ORDER}`,
      )
      const byKey = db.prepare(
        `SELECT source_key, lpi, wstatus, date_stamp, hidden FROM parcel WHERE source_key = ? ORDER BY ${ORDER}`,
      )
      type R = { source_key: string; lpi: string; wstatus: string | null; date_stamp: string | null; hidden: number }
      const sig = (rows: R[], all: boolean) =>
        rows.filter((r) => all || !r.hidden).map((r) => `${r.lpi}/${r.source_key}/${r.wstatus}/${r.date_stamp}`)
      const got = (recs: { lpi: string; source_key: string; work_status?: { code: string }; date_stamp?: string }[]) =>
        recs.map((r) => `${r.lpi}/${r.source_key}/${r.work_status?.code ?? null}/${r.date_stamp ?? null}`)
      const multi = db.prepare('SELECT lpi FROM parcel GROUP BY lpi HAVING count(*) > 1').pluck().all() as string[]
      expect(multi.length).toBeGreaterThan(0)
      const lpis = db.prepare('SELECT DISTINCT lpi FROM parcel').pluck().all() as string[]
      for (const all of [false, true]) {
        for (const lpi of lpis)
          expect(got(q.byLpi(lpi, { all }) as never), lpi).toEqual(sig(byLpi.all(lpi) as R[], all))
        for (const lpi of multi) {
          const keys = db.prepare('SELECT DISTINCT source_key FROM parcel WHERE lpi = ?').pluck().all(lpi) as string[]
          for (const k of keys)
            expect(got(q.bySourceKey(k, { all }) as never), k).toEqual(sig(byKey.all(k) as R[], all))
        }
      }
    },
  )

  it(
    "reads an LPI's rows through the LPI hash index as SQL finds them: every LPI, both filters, absent and " +
      'wrongly cased LPIs',
    () => {
      const ds = t.data.dataset
      expect(ds.has(PARCEL_FILES.lpiHash)).toBe(true)
      const db = ds.sqlite(PARCEL_FILES.sqlite)
      // the same dataset as one built before the hash index existed: the reader falls back to SQL
      const older = { ...ds, has: (path: string) => path !== PARCEL_FILES.lpiHash && ds.has(path) }
      const lpis = db.prepare('SELECT DISTINCT lpi FROM parcel').pluck().all() as string[]
      const probes = [...lpis, '', 'T0JR00000000000000000', lpis[0].toLowerCase(), `${lpis[0]} `]
      for (const visible of [false, true]) {
        const sql = db.prepare(
          `SELECT id, lpi, hidden FROM parcel WHERE lpi = ?${visible ? ' AND hidden = 0' : ''} ORDER BY id`,
        )
        const hashed = lpiRowReader<{ id: number; lpi: string; hidden: number }>(ds, db, 'id, lpi, hidden', visible)
        const plain = lpiRowReader<{ id: number; lpi: string; hidden: number }>(older, db, 'id, lpi, hidden', visible)
        let rows = 0
        for (const lpi of probes) {
          const want = sql.all(lpi)
          rows += want.length
          expect(hashed(lpi), lpi).toEqual(want)
          expect(plain(lpi), lpi).toEqual(want)
        }
        expect(rows).toBeGreaterThan(lpis.length * (visible ? 0.5 : 1) - 1)
      }
    },
  )

  it('omits work_status when the source recorded none', async () => {
    const body = await json(await get(`/${erfLpi(3)}`))
    expect(body.parcels[0]).not.toHaveProperty('work_status')
  })

  it('404 ParcelNotFound for an unknown LPI and for one whose every version is hidden', async () => {
    for (const lpi of ['C01307770000099900000', erfLpi(6)]) {
      const res = await get(`/${lpi}`)
      expect(res.status, lpi).toBe(404)
      expect((await json(res)).error).toBe('ParcelNotFound')
    }
    expect((await get(`/${erfLpi(6)}?include_status=all`)).status).toBe(200)
  })

  it('400 for a malformed LPI', async () => {
    for (const bad of ['ABC', 'C0130777000000010000', 'X01307770000000100000', 'C0130777000000010000A']) {
      const res = await get(`/${bad}`)
      expect(res.status, bad).toBe(400)
      expect((await json(res)).details[0].field).toBe('lpi')
    }
  })

  it('looks records up by source key, with the status filter', async () => {
    expect(lpis(await json(await get(`/by-key/${sourceKey(erfLpi(1), 2)}`)))).toEqual([erfLpi(1)])
    expect((await get(`/by-key/${sourceKey(erfLpi(1), 1)}`)).status).toBe(404)
    expect((await get(`/by-key/${sourceKey(erfLpi(1), 1)}?include_status=all`)).status).toBe(200)
    expect((await get('/by-key/short')).status).toBe(400)
  })

  it('answers the documented query form exactly as the path form (docs/api.md "OpenAPI document")', async () => {
    for (const [k, extra] of [
      [sourceKey(erfLpi(1), 2), ''],
      [sourceKey(erfLpi(1), 1), ''],
      [sourceKey(erfLpi(1), 1), '&include_status=all'],
    ]) {
      const path = await get(`/by-key/${k}${extra.replace('&', '?')}`)
      const query = await get(`/by-key?source_key=${k}${extra}`)
      expect(query.status, k).toBe(path.status)
      // byte for byte, but for an error's request id
      const text = async (r: Response) => (await r.text()).replace(/"requestId":"[^"]*"/, '"requestId":""')
      expect(await text(query), k).toBe(await text(path))
    }
    const missing = await json(await get('/by-key'))
    expect([missing.error, missing.details.map((d: { field: string }) => d.field)]).toEqual([
      'ValidationError',
      ['source_key'],
    ])
  })
})

describe('GET /parcels/{lpi}/geometry', () => {
  it('answers a GeoJSON MultiPolygon, longitude first, exterior counter-clockwise, hole kept', async () => {
    const body = await json(await get(`/${erfLpi(4)}/geometry`))
    expect(body.format).toBe('geojson')
    expect(body.parcel.lpi).toBe(erfLpi(4))
    expect(body.geometry.type).toBe('MultiPolygon')
    const [shell, hole] = body.geometry.coordinates[0]
    expect(hole).toBeDefined()
    expect(shell[0]).toEqual([17.001, -34.909])
    const area2 = (r: number[][]) => r.slice(0, -1).reduce((s, p, i) => s + p[0] * r[i + 1][1] - r[i + 1][0] * p[1], 0)
    expect(area2(shell)).toBeGreaterThan(0)
    expect(area2(hole)).toBeLessThan(0)
  })

  it('repairs a clockwise source ring to counter-clockwise', async () => {
    const body = await json(await get(`/${erfLpi(3)}/geometry`))
    const r = body.geometry.coordinates[0][0] as number[][]
    const area2 = r.slice(0, -1).reduce((s, p, i) => s + p[0] * r[i + 1][1] - r[i + 1][0] * p[1], 0)
    expect(area2).toBeGreaterThan(0)
  })

  it('answers WKT on request', async () => {
    const body = await json(await get(`/${erfLpi(2)}/geometry?format=WKT`))
    expect(body.format).toBe('wkt')
    expect(body.geometry).toBe(
      'MULTIPOLYGON (((17.002 -34.905, 17.003 -34.905, 17.003 -34.904, 17.002 -34.904, 17.002 -34.905)))',
    )
  })

  it('simplifies without ever returning an empty or collapsed ring', async () => {
    const body = await json(await get(`/${erfLpi(4)}/geometry?simplify=1000`))
    for (const ring of body.geometry.coordinates[0]) {
      expect(ring.length).toBeGreaterThanOrEqual(4)
      expect(ring[0]).toEqual(ring[ring.length - 1])
    }
    const res = await get(`/${erfLpi(4)}/geometry?simplify=0&format=svg`)
    expect(res.status).toBe(400)
    expect((await json(res)).details.map((d: { field: string }) => d.field).sort()).toEqual(['format', 'simplify'])
    expect((await get(`/${erfLpi(4)}/geometry?simplify=1001`)).status).toBe(400)
  })
})

describe('GET /parcels/{lpi}/neighbours', () => {
  const ids = (body: { neighbours: { parcel: { lpi: string } }[] }) => body.neighbours.map((n) => n.parcel.lpi)

  it('touching: a shared edge counts, a shared vertex does not, containers and own versions never', async () => {
    const body = await json(await get(`/${erfLpi(1)}/neighbours`))
    expect(body.mode).toBe('touching')
    expect(ids(body)).toEqual([erfLpi(2)])
    expect(body.neighbours[0].shared_boundary_meters).toBeGreaterThan(110)
    expect(body.neighbours[0].shared_boundary_meters).toBeLessThan(112)
    expect(ids(await json(await get(`/${erfLpi(2)}/neighbours`)))).toEqual([erfLpi(1)])
    expect(ids(await json(await get(`/${PORTION1_LPI}/neighbours`)))).toEqual([PORTION2_LPI])
  })

  it('touching: boundaries parting at a small angle, while they run within 2 cm for 0.5 m (issue #39 item 4)', async () => {
    // 2 cm / tan θ, tan θ from each parting edge's offset and run in metres (GeographicLib scales)
    const { west, east, south, north, off8, off9, off10, run10 } = PARTING
    const kx = Geodesic.WGS84.Inverse(south, west, south, east).s12! / (east - west)
    const ky = Geodesic.WGS84.Inverse(south, west, north, west).s12! / (north - south)
    const rise = (north - south) * ky
    const [erf8, erf9, erf10] = [
      (0.02 * rise) / (off8 * kx),
      (0.02 * rise) / (off9 * kx),
      (0.02 * run10 * kx) / (off10 * ky),
    ]
    expect([erf8, erf9, erf10].map((m) => m.toFixed(3))).toEqual(['3.090', '0.447', '0.554'])
    const shared = (body: { neighbours: { parcel: { lpi: string }; shared_boundary_meters: number }[] }) =>
      body.neighbours.map((n) => [n.parcel.lpi, n.shared_boundary_meters])
    expect(shared(await json(await get(`/${erfLpi(7)}/neighbours`)))).toEqual([
      [erfLpi(8), expect.closeTo(erf8, 2)],
      [erfLpi(10), expect.closeTo(erf10, 2)],
    ])
    expect(shared(await json(await get(`/${erfLpi(8)}/neighbours`)))).toEqual([[erfLpi(7), expect.closeTo(erf8, 2)]])
    expect(shared(await json(await get(`/${erfLpi(10)}/neighbours`)))).toEqual([[erfLpi(7), expect.closeTo(erf10, 2)]])
    // erf 9 runs within 2 cm of erf 7 for 0.45 m only: it meets it, but does not touch it (erf 10's
    // corner is 0.69 m off erf 9's)
    expect(ids(await json(await get(`/${erfLpi(9)}/neighbours`)))).toEqual([])
    const near9 = await json(await get(`/${erfLpi(9)}/neighbours?mode=within&distance=1`))
    const distances = near9.neighbours.map((n: { parcel: { lpi: string }; distance_meters: number }) => [
      n.parcel.lpi,
      n.distance_meters,
    ])
    expect(distances).toEqual([
      [erfLpi(7), 0],
      [erfLpi(10), expect.closeTo(off9 * kx, 2)],
    ])
  })

  it('within a distance, nearest first', async () => {
    const near = await json(await get(`/${erfLpi(2)}/neighbours?mode=within&distance=100`))
    expect(ids(near).sort()).toEqual([erfLpi(1), erfLpi(3)].sort())
    expect(near.neighbours.every((n: { distance_meters: number }) => n.distance_meters === 0)).toBe(true)
    const wider = await json(await get(`/${erfLpi(2)}/neighbours?mode=within&distance=200`))
    expect(ids(wider)).toContain(erfLpi(4))
    const erf4 = wider.neighbours.find((n: { parcel: { lpi: string } }) => n.parcel.lpi === erfLpi(4))
    expect(erf4.distance_meters).toBeGreaterThan(110)
    expect(erf4.distance_meters).toBeLessThan(112)
    const one = await json(await get(`/${erfLpi(2)}/neighbours?mode=within&distance=200&limit=1`))
    expect(one.neighbours).toHaveLength(1)
    // the message names the total, not the page (issue #39 item 8)
    expect(one.message).toBe(
      `1 of ${wider.neighbours.length} neighbours within 200 m (the first 1; \`limit\` takes up to 500)`,
    )
    expect(wider.message).toBe(`${wider.neighbours.length} neighbours within 200 m`)
  })

  it('400 naming every bad parameter', async () => {
    const body = await json(await get(`/${erfLpi(2)}/neighbours?mode=sideways&distance=0&limit=501`))
    expect(body.details.map((d: { field: string }) => d.field).sort()).toEqual(['distance', 'limit', 'mode'])
    expect((await get(`/${erfLpi(2)}/neighbours?mode=within&distance=5001`)).status).toBe(400)
  })
})

describe('GET /parcels/{lpi}/beacons and /general-plan', () => {
  it('orders beacons around the ring with ring_position from the first vertex', async () => {
    const body = await json(await get(`/${erfLpi(2)}/beacons`))
    expect(body.beacons.map((b: { beacon_id: string }) => b.beacon_id)).toEqual([
      'FIX-B1',
      'FIX-B2',
      'FIX-B3',
      'FIX-B4',
    ])
    const pos = body.beacons.map((b: { ring_position: number }) => b.ring_position)
    // sides of about 91.4 m (east-west) and 110.9 m (north-south)
    expect(pos[0]).toBe(0)
    expect(pos[1]).toBeCloseTo(0.2259, 3)
    expect(pos[2]).toBeCloseTo(0.5, 6)
    expect(pos[3]).toBeCloseTo(0.7259, 3)
    expect(body.beacons[0]).toMatchObject({ name: 'B1', description: 'iron peg', latitude: -34.905, longitude: 17.002 })
  })

  it("lists every parcel's beacons and General Plans in the order the SQL ORDER BY gave", () => {
    const q = t.data.services.parcels!
    const db = t.data.dataset.sqlite('parcels/parcels.sqlite')
    const beaconIds = db.prepare(
      'SELECT b.beacon_id FROM parcel_beacon pb JOIN beacon b ON b.id = pb.beacon_row WHERE pb.parcel_id = ? ORDER ' +
        'BY pb.ring_position, b.beacon_id',
    )
    const planIds = db.prepare(
      'SELECT g.sg_number FROM parcel_general_plan pg JOIN general_plan g ON g.id = pg.plan_id WHERE pg.parcel_id ' +
        '= ? ORDER BY g.sg_number',
    )
    const parcels = db
      .prepare(
        'SELECT id, lpi FROM parcel WHERE hidden = 0 AND (id IN (SELECT parcel_id FROM parcel_beacon) OR id IN ' +
          '(SELECT parcel_id FROM parcel_general_plan))',
      )
      .all() as { id: number; lpi: string }[]
    expect(parcels.length).toBeGreaterThan(50)
    let several = 0
    for (const p of parcels) {
      const current = q.beacons(p.lpi, { all: false })
      // only the LPI's published version is served; compare that one
      if (
        !current ||
        current.parcel.source_key !==
          (db.prepare('SELECT source_key FROM parcel WHERE id = ?').pluck().get(p.id) as string)
      )
        continue
      expect(
        current.beacons.map((b) => b.beacon_id),
        p.lpi,
      ).toEqual(beaconIds.pluck().all(p.id))
      expect(
        q.generalPlans(p.lpi, { all: false })!.general_plans.map((g) => g.sg_number),
        p.lpi,
      ).toEqual(planIds.pluck().all(p.id))
      if (current.beacons.length > 1) several++
    }
    expect(several).toBeGreaterThan(20)
  })

  it('a beacon on a shared corner belongs to both parcels; none captured gives an empty list', async () => {
    const erf1 = await json(await get(`/${erfLpi(1)}/beacons`))
    expect(erf1.beacons.map((b: { beacon_id: string }) => b.beacon_id).sort()).toEqual(['FIX-B1', 'FIX-B4'])
    const erf4 = await json(await get(`/${erfLpi(4)}/beacons`))
    expect(erf4.beacons).toEqual([])
    expect(erf4.message).toMatch(/No beacon/)
  })

  it('names the General Plan covering an erf, and none for one outside it', async () => {
    const body = await json(await get(`/${erfLpi(1)}/general-plan`))
    expect(body.general_plans).toEqual([
      { sg_number: '1234/1987', description: 'FIXTURE TOWN general plan', date_stamp: '1987-05-04' },
    ])
    expect((await json(await get(`/${erfLpi(5)}/general-plan?include_status=all`))).general_plans).toEqual([])
    expect((await get(`/${erfLpi(5)}/general-plan`)).status).toBe(404)
  })
})

describe('GET /parcels/within', () => {
  const BOX = 'min_lat=-34.9095&min_lng=17.0005&max_lat=-34.9025&max_lng=17.0045'

  it('answers every parcel intersecting the box', async () => {
    const body = await json(await get(`/within?${BOX}`))
    expect(lpis(body).sort()).toEqual([erfLpi(1), erfLpi(2), erfLpi(3), erfLpi(4), PORTION1_LPI, FARM_LPI].sort())
    expect(body).not.toHaveProperty('next_cursor')
  })

  it('pages with next_cursor until done, the pages adding up to the whole answer', async () => {
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const body = await json(await get(`/within?${BOX}&page_size=2${cursor ? `&cursor=${cursor}` : ''}`))
      expect(body.parcels.length).toBeLessThanOrEqual(2)
      seen.push(...lpis(body))
      cursor = body.next_cursor
      pages++
    } while (cursor && pages < 10)
    expect(pages).toBe(3)
    expect(seen.sort()).toEqual([erfLpi(1), erfLpi(2), erfLpi(3), erfLpi(4), PORTION1_LPI, FARM_LPI].sort())
  })

  it('400 for a foreign or mangled cursor', async () => {
    const first = await json(await get(`/within?${BOX}&page_size=2`))
    const other = await get(
      `/within?min_lat=-34.91&min_lng=17&max_lat=-34.9&max_lng=17.01&page_size=2&cursor=${first.next_cursor}`,
    )
    expect(other.status).toBe(400)
    expect((await json(other)).details[0].field).toBe('cursor')
    expect((await get(`/within?${BOX}&cursor=not-a-cursor`)).status).toBe(400)
  })

  it('400 for a box over 0.05 degrees, a reversed box and bad numbers, naming each field', async () => {
    const big = await json(await get('/within?min_lat=-34.96&min_lng=17&max_lat=-34.9&max_lng=17.06'))
    expect(big.details.map((d: { field: string }) => d.field).sort()).toEqual(['max_lat', 'max_lng'])
    const reversed = await json(await get('/within?min_lat=-34.9&min_lng=17.01&max_lat=-34.91&max_lng=17'))
    expect(reversed.details.map((d: { field: string }) => d.field).sort()).toEqual(['min_lat', 'min_lng'])
    const bad = await json(await get('/within?min_lat=x&min_lng=17&max_lat=-34.9&page_size=0'))
    expect(bad.details.map((d: { field: string }) => d.field).sort()).toEqual(['max_lng', 'min_lat', 'page_size'])
  })
})

describe('GET /parcels/coverage', () => {
  it('lists every province and layer, absent layers included, with repairs counted', async () => {
    const body = await json(await get('/coverage'))
    expect(body.coverage).toHaveLength(9 * 8)
    const row = (p: string, l: string) =>
      body.coverage.find((r: { province: string; layer: string }) => r.province === p && r.layer === l)
    expect(row('WC', 'ERF')).toMatchObject({
      present: true,
      province_name: 'WESTERN CAPE',
      dataset_version: body.dataset_version,
    })
    expect(row('WC', 'ERF').records).toBeGreaterThanOrEqual(7)
    // erf 3 is written clockwise: turned and counted as re-oriented in the manifest, not as repaired
    const erven = t.data.dataset.domain('parcels')!.layers['WC/erf']
    expect(erven.reoriented).toBeGreaterThanOrEqual(1)
    expect(row('WC', 'ERF').geometries_repaired).toBe(erven.repaired)
    // the generator's unclosed rings and repeated vertices are repairs
    const repairs = body.coverage.reduce(
      (n: number, r: { geometries_repaired: number }) => n + r.geometries_repaired,
      0,
    )
    expect(repairs).toBeGreaterThanOrEqual(1)
    expect(row('WC', 'HOLDING')).toMatchObject({ present: false, records: 0 })
    expect(row('WC', 'BEACON').records).toBeGreaterThanOrEqual(4)
    // when the build was written (its manifest), not when the server started (issue #39 item 8)
    const written = statSync(join(inject('datasetDir'), 'manifest.json')).mtime.toISOString()
    expect(row('WC', 'ERF').loaded_at).toBe(written)
  })
})

describe('POST /parcels/batch', () => {
  it('resolves points in input order with null where nothing matched', async () => {
    const res = await post({ points: [POINTS.inErf1, POINTS.inHole, POINTS.farSouth] })
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body.results.map((r: { lpi: string } | null) => r?.lpi ?? null)).toEqual([erfLpi(1), PORTION1_LPI, null])
    expect(body.found).toBe(2)
    expect(body.not_found).toBe(1)
    expect(body.message).toBe('2 of 3 points resolved')
    expect(Object.keys(body)).toEqual(['results', 'found', 'not_found', 'dataset_version', 'message'])
    expect(body.dataset_version).toMatch(/^csg-/)
    expect(res.headers.get('Content-Type')).toBe('application/json')
  })

  it(
    'answers each point with exactly the first parcel /at gives, over fixture and generated parcels, both status ' +
      'filters',
    async () => {
      // points: the fixtures' and the label points of generated parcels of every layer around the
      // first erf of the first South African township of the tiny export
      const town = (await json(await t.get('/api/v1/cities?country=SOUTH_AFRICA', key))).cities[0]
      const erf = (
        await json(await t.get(`/api/v1/plots/1?city=${encodeURIComponent(town.name)}&country=SOUTH_AFRICA`, key))
      ).plots[0]
      const box = `min_lat=${erf.latitude - 0.02}&min_lng=${erf.longitude - 0.02}&max_lat=${erf.latitude + 0.02}&max_lng=${erf.longitude + 0.02}`
      const within = await json(await get(`/within?${box}&page_size=500&include_status=all`))
      const points = [
        ...Object.values(POINTS),
        ...within.parcels
          .slice(0, 300)
          .map((p: { label_point: { latitude: number; longitude: number } }) => p.label_point),
      ]
      expect(points.length).toBeGreaterThan(50)
      for (const extra of ['', '&include_status=all']) {
        const body = await json(await post({ points, ...(extra ? { include_status: 'all' } : {}) }))
        for (const [k, p] of points.entries()) {
          const res = await at(p, extra)
          expect(body.results[k]).toEqual(res.status === 200 ? (await json(res)).parcels[0] : null)
        }
      }
    },
  )

  it('resolves LPIs to their current record; hidden or unknown ones are null', async () => {
    const body = await json(await post({ lpis: [erfLpi(1), 'C01307770000099900000', erfLpi(5)] }))
    expect(body.results.map((r: { lpi: string } | null) => r?.lpi ?? null)).toEqual([erfLpi(1), null, null])
    expect(body.results[0].work_status.code).toBe('C')
    expect(body.message).toBe('1 of 3 LPIs resolved')
    expect(body.results[0]).toEqual((await json(await get(`/${erfLpi(1)}`))).parcels[0])
    const all = await json(await post({ lpis: [erfLpi(5)], include_status: 'all' }))
    expect(all.results[0].lpi).toBe(erfLpi(5))
  })

  it('counts as one request against the rate limit', async () => {
    const limited = t.issue({ ratePerMinute: 5 })
    const res = await post({ points: Array.from({ length: 50 }, () => POINTS.inErf1) }, limited.key)
    expect(res.headers.get('RateLimit')).toMatch(/^limit=5, remaining=4, /)
  })

  it('400 for 1001 items, both lists, neither, and bad members, naming each field', async () => {
    const tooMany = await json(await post({ points: Array.from({ length: 1001 }, () => POINTS.inErf1) }))
    expect(tooMany.details.map((d: { field: string }) => d.field)).toEqual(['points'])
    expect((await json(await post({ points: [POINTS.inErf1], lpis: [erfLpi(1)] }))).details[0].field).toBe('lpis')
    expect((await json(await post({}))).details[0].field).toBe('points')
    const bad = await json(
      await post({ points: [POINTS.inErf1, { latitude: 'x', longitude: 17 }, { latitude: -34, longitude: 200 }] }),
    )
    expect(bad.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'points.1.latitude',
      'points.2.longitude',
    ])
    expect((await json(await post({ lpis: ['nope'] }))).details[0].field).toBe('lpis.0')
  })

  it('400 for an empty list, as the other batch endpoints answer', async () => {
    for (const [body, field, message] of [
      [{ points: [] }, 'points', 'send at least one point'],
      [{ lpis: [] }, 'lpis', 'send at least one LPI'],
    ] as const) {
      const res = await post(body)
      expect(res.status, field).toBe(400)
      const answer = await json(res)
      expect(answer.error).toBe('ValidationError')
      expect(answer.details).toEqual([{ field, message }])
    }
  })

  it('413 for a body over 2 MB', async () => {
    const huge = JSON.stringify({ lpis: Array.from({ length: 120_000 }, () => erfLpi(1)) })
    expect(huge.length).toBeGreaterThan(2 * 1024 * 1024)
    const res = await t.app.request('/api/v1/parcels/batch', {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json', 'Content-Length': String(huge.length) },
      body: huge,
    })
    expect(res.status).toBe(413)
    expect((await json(res)).error).toBe('PayloadTooLarge')
  })
})

describe('parcel access', () => {
  it('403 CountryNotPermitted for a Botswana-only key, ProductNotPermitted without the product', async () => {
    const bw = t.issue({ countries: ['BOTSWANA'] })
    expect((await json(await get(`/${erfLpi(1)}`, bw.key))).error).toBe('CountryNotPermitted')
    const plotsOnly = t.issue({ products: ['plots'] })
    expect((await json(await get(`/${erfLpi(1)}`, plotsOnly.key))).error).toBe('ProductNotPermitted')
    expect((await json(await post({ lpis: [erfLpi(1)] }, plotsOnly.key))).error).toBe('ProductNotPermitted')
  })

  it('documents every parcel endpoint in OpenAPI', async () => {
    const doc = await json(await t.get('/api/v1/openapi.json'))
    for (const p of [
      '/at',
      '/within',
      '/coverage',
      '/batch',
      '/by-key',
      '/{lpi}',
      '/{lpi}/geometry',
      '/{lpi}/neighbours',
      '/{lpi}/beacons',
      '/{lpi}/general-plan',
    ]) {
      const item = doc.paths[`/api/v1/parcels${p}`]
      expect(item?.get ?? item?.post, p).toBeDefined()
    }
    // the spec's path form is answered, but ambiguous beside /parcels/{lpi}/geometry: not documented
    expect(doc.paths['/api/v1/parcels/by-key/{source_key}']).toBeUndefined()
    const within = doc.paths['/api/v1/parcels/within'].get.parameters.map((x: { name: string }) => x.name)
    expect(within).toEqual(expect.arrayContaining(['cursor', 'page_size', 'min_lat', 'min_lng', 'max_lat', 'max_lng']))
  })
})
