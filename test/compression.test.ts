/**
 * Compression of large JSON answers (src/http/compress.ts, docs/api.md "HTTP conventions"):
 * negotiated from `Accept-Encoding`, small answers untouched, the ETag naming the coding.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { tileAt } from '../src/geo/tiles.js'
import { makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const near = '/api/v1/plots/search-given-coordinates?latitude=-24.6545&longitude=25.9086&radius=50000&limit=500'
const raw = async (res: Response) => Buffer.from(await res.arrayBuffer())

describe('compression', () => {
  it('answers a large JSON body in the coding Accept-Encoding asks for, equal once decoded', async () => {
    const plain = await t.get(near, key)
    const identity = await raw(plain)
    expect(identity.byteLength).toBeGreaterThan(1024)
    expect(plain.headers.get('Content-Encoding')).toBeNull()
    expect(plain.headers.get('Vary')).toBe('X-API-KEY, Accept, Accept-Encoding')
    for (const [accept, coding, decode] of [
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
      ['br;q=0.5, gzip', 'gzip', gunzipSync],
    ] as const) {
      const res = await t.get(near, key, { 'Accept-Encoding': accept })
      expect(res.headers.get('Content-Encoding'), accept).toBe(coding)
      expect(res.headers.get('Vary'), accept).toBe('X-API-KEY, Accept, Accept-Encoding')
      const body = await raw(res)
      expect(body.byteLength, accept).toBeLessThan(identity.byteLength / 3)
      expect(decode(body).equals(identity), accept).toBe(true)
      // one representation per coding: the tag says which, and names it in a 304
      const tag = res.headers.get('ETag')!
      expect(tag, accept).toBe(`${plain.headers.get('ETag')!.slice(0, -1)}-${coding}"`)
      const again = await t.get(near, key, { 'Accept-Encoding': accept, 'If-None-Match': tag })
      expect(again.status, accept).toBe(304)
      expect(again.headers.get('ETag'), accept).toBe(tag)
    }
  })

  it('compresses the OpenAPI document, and gives HEAD the compressed length', async () => {
    const res = await t.get('/api/v1/openapi.json', undefined, { 'Accept-Encoding': 'br' })
    expect(res.headers.get('Content-Encoding')).toBe('br')
    const body = await raw(res)
    expect(JSON.parse(brotliDecompressSync(body).toString()).openapi).toBe('3.1.0')
    const head = await t.app.request('/api/v1/openapi.json', { method: 'HEAD', headers: { 'Accept-Encoding': 'br' } })
    expect(head.headers.get('Content-Encoding')).toBe('br')
    expect(head.headers.get('Content-Length')).toBe(String(body.byteLength))
  })

  it('tags the OpenAPI document; If-None-Match answers 304 with the same Vary, compressed or not', async () => {
    const plain = await t.get('/api/v1/openapi.json')
    const br = await t.get('/api/v1/openapi.json', undefined, { 'Accept-Encoding': 'br' })
    const tag = plain.headers.get('ETag')!
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/)
    expect(br.headers.get('ETag')).toBe(`${tag.slice(0, -1)}-br"`)
    expect(plain.headers.get('Cache-Control')).toBe('public, max-age=300')
    for (const [held, accept] of [
      [tag, ''],
      [br.headers.get('ETag')!, 'br'],
    ]) {
      const again = await t.get('/api/v1/openapi.json', undefined, { 'If-None-Match': held, 'Accept-Encoding': accept })
      expect(again.status, held).toBe(304)
      expect(again.headers.get('ETag')).toBe(held)
      expect(again.headers.get('Vary')).toBe(plain.headers.get('Vary'))
      expect(again.headers.get('Vary')).toBe('Accept-Encoding')
    }
    // the same bytes as a fresh document: nothing of one request is kept in it
    expect(await raw(await t.get('/api/v1/openapi.json'))).toEqual(await raw(plain))
  })

  it('leaves small answers, and other than JSON, as they are', async () => {
    for (const [path, k] of [
      ['/healthz', undefined],
      ['/api/v1/plots/reverse?latitude=-24.6282&longitude=25.9231', key],
      ['/api/v1/plots/reverse?latitude=x', key],
      ['/docs', undefined],
    ] as const) {
      const first = await t.get(path, k)
      const plain = await raw(first)
      const res = await t.get(path, k, { 'Accept-Encoding': 'gzip, br' })
      expect(res.headers.get('Content-Encoding'), path).toBeNull()
      // Vary names Accept-Encoding on tagged answers all the same, so their 304s can (etag.ts)
      expect(res.headers.get('Vary') ?? '', path).toBe(first.headers.get('Vary') ?? '')
      // the same length (an error's body differs by its request id only)
      expect((await raw(res)).byteLength, path).toBe(plain.byteLength)
    }
  })

  it('compresses nothing twice: a body the route already coded is sent as it is', async () => {
    const html = await (await t.app.request('/map')).text()
    const base = /src="(\/map\/assets\/[\w-]+)\/main\.js"/.exec(html)![1]
    // the basemap outlines: GeoJSON (a type reply() compresses), coded by the asset route
    const path = `${base}/countries.geojson`
    const plain = await raw(await t.app.request(path))
    for (const [accept, coding, decode] of [
      ['gzip', 'gzip', gunzipSync],
      ['br', 'br', brotliDecompressSync],
    ] as const) {
      const res = await t.app.request(path, { headers: { 'Accept-Encoding': accept } })
      expect(res.headers.get('Content-Encoding')).toBe(coding)
      expect(res.headers.get('ETag')).toMatch(new RegExp(`^"[\\w-]+-${coding}"$`))
      expect(res.headers.get('ETag')).not.toContain(`-${coding}-`)
      expect(res.headers.get('Vary')).toBe('Accept-Encoding')
      // decoded once, the file itself
      expect(decode(await raw(res)).equals(plain), accept).toBe(true)
    }
  })

  it('compresses a large tile made on the fly, once, and answers 304 to the coded tag', async () => {
    // the z14 tile holding the most Botswana plots, for a key of their town: made when asked (the
    // stored tiles are for keys that see every town: test/tile-store.test.ts)
    const counts = new Map<string, number>()
    const points = t.data.dataset
      .sqlite('plots/botswana.sqlite')
      .prepare('SELECT longitude, latitude, city.name FROM plot JOIN city ON city.id = plot.city_id')
      .raw()
    const towns = new Map<string, string>()
    for (const [lon, lat, town] of points.all() as [number, number, string][]) {
      const { x, y } = tileAt(lon, lat, 14)
      counts.set(`${x}/${y}`, (counts.get(`${x}/${y}`) ?? 0) + 1)
      towns.set(`${x}/${y}`, town)
    }
    const [densest] = [...counts].sort((a, b) => b[1] - a[1])[0]
    const [x, y] = densest.split('/')
    const path = `/api/v1/plots/tiles/14/${x}/${y}.mvt`
    const key = t.issue({ countries: ['BOTSWANA'], cities: { BOTSWANA: [towns.get(densest)!] } }).key
    const first = await t.get(path, key)
    const plain = await raw(first)
    expect(plain.byteLength).toBeGreaterThan(1024)
    expect(first.headers.get('Content-Encoding')).toBeNull()
    for (const [accept, coding, decode] of [
      ['gzip', 'gzip', gunzipSync],
      ['gzip, br', 'br', brotliDecompressSync],
    ] as const) {
      const res = await t.get(path, key, { 'Accept-Encoding': accept })
      expect(res.headers.get('Content-Encoding'), accept).toBe(coding)
      expect(res.headers.get('Vary'), accept).toBe('X-API-KEY, Accept-Encoding')
      const body = await raw(res)
      expect(body.byteLength, accept).toBeLessThan(plain.byteLength)
      expect(decode(body).equals(plain), accept).toBe(true)
      const tag = res.headers.get('ETag')!
      expect(tag).toBe(`${first.headers.get('ETag')!.slice(0, -1)}-${coding}"`)
      const again = await t.get(path, key, { 'Accept-Encoding': accept, 'If-None-Match': tag })
      expect(again.status, accept).toBe(304)
      expect(again.headers.get('ETag'), accept).toBe(tag)
    }
  })
})
