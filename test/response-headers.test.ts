/**
 * Headers every answer carries whatever answers it (docs/api.md "Errors"): `X-Content-Type-Options:
 * nosniff` on all of them, `Cache-Control: no-store` on every error; and the docs page keeps the
 * API key out of the browser's storage; the README and docs/api.md name exactly the routes
 * served without a key.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { tileAt } from '../src/geo/tiles.js'
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
    for (const res of errors) expect(res.headers.get('Cache-Control'), String(res.status)).toBe('no-store')
    expect((await t.get(tile, key)).headers.get('Cache-Control')).toBe('public, max-age=3600')
    expect((await t.get('/docs/assets/swagger-ui.css')).headers.get('Cache-Control')).toBe('public, max-age=86400')
  })

  it('serves Swagger UI without persisting the API key in the browser', async () => {
    const html = await (await t.get('/docs')).text()
    expect(html).toMatch(/SwaggerUIBundle\(\{[^)]*persistAuthorization: false/)
    expect(html).not.toMatch(/persistAuthorization: true/)
    expect(html).not.toMatch(/localStorage|sessionStorage|document\.cookie/)
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
