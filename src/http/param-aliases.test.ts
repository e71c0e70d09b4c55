import { z } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { AliasPlan, canonicalUrl, detailsAsSent, readBbox } from './param-aliases.js'

const s = z.string().optional()
const planOf = (...names: string[]) => AliasPlan.of(z.object(Object.fromEntries(names.map((n) => [n, s]))))

describe('the plan of a route', () => {
  it('aliases the other spelling of each idea the route has, either way', () => {
    expect([...planOf('latitude', 'longitude', 'radius')!.renames]).toEqual([
      ['lat', 'latitude'],
      ['lon', 'longitude'],
      ['radius_m', 'radius'],
    ])
    expect([...planOf('lat', 'lon', 'radius_m')!.renames]).toEqual([
      ['latitude', 'lat'],
      ['longitude', 'lon'],
      ['radius', 'radius_m'],
    ])
  })

  it('aliases a page size only on a paged list (with a cursor)', () => {
    expect(planOf('limit')).toBeNull()
    expect([...planOf('limit', 'cursor')!.renames]).toEqual([['page_size', 'limit']])
    expect([...planOf('page_size', 'cursor')!.renames]).toEqual([['limit', 'page_size']])
  })

  it('aliases bbox to a box of four names, not where bbox is the route own', () => {
    expect(planOf('min_lat', 'min_lng', 'max_lat', 'max_lng')!.box).toEqual([
      'min_lng',
      'min_lat',
      'max_lng',
      'max_lat',
    ])
    expect(planOf('north', 'south', 'east', 'west')!.box).toEqual(['west', 'south', 'east', 'north'])
    expect(planOf('bbox', 'limit')).toBeNull()
    expect(planOf('north', 'south', 'east')).toBeNull()
    // both spellings of one idea declared: neither is an alias
    expect(planOf('lat', 'latitude')).toBeNull()
    expect(AliasPlan.of(undefined)).toBeNull()
  })
})

describe('applying a plan', () => {
  const plan = planOf('latitude', 'longitude', 'min_lat', 'min_lng', 'max_lat', 'max_lng')!

  it('answers null for a query without an alias', () => {
    expect(plan.apply({ latitude: '1', longitude: '2', other: 'x' })).toBeNull()
  })

  it('renames aliases, reads bbox into its four, and records what each came as', () => {
    const a = plan.apply({ lat: '1', longitude: '2', bbox: ' 17 ,-34.9, 17.01,-34.8', x: 'y' })!
    expect(a.query).toEqual({
      latitude: '1',
      longitude: '2',
      x: 'y',
      min_lng: '17',
      min_lat: '-34.9',
      max_lng: '17.01',
      max_lat: '-34.8',
    })
    expect(a.errors).toEqual([])
    expect(Object.fromEntries(a.sentAs)).toEqual({
      latitude: 'lat',
      min_lng: 'bbox',
      min_lat: 'bbox',
      max_lng: 'bbox',
      max_lat: 'bbox',
    })
  })

  it('accepts both spellings with one value, and names both when they differ', () => {
    expect(plan.apply({ lat: '1.50', latitude: '1.5' })!.errors).toEqual([])
    expect(plan.apply({ lat: 'x', latitude: 'x' })!.errors).toEqual([])
    const e = plan.apply({ lat: '2', latitude: '1' })!.errors
    expect(e.map((d) => d.field)).toEqual(['latitude', 'lat'])
    expect(e[0].message).toBe(
      'lat is another spelling of latitude, and the two differ (latitude="1", lat="2"): send one of them',
    )
    const b = plan.apply({ bbox: '1,2,3,4', min_lat: '2', max_lat: '5' })!
    expect(b.errors.map((d) => d.field)).toEqual(['max_lat', 'bbox'])
  })

  it('names bbox for a malformed box, and the four it stood for', () => {
    const a = plan.apply({ bbox: '1,2,3' })!
    expect(a.errors).toEqual([{ field: 'bbox', message: 'bbox must be four numbers minlon,minlat,maxlon,maxlat' }])
    expect(new Set(a.sentAs.values())).toEqual(new Set(['bbox']))
  })
})

describe('readBbox', () => {
  it.each([
    ['1,2,3,4', null],
    ['-180,-90,180,90', null],
    ['1,2,1,2', null],
    ['1,2,3', 'bbox must be four numbers minlon,minlat,maxlon,maxlat'],
    ['1,2,3,x', 'bbox must be four numbers minlon,minlat,maxlon,maxlat'],
    ['1,2,3,Infinity', 'bbox must be four numbers minlon,minlat,maxlon,maxlat'],
    ['1,2,3,1e999', 'bbox must be four numbers minlon,minlat,maxlon,maxlat'],
    ['', 'bbox must be four numbers minlon,minlat,maxlon,maxlat'],
    ['-181,0,1,1', 'bbox longitudes must be within -180..180 and latitudes within -90..90'],
    ['0,0,1,91', 'bbox longitudes must be within -180..180 and latitudes within -90..90'],
    ['2,0,1,1', 'bbox minimums must not be above maximums (minlon,minlat,maxlon,maxlat)'],
    ['0,2,1,1', 'bbox minimums must not be above maximums (minlon,minlat,maxlon,maxlat)'],
  ])('%s', (raw, error) => {
    const r = readBbox(raw)
    if (error === null) expect(r).toEqual({ parts: raw.split(',') })
    else expect(r).toEqual({ error })
  })
})

describe('the canonical URL of an aliased request', () => {
  const plan = planOf('latitude', 'longitude', 'west', 'south', 'east', 'north')!
  const canon = (url: string) => {
    const q = Object.fromEntries(new URL(url, 'http://h').searchParams)
    return canonicalUrl(url, plan, plan.apply(q)!)
  }

  it('renames aliases where they stand and writes bbox as its four', () => {
    expect(canon('/x?lat=1&lon=2&format=geojson')).toBe('/x?latitude=1&longitude=2&format=geojson')
    expect(canon('/h?bbox=1,2,3,4&classes=a')).toBe('/h?west=1&south=2&east=3&north=4&classes=a')
  })

  it('drops an alias whose canonical name was sent too with the same value', () => {
    expect(canon('/x?latitude=1&lat=1.0&lon=2')).toBe('/x?latitude=1&longitude=2')
    expect(canon('/h?west=1&bbox=1,2,3,4')).toBe('/h?west=1&south=2&east=3&north=4')
  })
})

describe('details as sent', () => {
  it('names the alias a failing value came under, once per field', () => {
    const sentAs = new Map([
      ['latitude', 'lat'],
      ['min_lat', 'bbox'],
      ['max_lat', 'bbox'],
    ])
    expect(
      detailsAsSent(
        [
          { field: 'latitude', message: 'latitude must be a number' },
          { field: 'min_lat', message: 'min_lat must not be greater than max_lat' },
          { field: 'max_lat', message: 'the box may span at most 0.05 degrees of latitude' },
          { field: 'limit', message: 'limit must be a whole number' },
        ],
        sentAs,
      ),
    ).toEqual([
      { field: 'lat', message: 'latitude must be a number (sent as lat)' },
      { field: 'bbox', message: 'min_lat must not be greater than max_lat (sent as bbox)' },
      { field: 'limit', message: 'limit must be a whole number' },
    ])
  })
})
