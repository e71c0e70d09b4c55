import { describe, expect, it } from 'vitest'
import { PatternRouter } from 'hono/router/pattern-router'
import { PrefixRouter } from './prefix-router.js'

// the app's shape: a general route, service routes, a late general route, more services
const ROUTES: [string, string][] = [
  ['GET', '/healthz'],
  ['GET', '/api/v1/*/any'],
  ['GET', '/api/v1/plots/reverse'],
  ['GET', '/api/v1/plots/:plot_number{.+}'],
  ['GET', '/api/v1/parcels/at'],
  ['GET', '/api/v1/parcels/:lpi'],
  ['POST', '/api/v1/parcels/batch'],
  ['GET', '/api/v1/openapi.json'],
  ['GET', '/api/v1/:anything/late'],
  ['POST', '/api/v1/:anything/late'],
  ['GET', '/api/v1/jurisdiction/at'],
  ['GET', '/api/v1/jurisdiction/:code'],
  ['GET', '/api/v1/jurisdiction'],
]

const PATHS = [
  '/healthz',
  '/',
  '/nope',
  '/api/v1',
  '/api/v1/',
  '/api/v1/openapi.json',
  '/api/v1/plots/reverse',
  '/api/v1/plots/123/4',
  '/api/v1/plots',
  '/api/v1/parcels/at',
  '/api/v1/parcels/batch',
  '/api/v1/parcels/T0IR00010000001800001',
  '/api/v1/parcels/late',
  '/api/v1/jurisdiction/at',
  '/api/v1/jurisdiction/late',
  '/api/v1/jurisdiction',
  '/api/v1/unknown/late',
  '/api/v1/unknown/x',
  '/api/v1//late',
  '/api/v1/plots/any',
]

function handlersOf(
  r: { match(m: string, p: string): unknown },
  method: string,
  path: string,
): [number, Record<string, string>][] {
  const [matches] = r.match(method, path) as [[number, Record<string, string>][]]
  return matches.map(([h, params]) => [h, { ...params }])
}

describe('PrefixRouter', () => {
  const plain = new PatternRouter<number>()
  const prefixed = new PrefixRouter<number>('/api/v1')
  ROUTES.forEach(([m, p], i) => {
    plain.add(m, p, i)
    prefixed.add(m, p, i)
  })

  it.each(
    PATHS.flatMap((p) => [
      ['GET', p],
      ['POST', p],
    ]),
  )('%s %s matches the handler one PatternRouter matches first, alone', (method, path) => {
    // but a literal route path belongs to its own methods (GET parcels/batch: none, a 405)
    const owners = ROUTES.filter(([, p]) => p === path).map(([m]) => m)
    const owned = owners.length === 0 || owners.includes(method)
    const want = owned ? handlersOf(plain, method, path).slice(0, 1) : []
    expect(handlersOf(prefixed, method, path)).toEqual(want)
  })

  it('answers with the first of several matches only, with its params', () => {
    // reverse also matches plots/:plot_number, jurisdiction/at also jurisdiction/:code
    expect(handlersOf(plain, 'GET', '/api/v1/plots/reverse').map(([h]) => h)).toEqual([2, 3])
    expect(handlersOf(prefixed, 'GET', '/api/v1/plots/reverse')).toEqual([[2, {}]])
    expect(handlersOf(prefixed, 'GET', '/api/v1/jurisdiction/at')).toEqual([[10, {}]])
    expect(handlersOf(prefixed, 'GET', '/api/v1/plots/123/4')).toEqual([[3, { plot_number: '123/4' }]])
    // a general route registered before the service's routes comes first
    expect(handlersOf(prefixed, 'GET', '/api/v1/plots/any')).toEqual([[1, {}]])
  })

  it('names the methods a path has for a request that found no route, HEAD with GET', () => {
    expect(prefixed.allowed('POST', '/api/v1/parcels/at')).toBe('GET, HEAD')
    // parcels/batch is a literal POST route: a GET or PUT there is a 405 naming POST, though
    // GET parcels/:lpi would match the path (issue #39 item 8)
    expect(prefixed.allowed('PUT', '/api/v1/parcels/batch')).toBe('POST')
    expect(prefixed.allowed('GET', '/api/v1/parcels/batch')).toBe('POST')
    expect(handlersOf(prefixed, 'GET', '/api/v1/parcels/batch')).toEqual([])
    expect(handlersOf(prefixed, 'HEAD', '/api/v1/parcels/batch')).toEqual([])
    expect(handlersOf(prefixed, 'POST', '/api/v1/parcels/batch')).toEqual([[6, {}]])
    expect(prefixed.allowed('DELETE', '/api/v1/jurisdiction/late')).toBe('GET, HEAD, POST')
    expect(prefixed.allowed('OPTIONS', '/healthz')).toBe('GET, HEAD')
    // no route for any method: a 404
    expect(prefixed.allowed('POST', '/nope')).toBeNull()
    expect(prefixed.allowed('GET', '/api/v1/unknown/x')).toBeNull()
    const postOnly = new PrefixRouter<number>('/api/v1')
    postOnly.add('POST', '/api/v1/encumbrances/batch', 0)
    postOnly.add('GET', '/api/v1/encumbrances/at', 1)
    expect(postOnly.allowed('GET', '/api/v1/encumbrances/batch')).toBe('POST')
    expect(postOnly.allowed('HEAD', '/api/v1/encumbrances/batch')).toBe('POST')
    expect(postOnly.allowed('HEAD', '/api/v1/encumbrances/x')).toBeNull()
  })

  it('puts matching middleware before the first route handler, in registration order', () => {
    const r = new PrefixRouter<number>('/api/v1')
    r.add('GET', '/api/v1/plots/reverse', 1)
    r.add('GET', '/api/v1/plots/:plot_number{.+}', 2)
    r.add('ALL', '/api/v1/*', 100)
    r.add('ALL', '/api/v1/plots/*', 101)
    r.add('ALL', '/healthz', 102)
    expect(handlersOf(r, 'GET', '/api/v1/plots/reverse').map(([h]) => h)).toEqual([100, 101, 1])
    expect(handlersOf(r, 'GET', '/api/v1/plots/12/3')).toEqual([
      [100, {}],
      [101, {}],
      [2, { plot_number: '12/3' }],
    ])
    // no route: the middleware alone (Hono then answers not found after it)
    expect(handlersOf(r, 'POST', '/api/v1/plots/reverse').map(([h]) => h)).toEqual([100, 101])
    // no middleware for the path: the route alone, as without any
    r.add('GET', '/other', 3)
    expect(handlersOf(r, 'GET', '/other')).toEqual([[3, {}]])
    // middleware is not a route: the 405's Allow ignores it
    expect(r.allowed('POST', '/api/v1/plots/reverse')).toBe('GET, HEAD')
    expect(r.allowed('POST', '/healthz')).toBeNull()
  })

  it('rejects a malformed root', () => {
    expect(() => new PrefixRouter('/api/v1/')).toThrow(/root/)
    expect(() => new PrefixRouter('api')).toThrow(/root/)
  })
})
