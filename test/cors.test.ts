/**
 * CORS with `CORS_ORIGINS` (src/http/cors.ts, docs/api.md "HTTP conventions"): preflights from an
 * allowed origin answered without a key, the allowed origin and the exposed headers on every
 * answer; and nothing at all when no origin is configured.
 */
import { describe, expect, it } from 'vitest'
import { tileAt } from '../src/geo/tiles.js'
import { json, makeTestApp } from './helpers.js'

const APP = 'https://app.example'
const reverse = '/api/v1/plots/reverse?latitude=-24.6282&longitude=25.9231'
const preflight = (t: ReturnType<typeof makeTestApp>, path: string, origin: string, method = 'GET') =>
  t.app.request(path, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'x-api-key' },
  })
const corsHeaders = (res: Response) => [...res.headers.keys()].filter((h) => h.startsWith('access-control-'))

describe('CORS_ORIGINS empty (the default)', () => {
  const t = makeTestApp()
  const { key } = t.issue()

  it('sends no CORS header, and a preflight is an unauthenticated OPTIONS like any other', async () => {
    const res = await t.get(reverse, key, { Origin: APP })
    expect(res.status).toBe(200)
    expect(corsHeaders(res)).toEqual([])
    expect(res.headers.get('Vary')).toBe('X-API-KEY, Accept, Accept-Encoding')
    const pre = await preflight(t, reverse, APP)
    expect(pre.status).toBe(401)
    expect(corsHeaders(pre)).toEqual([])
  })
})

describe('CORS_ORIGINS set', () => {
  const t = makeTestApp({ corsOrigins: [APP, 'http://localhost:3000'] })
  const { key } = t.issue()

  it('answers a preflight from an allowed origin 204 without a key, with the path methods', async () => {
    for (const [path, methods] of [
      [reverse, 'GET, HEAD'],
      ['/api/v1/jurisdiction/batch', 'POST'],
      ['/api/v1/jurisdiction/boundaries/ward/1', 'GET, HEAD'],
      ['/healthz', 'GET, HEAD'],
    ]) {
      const res = await preflight(t, path, APP)
      expect(res.status, path).toBe(204)
      expect(res.headers.get('Access-Control-Allow-Origin'), path).toBe(APP)
      expect(res.headers.get('Access-Control-Allow-Methods'), path).toBe(methods)
      expect(res.headers.get('Access-Control-Allow-Headers'), path).toBe('X-API-KEY, Content-Type')
      expect(res.headers.get('Access-Control-Max-Age'), path).toBe('600')
      expect(res.headers.get('Vary'), path).toBe('Origin')
      expect(res.headers.get('X-Request-Id'), path).toMatch(/^[0-9a-f-]{36}$/)
      expect(res.headers.get('RateLimit'), path).toBeNull()
      expect(await res.text(), path).toBe('')
    }
  })

  it('answers any other preflight as it would without CORS: another origin, a path with no route', async () => {
    const other = await preflight(t, reverse, 'https://evil.example')
    expect(other.status).toBe(401)
    expect(other.headers.get('Access-Control-Allow-Origin')).toBeNull()
    expect(other.headers.get('Vary')).toBe('Origin')
    expect((await preflight(t, '/api/v1/nope', APP)).status).toBe(401)
    expect((await preflight(t, '/nope', APP)).status).toBe(404)
    // an OPTIONS that is no preflight (no Access-Control-Request-Method) is not one
    const plain = await t.app.request('/healthz', { method: 'OPTIONS', headers: { Origin: APP } })
    expect(plain.status).toBe(405)
    expect(plain.headers.get('Access-Control-Allow-Origin')).toBe(APP)
  })

  it('names the allowed origin and exposes the headers a page needs on every answer, errors included', async () => {
    const { x, y } = tileAt(17.002, -34.9045, 14)
    for (const [path, k, status, vary] of [
      [reverse, key, 200, 'Origin, X-API-KEY, Accept, Accept-Encoding'],
      [`/api/v1/encumbrances/tiles/14/${x}/${y}.mvt`, key, 200, 'Origin, X-API-KEY, Accept-Encoding'],
      [reverse, undefined, 401, 'Origin'],
      ['/api/v1/plots/reverse?latitude=x', key, 400, 'Origin'],
      ['/healthz', undefined, 200, 'Origin'],
    ] as const) {
      const res = await t.get(path, k, { Origin: 'http://localhost:3000' })
      expect(res.status, path).toBe(status)
      expect(res.headers.get('Access-Control-Allow-Origin'), path).toBe('http://localhost:3000')
      expect(res.headers.get('Access-Control-Expose-Headers'), path).toBe(
        'RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, ETag',
      )
      expect(res.headers.get('Vary'), path).toBe(vary)
      expect(res.headers.get('Access-Control-Allow-Methods'), path).toBeNull()
    }
  })

  it('sends Vary: Origin but no CORS header to a request from no allowed origin', async () => {
    for (const headers of [{}, { Origin: 'https://evil.example' }] as Record<string, string>[]) {
      const res = await t.get(reverse, key, headers)
      expect(res.status).toBe(200)
      expect(corsHeaders(res)).toEqual([])
      expect(res.headers.get('Vary')).toBe('Origin, X-API-KEY, Accept, Accept-Encoding')
      expect((await json(res)).plots).toHaveLength(1)
    }
  })
})
