/**
 * Headers every answer carries whatever answers it (docs/api.md "Errors"): `X-Content-Type-Options:
 * nosniff` on all of them, `Cache-Control: no-store` on every error; and the docs page keeps the
 * API key out of the browser's storage; the README and docs/api.md name exactly the routes
 * served without a key.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { tileAt } from '../src/geo/tiles.js'
import { json } from '../src/http/reply.js'
import { makeTestApp } from './helpers.js'

describe('response headers', () => {
  let now = 1_700_000_000_000
  const t = makeTestApp({
    clock: () => now,
    routes: (router) =>
      router.add(
        { method: 'get', path: '/boom', tags: ['test'], summary: 'fails', request: {}, responses: {} },
        [],
        () => {
          throw new Error('boom')
        },
      ),
  })
  const { key } = t.issue()
  const limited = t.issue({ ratePerMinute: 1 }).key
  const post = (path: string, body: string, k = key) =>
    t.app.request(path, { method: 'POST', headers: { 'X-API-KEY': k, 'Content-Type': 'application/json' }, body })
  const { x, y } = tileAt(17.002, -34.9045, 14)
  const tile = `/api/v1/encumbrances/tiles/14/${x}/${y}.mvt`

  it('sends X-Content-Type-Options: nosniff on every kind of answer', async () => {
    const first = await t.get(tile, key)
    expect(first.status).toBe(200)
    await t.get('/api/v1/cities', limited)
    const answers: [string, Response][] = [
      ['json', await t.get('/api/v1/cities', key)],
      ['head', await t.app.request('/api/v1/cities', { method: 'HEAD', headers: { 'X-API-KEY': key } })],
      ['tile', first],
      ['304', await t.get(tile, key, { 'If-None-Match': first.headers.get('ETag')! })],
      ['204', await t.get('/api/v1/encumbrances/tiles/14/0/0.mvt', key)],
      ['docs', await t.get('/docs')],
      ['asset', await t.get('/docs/assets/swagger-ui.css')],
      ['openapi', await t.get('/api/v1/openapi.json')],
      ['health', await t.get('/healthz')],
      ['400', await t.get('/api/v1/plots/reverse?latitude=x', key)],
      ['401', await t.get('/api/v1/cities')],
      ['403', await t.get('/api/v1/parcels/at?latitude=-26&longitude=28', t.issue({ products: ['plots'] }).key)],
      ['404', await t.get('/nope')],
      ['405', await t.app.request('/healthz', { method: 'DELETE' })],
      ['413', await post('/api/v1/parcels/batch', `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`)],
      ['429', await t.get('/api/v1/cities', limited)],
      ['500', await t.get('/api/v1/boom', key)],
    ]
    expect(answers.map(([, r]) => r.status)).toEqual([
      200, 200, 200, 304, 204, 200, 200, 200, 200, 400, 401, 403, 404, 405, 413, 429, 500,
    ])
    for (const [name, res] of answers) expect(res.headers.get('X-Content-Type-Options'), name).toBe('nosniff')
  })

  it('sends Cache-Control: no-store on every error, and keeps the cache rules of the answers that have them', async () => {
    now += 60_000
    await t.get('/api/v1/cities', limited)
    const errors = [
      await t.get('/api/v1/plots/reverse?latitude=x', key),
      await t.get('/api/v1/encumbrances/tiles/23/0/0.mvt', key),
      await t.get('/api/v1/cities'),
      await t.get('/docs/assets/nope.js'),
      await t.app.request('/api/v1/parcels/at', { method: 'POST', headers: { 'X-API-KEY': key } }),
      await post('/api/v1/parcels/batch', '{"points":[]}'),
      await t.get('/api/v1/cities', limited),
      await t.get('/api/v1/boom', key),
    ]
    expect(errors.map((r) => r.status)).toEqual([400, 400, 401, 404, 405, 400, 429, 500])
    for (const res of errors) {
      expect(res.headers.get('Cache-Control'), String(res.status)).toBe('no-store')
      expect(res.headers.get('ETag'), String(res.status)).toBeNull()
    }
    // a keyed tile is kept by the key's browser only, and not for another key
    const tiled = await t.get(tile, key)
    expect(tiled.headers.get('Cache-Control')).toBe('private, max-age=3600')
    expect(tiled.headers.get('Vary')).toBe('X-API-KEY, Accept-Encoding')
    expect((await t.get('/docs/assets/swagger-ui.css')).headers.get('Cache-Control')).toBe('public, max-age=86400')
  })

  it('serves Swagger UI without persisting the API key in the browser', async () => {
    const html = await (await t.get('/docs')).text()
    expect(html).toMatch(/SwaggerUIBundle\(\{[^)]*persistAuthorization: false/)
    expect(html).not.toMatch(/persistAuthorization: true/)
    expect(html).not.toMatch(/localStorage|sessionStorage|document\.cookie/)
  })
})

describe('conditional JSON answers (docs/api.md "HTTP conventions")', () => {
  let queries = 0
  const t = makeTestApp({
    routes: (router) =>
      router.add(
        { method: 'get', path: '/counted', tags: ['test'], summary: 'counts', request: {}, responses: {} },
        [],
        (c) => {
          queries++
          return json(c, { queries })
        },
      ),
  })
  const scope = { countries: ['BOTSWANA' as const], cities: { BOTSWANA: ['MAUN', 'GABORONE'] } }
  const { key } = t.issue(scope)
  const twin = t.issue({ countries: ['BOTSWANA'], cities: { BOTSWANA: ['GABORONE', 'MAUN'] } }).key
  const wider = t.issue().key
  const cities = '/api/v1/cities?country=BOTSWANA'
  const tagOf = async (path: string, k: string) => (await t.get(path, k)).headers.get('ETag')

  it('tags every JSON GET with a strong ETag, private caching and Vary: X-API-KEY (and Accept where it picks GeoJSON)', async () => {
    for (const path of [cities, '/api/v1/plots/990001', '/api/v1/plots/reverse?latitude=-19.98&longitude=23.42']) {
      const res = await t.get(path, key)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('ETag'), path).toMatch(/^"[0-9a-f]{16}"$/)
      expect(res.headers.get('Cache-Control'), path).toBe('private, max-age=60')
      expect(res.headers.get('Vary'), path).toBe(
        path === cities ? 'X-API-KEY, Accept-Encoding' : 'X-API-KEY, Accept, Accept-Encoding',
      )
      // a 304 says what its 200 says, whatever the size of the answer it stands for
      const again = await t.get(path, key, { 'If-None-Match': res.headers.get('ETag')! })
      expect(again.status, path).toBe(304)
      expect(again.headers.get('Vary'), path).toBe(res.headers.get('Vary'))
    }
    // not the documents served without a key
    expect((await t.get('/healthz')).headers.get('ETag')).toBeNull()
  })

  it('one tag per build, path, query and key scope: keys of the same scope share it, HEAD has the GET one', async () => {
    const tag = await tagOf(cities, key)
    expect(await tagOf(cities, key)).toBe(tag)
    expect(await tagOf(cities, twin)).toBe(tag)
    expect(await tagOf(cities, wider)).not.toBe(tag)
    expect(await tagOf('/api/v1/cities?country=botswana', key)).not.toBe(tag)
    expect(await tagOf('/api/v1/plots/990001', key)).not.toBe(tag)
    const head = await t.app.request(cities, { method: 'HEAD', headers: { 'X-API-KEY': key } })
    expect(head.headers.get('ETag')).toBe(tag)
  })

  it('answers 304 without a body when If-None-Match names the tag, and skips the query', async () => {
    const first = await t.get('/api/v1/counted', key)
    const tag = first.headers.get('ETag')!
    const before = queries
    for (const inm of [tag, `"0000000000000000", ${tag}`, `W/${tag}`, '*']) {
      const res = await t.get('/api/v1/counted', key, { 'If-None-Match': inm })
      expect(res.status, inm).toBe(304)
      expect(res.headers.get('ETag'), inm).toBe(tag)
      expect(res.headers.get('Cache-Control'), inm).toBe('private, max-age=60')
      expect(await res.text(), inm).toBe('')
    }
    expect(queries).toBe(before)
    const other = await t.get('/api/v1/counted', key, { 'If-None-Match': '"0000000000000000"' })
    expect(other.status).toBe(200)
    expect(queries).toBe(before + 1)
    // another scope does not get the 304 of this one
    expect((await t.get('/api/v1/counted', wider, { 'If-None-Match': tag })).status).toBe(200)
  })

  it('never tags an error, even one for a request another answer was tagged for', async () => {
    const bad = await t.get('/api/v1/plots/reverse?latitude=x', key)
    expect(bad.status).toBe(400)
    expect(bad.headers.get('ETag')).toBeNull()
    expect(bad.headers.get('Cache-Control')).toBe('no-store')
    const tag = await tagOf(cities, key)
    const denied = await t.get('/api/v1/cities?country=SOUTH_AFRICA', key, { 'If-None-Match': tag! })
    expect(denied.status).toBe(403)
    expect(denied.headers.get('ETag')).toBeNull()
  })
})

describe('routes served without a key', () => {
  const t = makeTestApp()

  it('are exactly those the README and docs/api.md name', async () => {
    const open = new Set<string>()
    for (const r of t.app.routes) {
      const path = r.path.replace(/:(\w+)(\{[^}]*\})?/g, (_m, name: string) =>
        name === 'file' ? 'swagger-ui.css' : '1',
      )
      const res = await t.app.request(path, { method: r.method, ...(r.method === 'POST' ? { body: '{}' } : {}) })
      if (res.status !== 401) open.add(`${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
    }
    expect(open.size).toBeGreaterThan(3)
    const named = (text: string) => new Set([...text.matchAll(/`(GET \/[^`]*)`/g)].map((m) => m[1]))
    const api = readFileSync('docs/api.md', 'utf8').replace(/\s+/g, ' ')
    const table = api.slice(
      api.indexOf('These are the only routes served without a key'),
      api.indexOf('## Rate limits'),
    )
    expect(named(table)).toEqual(open)
    const readme = readFileSync('README.md', 'utf8').replace(/\s+/g, ' ')
    const sentence = readme.slice(
      readme.indexOf('Every `/api/v1` request needs'),
      readme.indexOf('nothing else is served'),
    )
    expect(named(sentence)).toEqual(open)
  })
})
