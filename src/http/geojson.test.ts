import { describe, expect, it } from 'vitest'
import { fastObjectParser } from './fast-params.js'
import { z } from '@hono/zod-openapi'
import { chooseGeoJson, feature, featureCollection, FormatParam, point, prefersGeoJson, without } from './geojson.js'

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

  it('refuses an envelope field named as a GeoJSON member', () => {
    for (const k of ['type', 'features', 'bbox', 'geometry', 'properties']) {
      expect(() => featureCollection({ list: [], [k]: 1 }, 'list', []), k).toThrow(/GeoJSON member/)
    }
  })
})
