import { describe, expect, it } from 'vitest'
import { karneyDistanceM } from '../src/geo/geodesic.js'
import { JsonBytes } from '../src/http/json-bytes.js'
import {
  BORDER_QUERY,
  destination,
  FIXTURE_ERVEN,
  FIXTURE_PLOTS,
  GABORONE_A,
  KALAHARI,
  MAUN_A,
  ODD_NUMBER,
  ODD_PLOT,
  RADIUS_CENTRE,
  RING,
} from './fixtures/plot-fixtures.js'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const bwOnly = t.issue({ countries: ['BOTSWANA'] }).key
const gaboroneOnly = t.issue({ countries: ['BOTSWANA'], cities: { BOTSWANA: ['GABORONE'] } }).key

const search = (q: string, k = key) => t.get(`/api/v1/plots/search-given-coordinates?${q}`, k)
const reverse = (q: string, k = key) => t.get(`/api/v1/plots/reverse?${q}`, k)
const at = ([lon, lat]: [number, number]) => `latitude=${lat}&longitude=${lon}`

describe('GET /plots/search-given-coordinates', () => {
  it('includes a plot at 499.9 m and excludes one at 500.1 m (default radius 500)', async () => {
    const body = await json(await search(at(RADIUS_CENTRE)))
    const numbers = body.plots.map((p: { plot_number: string }) => p.plot_number)
    expect(numbers).toContain('R-IN')
    expect(numbers).not.toContain('R-OUT')
    const inside = body.plots.find((p: { plot_number: string }) => p.plot_number === 'R-IN')
    expect(inside.distance_meters).toBeCloseTo(499.9, 2)
  })

  it('returns nearest first with geodesic distances that match GeographicLib', async () => {
    const body = await json(await search(`${at(RADIUS_CENTRE)}&radius=1000`))
    expect(body.plots.map((p: { plot_number: string }) => p.plot_number)).toEqual([
      'RING-1',
      'RING-2',
      'RING-3',
      'RING-4',
      'RING-5',
      'RING-6',
      'R-IN',
      'R-OUT',
    ])
    for (const p of body.plots) {
      expect(p.distance_meters).toBeCloseTo(
        karneyDistanceM(RADIUS_CENTRE[0], RADIUS_CENTRE[1], p.longitude, p.latitude),
        1,
      )
    }
    expect(body.message).toMatch(/8 plots within 1000 m/)
  })

  it('caps the answer at limit, keeping the nearest', async () => {
    const body = await json(await search(`${at(RADIUS_CENTRE)}&limit=3`))
    expect(body.plots.map((p: { plot_number: string }) => p.plot_number)).toEqual(['RING-1', 'RING-2', 'RING-3'])
  })

  it('reports 0 m for a plot on the point, and omits province on Botswana plots', async () => {
    const body = await json(await search(`${at(RING[0])}&radius=1`))
    expect(body.plots).toHaveLength(1)
    expect(body.plots[0]).toEqual({
      id: expect.any(Number),
      plot_number: 'RING-1',
      latitude: Math.round(RING[0][1] * 1e7) / 1e7,
      longitude: Math.round(RING[0][0] * 1e7) / 1e7,
      city: 'MAUN',
      country: 'BOTSWANA',
      parcel_identifier_type: 'PLOT_NUMBER',
      district: 'North-West',
      distance_meters: 0,
    })
  })

  it('answers 200 with an empty list and a no-match message when nothing is near', async () => {
    const res = await search(at(KALAHARI))
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body.plots).toEqual([])
    expect(body.message).toMatch(/No plots found/)
  })

  it('accepts country in any case and rejects an unknown one', async () => {
    expect((await search(`${at(RADIUS_CENTRE)}&country=botswana`)).status).toBe(200)
    const res = await search(`${at(RADIUS_CENTRE)}&country=NAMIBIA`)
    expect(res.status).toBe(400)
    expect((await json(res)).details).toEqual([{ field: 'country', message: expect.stringContaining('BOTSWANA') }])
  })

  it.each([
    ['latitude missing', 'longitude=21.2', ['latitude']],
    ['non-numeric', 'latitude=abc&longitude=21.2', ['latitude']],
    ['latitude out of range', 'latitude=-90.5&longitude=21.2', ['latitude']],
    ['radius 0', `${at(RADIUS_CENTRE)}&radius=0`, ['radius']],
    ['radius 50001', `${at(RADIUS_CENTRE)}&radius=50001`, ['radius']],
    ['radius not whole', `${at(RADIUS_CENTRE)}&radius=1.5`, ['radius']],
    ['limit 0 and 501', `${at(RADIUS_CENTRE)}&limit=501&radius=-1`, ['limit', 'radius']],
    ['empty values', 'latitude=&longitude=%20&limit=', ['latitude', 'limit', 'longitude']],
    ['hex and infinity', 'latitude=0x10&longitude=Infinity', ['latitude', 'longitude']],
  ])('400 ValidationError for %s', async (_name, q, fields) => {
    const res = await search(q)
    expect(res.status).toBe(400)
    const body = await json(res)
    expect(body.error).toBe('ValidationError')
    expect(body.details.map((d: { field: string }) => d.field).sort()).toEqual(fields)
  })

  it('accepts the extreme values 1 and 50000 m and limit 500', async () => {
    expect((await search(`${at(RADIUS_CENTRE)}&radius=1&limit=1`)).status).toBe(200)
    const body = await json(await search(`latitude=-24.65&longitude=25.91&radius=50000&limit=500`))
    expect(body.plots).toHaveLength(500)
    const d = body.plots.map((p: { distance_meters: number }) => p.distance_meters)
    expect([...d].sort((a, b) => a - b)).toEqual(d)
  })

  it('a town-scoped key sees only its towns', async () => {
    expect((await json(await search(at(RADIUS_CENTRE)))).plots.length).toBeGreaterThan(0)
    expect((await json(await search(at(RADIUS_CENTRE), gaboroneOnly))).plots).toEqual([])
    const near = await json(await search(`${at(GABORONE_A)}&radius=2000`, gaboroneOnly))
    expect(near.plots.length).toBeGreaterThan(0)
    expect(new Set(near.plots.map((p: { city: string }) => p.city))).toEqual(new Set(['GABORONE']))
  })

  it('403 CountryNotPermitted for a country outside the key', async () => {
    const res = await search(`${at(RADIUS_CENTRE)}&country=SOUTH_AFRICA`, bwOnly)
    expect(res.status).toBe(403)
    expect((await json(res)).error).toBe('CountryNotPermitted')
  })
})

describe('GET /plots/reverse', () => {
  it('at a pole: no plot, at once', async () => {
    for (const q of ['latitude=90&longitude=0', 'latitude=-90&longitude=0', 'latitude=-89.99&longitude=25']) {
      const res = await t.get(`/api/v1/plots/reverse?${q}`, key)
      expect(res.status).toBe(200)
      expect((await json(res)).plots).toEqual([])
    }
  })

  it('equals a 100 km radius search cut to one, from points 50 m to 90 km from plots of both countries', () => {
    // the reverse walk runs a 2 km reach first, then 100 km, and settles the closer country first
    const q = t.data.services.plots!
    const both = ['BOTSWANA', 'SOUTH_AFRICA'] as const
    const sites = [...FIXTURE_PLOTS, ...FIXTURE_ERVEN].map((p) => [p.lon, p.lat] as [number, number])
    let near = 0
    let far = 0
    let none = 0
    sites.forEach((site, s) => {
      for (const d of [50, 900, 1_900, 2_100, 5_000, 30_000, 60_000, 90_000]) {
        for (let b = 0; b < 360; b += 45) {
          const [lon, lat] = destination(...site, b + s * 7, d)
          const got = q.reverse(lon, lat, 100_000, [...both], {}).plots()
          const want = q.radius(lon, lat, 100_000, 1, [...both], {}).plots()
          expect(got.map((p) => p.id)).toEqual(want.map((p) => p.id))
          if (!got.length) none++
          else if (got[0].distance_meters! <= 2000) near++
          else far++
        }
      }
    })
    for (const b of [0, 90, 180, 270]) {
      const [lon, lat] = destination(...KALAHARI, b, 3_000)
      expect(q.reverse(lon, lat, 100_000, [...both], {}).plots()).toEqual([])
      expect(q.radius(lon, lat, 100_000, 1, [...both], {}).plots()).toEqual([])
      none++
    }
    expect(near).toBeGreaterThan(100)
    expect(far).toBeGreaterThan(100)
    expect(none).toBe(4)
  })

  it('finds the nearest plot across the Botswana-South Africa border when country is omitted', async () => {
    const body = await json(await reverse(at(BORDER_QUERY)))
    expect(body.plots).toHaveLength(1)
    expect(body.plots[0]).toMatchObject({ plot_number: '990002', country: 'BOTSWANA', city: 'TSABONG' })
    expect(body.plots[0].distance_meters).toBeCloseTo(
      karneyDistanceM(BORDER_QUERY[0], BORDER_QUERY[1], 24.292, -25.7),
      1,
    )
  })

  it('stays in the asked country', async () => {
    const body = await json(await reverse(`${at(BORDER_QUERY)}&country=south_africa`))
    expect(body.plots[0]).toMatchObject({
      plot_number: '55',
      country: 'SOUTH_AFRICA',
      city: 'BRAY',
      province: 'NORTH WEST',
      parcel_identifier_type: 'ERF_NUMBER',
    })
    expect(body.plots[0].district).toBeUndefined()
  })

  it('widens past the first rings: a plot tens of km away is still found', async () => {
    // 40 km north of the ring centre there is nothing closer than the fixture ring
    const body = await json(await reverse('latitude=-18.85&longitude=21.2&country=BOTSWANA'))
    expect(body.plots[0].plot_number).toMatch(/^RING-|^R-/)
    expect(body.plots[0].distance_meters).toBeGreaterThan(30_000)
  })

  it('answers an empty list beyond 100 km (the middle of the Kalahari)', async () => {
    const res = await reverse(at(KALAHARI))
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body.plots).toEqual([])
    expect(body.message).toMatch(/No plot found within 100 km/)
  })

  it('a town-scoped key gets the nearest plot of its towns only', async () => {
    const body = await json(await reverse(at(MAUN_A), gaboroneOnly))
    expect(body.plots).toEqual([])
    const g = await json(await reverse(at(GABORONE_A), gaboroneOnly))
    expect(g.plots[0].city).toBe('GABORONE')
  })

  it('400 for missing coordinates, naming both', async () => {
    const body = await json(await reverse(''))
    expect(body.details.map((d: { field: string }) => d.field).sort()).toEqual(['latitude', 'longitude'])
  })
})

describe('the coordinate answers written as JSON text', () => {
  it('are byte-equal to JSON.stringify of the plots, over seeded radius and reverse searches', () => {
    const q = t.data.services.plots!
    const both = ['BOTSWANA', 'SOUTH_AFRICA'] as const
    const sites = [...FIXTURE_PLOTS, ...FIXTURE_ERVEN].map((p) => [p.lon, p.lat] as [number, number])
    let seed = 20261124
    const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32
    const writer = new JsonBytes(1024)
    let plots = 0
    const towns = new Set<string>()
    for (let k = 0; k < 400; k++) {
      const [lon, lat] = destination(...sites[k % sites.length], rand() * 360, rand() * 40_000)
      for (const f of [q.radius(lon, lat, 5_000, 500, [...both], {}), q.reverse(lon, lat, 100_000, [...both], {})]) {
        const objects = f.plots()
        f.write(writer.start())
        expect(writer.text()).toBe(JSON.stringify(objects))
        expect(f.length).toBe(objects.length)
        for (let i = 0; i < f.length; i++) expect(f.distanceM(i)).toBe(objects[i].distance_meters)
        plots += objects.length
        for (const p of objects) towns.add(`${p.country} ${p.city}`)
      }
    }
    // the searches met plots of both countries and many towns, not a handful
    expect(plots).toBeGreaterThan(2000)
    expect([...towns].some((t) => t.startsWith('BOTSWANA'))).toBe(true)
    expect([...towns].some((t) => t.startsWith('SOUTH_AFRICA'))).toBe(true)
    expect(towns.size).toBeGreaterThan(10)
  })

  it('merge both countries nearest first where a search crosses the border, and write an empty answer as []', () => {
    const q = t.data.services.plots!
    const both = ['BOTSWANA', 'SOUTH_AFRICA'] as const
    const writer = new JsonBytes(1024)
    // from the border near Ramatlabama, far enough to reach Gaborone and Mahikeng
    const f = q.radius(25.6, -25.65, 300_000, 5000, [...both], {})
    const plots = f.plots()
    f.write(writer.start())
    expect(writer.text()).toBe(JSON.stringify(plots))
    expect(new Set(plots.map((p) => p.country))).toEqual(new Set(both))
    // nearest first (by the exact distance; the 2-decimal figures can tie in either id order)
    for (let k = 1; k < plots.length; k++)
      expect(plots[k - 1].distance_meters!).toBeLessThanOrEqual(plots[k].distance_meters!)
    const none = q.radius(-40, 0, 1000, 100, [...both], {})
    none.write(writer.start())
    expect(writer.text()).toBe('[]')
  })

  it('escape a plot number as JSON does (quote, backslash, non-ASCII), over HTTP', async () => {
    for (const path of [
      `/api/v1/plots/reverse?${at(ODD_PLOT)}`,
      `/api/v1/plots/search-given-coordinates?${at(ODD_PLOT)}&radius=1`,
    ]) {
      const res = await t.get(path, key)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      const text = await res.text()
      expect(text).toContain(`"plot_number":${JSON.stringify(ODD_NUMBER)}`)
      const body = JSON.parse(text)
      expect(JSON.stringify(body)).toBe(text)
      expect(body.plots).toHaveLength(1)
      expect(body.plots[0]).toMatchObject({ plot_number: ODD_NUMBER, city: 'MAUN', distance_meters: 0 })
    }
  })
})

describe('GET /plots/{plot_number}', () => {
  it('returns the same number in two towns and twice in one town, without distance', async () => {
    const body = await json(await t.get('/api/v1/plots/990001', key))
    expect(body.plots).toHaveLength(3)
    expect(body.plots.map((p: { city: string }) => p.city).sort()).toEqual(['GABORONE', 'GABORONE', 'MAUN'])
    for (const p of body.plots) expect(p).not.toHaveProperty('distance_meters')
    const gab = await json(await t.get('/api/v1/plots/990001?city=gaborone', key))
    expect(gab.plots).toHaveLength(2)
    const [a, b] = gab.plots
    expect(karneyDistanceM(a.longitude, a.latitude, b.longitude, b.latitude)).toBeGreaterThan(5000)
  })

  it('says "2 of 3" when limit cuts the list, and neither message reads as the total (issue #39 item 8)', async () => {
    const cut = await json(await t.get('/api/v1/plots/990001?limit=2', key))
    expect(cut.plots).toHaveLength(2)
    expect(cut.message).toMatch(/^2 of 3 plots numbered 990001 \(the first 2: `limit` takes up to 500/)
    const one = await json(await t.get('/api/v1/plots/990001?limit=1&city=gaborone', key))
    expect(one.message).toMatch(/^1 of 2 plots numbered 990001 in GABORONE/)
    const whole = await json(await t.get('/api/v1/plots/990001?limit=3', key))
    expect(whole.message).toBe('3 plots numbered 990001')
  })

  it('a Botswana-only key naming a South African township: 403 CountryNotPermitted, not an empty 200', async () => {
    const res = await t.get('/api/v1/plots/7?city=Doringkloof%20Ext%2097', bwOnly)
    expect(res.status).toBe(403)
    const body = await json(res)
    expect(body.error).toBe('CountryNotPermitted')
    expect(body.message).toMatch(/DORINGKLOOF EXT 97 is in SOUTH_AFRICA/)
    // a town that exists nowhere is still "no such plot"
    expect((await t.get('/api/v1/plots/7?city=Atlantis', bwOnly)).status).toBe(200)
  })

  it('a blank plot number is a 400', async () => {
    for (const n of ['%20', '%20%20%09']) {
      const res = await t.get(`/api/v1/plots/${n}`, key)
      expect(res.status, n).toBe(400)
      expect((await json(res)).error).toBe('ValidationError')
    }
  })

  it('separates one erf number in two same-name townships of different provinces', async () => {
    const body = await json(await t.get('/api/v1/plots/7?city=Doringkloof%20Ext%2097', key))
    expect(body.plots).toHaveLength(2)
    expect(body.plots.map((p: { province: string }) => p.province).sort()).toEqual(['GAUTENG', 'WESTERN CAPE'])
    for (const p of body.plots) {
      expect(p.parcel_identifier_type).toBe('ERF_NUMBER')
      expect(p).not.toHaveProperty('district')
    }
  })

  it('finds a portion 12/3 written encoded or plain, apart from erf 12', async () => {
    for (const path of [
      '/api/v1/plots/12%2F3?city=DORINGKLOOF%20EXT%2097',
      '/api/v1/plots/12/3?city=doringkloof%20ext%2097',
    ]) {
      const body = await json(await t.get(path, key))
      expect(
        body.plots.map((p: { plot_number: string }) => p.plot_number),
        path,
      ).toEqual(['12/3'])
    }
  })

  it('matches case-insensitively', async () => {
    expect(
      (await json(await t.get('/api/v1/plots/r-in', key))).plots.map((p: { plot_number: string }) => p.plot_number),
    ).toEqual(['R-IN'])
  })

  it('answers 200 with an empty list for an unknown number, odd characters included', async () => {
    for (const n of ['no-such-plot', "'%3B%20DROP%20TABLE%20plot%3B--", '%25%25%5F', '%E2%98%83']) {
      const res = await t.get(`/api/v1/plots/${n}`, key)
      expect(res.status, n).toBe(200)
      const body = await json(res)
      expect(body.plots).toEqual([])
      expect(body.message).toMatch(/No plot numbered/)
    }
  })

  it('says of a typo of a sibling route that no such plot exists, and lists the lookup routes', async () => {
    const res = await t.get('/api/v1/plots/revers?city=maun', key)
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body.plots).toEqual([])
    expect(body.message).toMatch(/^No plot numbered revers found in MAUN; /)
    for (const route of ['/plots/search-given-coordinates', '/plots/reverse', '/plots/{plot_number}', '/cities'])
      expect(body.message).toContain(route)
    // a number that exists says nothing of the routes
    expect((await json(await t.get('/api/v1/plots/990001', key))).message).not.toContain('/plots/reverse')
  })

  it('400 for a number longer than 64 characters, and for a bad limit', async () => {
    const res = await t.get(`/api/v1/plots/${'9'.repeat(65)}?limit=0`, key)
    expect(res.status).toBe(400)
    expect((await json(res)).details.map((d: { field: string }) => d.field).sort()).toEqual(['limit', 'plot_number'])
  })

  it('honours limit and country', async () => {
    expect((await json(await t.get('/api/v1/plots/990001?limit=1', key))).plots).toHaveLength(1)
    expect((await json(await t.get('/api/v1/plots/990001?country=SOUTH_AFRICA', key))).plots).toEqual([])
  })

  it('a Botswana-only key never sees erven, and gets 403 asking for South Africa', async () => {
    expect(
      (await json(await t.get('/api/v1/plots/7', bwOnly))).plots.every(
        (p: { country: string }) => p.country === 'BOTSWANA',
      ),
    ).toBe(true)
    expect((await t.get('/api/v1/plots/7?country=SOUTH_AFRICA', bwOnly)).status).toBe(403)
  })

  it('a town-scoped key: other towns are 403 by name and invisible without one', async () => {
    expect((await json(await t.get('/api/v1/plots/990001?city=MAUN', gaboroneOnly))).error).toBe('CityNotPermitted')
    const body = await json(await t.get('/api/v1/plots/990001', gaboroneOnly))
    expect(body.plots.map((p: { city: string }) => p.city)).toEqual(['GABORONE', 'GABORONE'])
  })
})

describe('GET /cities', () => {
  it('lists the 26 Botswana towns by default, each with district and plot count', async () => {
    const body = await json(await t.get('/api/v1/cities', key))
    expect(body.cities).toHaveLength(26)
    for (const c of body.cities) {
      expect(c.country).toBe('BOTSWANA')
      expect(c.name).toBe(c.name.toUpperCase())
      expect(typeof c.district).toBe('string')
      expect(c.plot_count).toBeGreaterThan(0)
    }
    expect(body.cities.map((c: { name: string }) => c.name)).toContain('SELEBI-PHIKWE')
    expect(body.message).toBe('26 cities in BOTSWANA')
  })

  it('lists townships for SOUTH_AFRICA, one entry per province of a repeated name; ALL lists both', async () => {
    const sa = await json(await t.get('/api/v1/cities?country=south_africa', key))
    const dk = sa.cities.filter((c: { name: string }) => c.name === 'DORINGKLOOF EXT 97')
    expect(dk.map((c: { province: string; plot_count: number }) => [c.province, c.plot_count]).sort()).toEqual([
      ['GAUTENG', 3],
      ['WESTERN CAPE', 1],
    ])
    const all = await json(await t.get('/api/v1/cities?country=ALL', key))
    expect(all.cities.length).toBe(26 + sa.cities.length)
  })

  it('scopes to the key: town-scoped keys see their towns; other countries are 403', async () => {
    const body = await json(await t.get('/api/v1/cities', gaboroneOnly))
    expect(body.cities.map((c: { name: string }) => c.name)).toEqual(['GABORONE'])
    expect((await t.get('/api/v1/cities?country=SOUTH_AFRICA', bwOnly)).status).toBe(403)
    expect((await t.get('/api/v1/cities?country=MARS', key)).status).toBe(400)
  })
})
