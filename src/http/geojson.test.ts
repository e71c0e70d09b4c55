import { describe, expect, it } from 'vitest'
import { fastObjectParser } from './fast-params.js'
import { z } from '@hono/zod-openapi'
import {
  chooseGeoJson,
  feature,
  featureCollection,
  flatProperties,
  FormatParam,
  pageLinks,
  point,
  prefersGeoJson,
  without,
} from './geojson.js'

describe('prefersGeoJson', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['application/json', false],
    ['application/geo+json', true],
    ['APPLICATION/GEO+JSON', true],
    ['application/geo+json;q=0', false],
    ['application/geo+json; charset=utf-8', true],
    // a tie answers the default
    ['application/geo+json, application/json', false],
    ['application/json, application/geo+json', false],
    ['application/geo+json, */*', false],
    ['application/geo+json, application/*', false],
    // ranked above
    ['application/geo+json, application/json;q=0.9', true],
    ['application/json;q=0.5, application/geo+json', true],
    ['application/geo+json, */*;q=0.1', true],
    ['text/html, application/geo+json;q=0.8', true],
    // ranked below
    ['application/geo+json;q=0.5, */*', false],
    ['application/geo+json;q=0.5, application/json', false],
    // a malformed weight: not acceptable
    ['application/geo+json;q=abc', false],
    ['application/geo+json;q=2', false],
    ['application/geo+json;q=1.2.3', false],
    // a parameter ending in q= is not the weight
    ['application/geo+json;aq=0', true],
  ])('%s -> %s', (accept, geo) => {
    expect(prefersGeoJson(accept)).toBe(geo)
  })
})

describe('chooseGeoJson', () => {
  it('takes format over Accept, and Accept only without format', () => {
    expect(chooseGeoJson('geojson', 'application/json')).toBe(true)
    expect(chooseGeoJson('json', 'application/geo+json')).toBe(false)
    expect(chooseGeoJson(undefined, 'application/geo+json')).toBe(true)
    expect(chooseGeoJson(undefined, undefined)).toBe(false)
  })
})

describe('FormatParam', () => {
  const schema = z.object({ format: FormatParam })
  const fast = fastObjectParser(schema)!

  it('accepts json and geojson in any case, lower-cased, on both paths', () => {
    for (const [raw, value] of [
      ['json', 'json'],
      ['GeoJSON', 'geojson'],
      [' geojson ', 'geojson'],
      ['JSON', 'json'],
    ]) {
      expect(schema.parse({ format: raw })).toEqual({ format: value })
      expect(fast({ format: raw })).toEqual({ format: value })
    }
    expect(schema.parse({})).toEqual({})
    expect(fast({})).toEqual({})
  })

  it('refuses anything else, naming the accepted values; the fast path defers to zod', () => {
    for (const raw of ['xml', '', 'geo json', 'wkt', 'geojsonl']) {
      const r = schema.safeParse({ format: raw })
      expect(r.success, raw).toBe(false)
      expect(r.error?.issues[0].message).toBe('format must be one of json, geojson (case-insensitive)')
      expect(fast({ format: raw }), raw).toBeUndefined()
    }
  })
})

describe('the FeatureCollection writer', () => {
  it('makes a Feature with the id only when given, and foreign members', () => {
    expect(feature({ a: 1 }, point(17, -34))).toEqual({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [17, -34] },
      properties: { a: 1 },
    })
    expect(Object.keys(feature({}, null, 'X', { simplified_m: 8 }))).toEqual([
      'type',
      'id',
      'geometry',
      'properties',
      'simplified_m',
    ])
    expect(feature({}, null, 0).id).toBe(0)
  })

  it('drops one field, keeping the order of the others', () => {
    expect(Object.keys(without({ a: 1, geometry: {}, b: 2 }, 'geometry'))).toEqual(['a', 'b'])
  })

  it('puts type and features first, then every envelope field but the list, in order', () => {
    const f = feature({ id: 1 }, null, 1)
    const fc = featureCollection(
      { parcels: [{ id: 1 }], message: 'm', next_cursor: 'c', dataset_version: 'v' },
      'parcels',
      [f],
    )
    expect(Object.keys(fc)).toEqual(['type', 'features', 'message', 'next_cursor', 'dataset_version'])
    expect(fc).toEqual({
      type: 'FeatureCollection',
      features: [f],
      message: 'm',
      next_cursor: 'c',
      dataset_version: 'v',
    })
  })

  it("puts a page's numberReturned and links after features", () => {
    const links = [{ rel: 'self' as const, href: 'http://h/x?format=geojson', type: 'application/geo+json' as const }]
    const fc = featureCollection({ list: [], message: 'm' }, 'list', [feature({}, null, 1)], links)
    expect(Object.keys(fc)).toEqual(['type', 'features', 'numberReturned', 'links', 'message'])
    expect(fc.numberReturned).toBe(1)
    expect(fc.links).toBe(links)
  })

  it('refuses an envelope field named as a GeoJSON member', () => {
    for (const k of ['type', 'features', 'bbox', 'geometry', 'properties', 'links', 'numberReturned']) {
      expect(() => featureCollection({ list: [], [k]: 1 }, 'list', []), k).toThrow(/GeoJSON member/)
    }
  })
})

describe('flat properties for GIS tools', () => {
  it('flattens nested objects in place and names an id that is not the Feature id record_id', () => {
    const record = {
      id: 17646,
      lpi: 'T0IR00010000001800001',
      legal_status: { code: 'R', label: 'Registered' },
      extent_sqm: 139.8,
      label_point: { latitude: -26.17, longitude: 27.75 },
      bbox: [1, 2, 3, 4],
      deep: { a: { b: 1 } },
    }
    const props = feature(record, null, record.lpi).properties
    expect(Object.keys(props)).toEqual([
      'record_id',
      'lpi',
      'legal_status_code',
      'legal_status_label',
      'extent_sqm',
      'label_point_latitude',
      'label_point_longitude',
      'bbox',
      'deep_a_b',
    ])
    expect(props).toMatchObject({ record_id: 17646, legal_status_code: 'R', label_point_longitude: 27.75, deep_a_b: 1 })
    expect(props.bbox).toEqual([1, 2, 3, 4])
  })

  it('keeps an id that is the Feature id, and a flat record as the same object', () => {
    const plot = { id: 7, plot_number: '12', city: 'GABORONE' }
    expect(flatProperties(plot, 7)).toBe(plot)
    expect(flatProperties({ id: 7 }, 8)).toEqual({ record_id: 7 })
    expect(flatProperties({ id: 7 })).toEqual({ record_id: 7 })
  })
})

describe('the links of a GeoJSON page', () => {
  const ctx = (url: string) => ({ req: { url }, env: undefined }) as never
  const none = new Set<string>()

  it('gives self and next as absolute GeoJSON URLs with the parameters as sent', () => {
    const links = pageLinks(ctx('http://api.test:8080/api/v1/parcels/within?bbox=1,2,3,4&limit=2'), none, 'abc=')
    expect(links).toEqual([
      {
        rel: 'self',
        href: 'http://api.test:8080/api/v1/parcels/within?bbox=1,2,3,4&limit=2&format=geojson',
        type: 'application/geo+json',
      },
      {
        rel: 'next',
        href: 'http://api.test:8080/api/v1/parcels/within?bbox=1,2,3,4&limit=2&format=geojson&cursor=abc%3D',
        type: 'application/geo+json',
      },
    ])
  })

  it('replaces the cursor and format sent, keeps the self cursor, and has no next on the last page', () => {
    const links = pageLinks(ctx('https://h/api/v1/x?format=GEOJSON&cursor=4&limit=2&cursor=9'), none, undefined)
    expect(links).toEqual([
      { rel: 'self', href: 'https://h/api/v1/x?limit=2&format=geojson&cursor=4', type: 'application/geo+json' },
    ])
    const next = pageLinks(ctx('http://h/api/v1/x?cursor=4'), none, 6)
    expect(next.map((l) => l.href)).toEqual([
      'http://h/api/v1/x?format=geojson&cursor=4',
      'http://h/api/v1/x?format=geojson&cursor=6',
    ])
  })
})
