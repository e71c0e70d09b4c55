import { describe, expect, it } from 'vitest'
import { PatternRouter } from 'hono/router/pattern-router'
import { PrefixRouter } from './prefix-router.js'

// the app's shape: global middleware first, service routes, a late general route, more services
const ROUTES: [string, string][] = [
  ['ALL', '*'],
  ['GET', '/healthz'],
  ['ALL', '/api/v1/*'],
  ['GET', '/api/v1/plots/reverse'],
  ['GET', '/api/v1/plots/:plot_number{.+}'],
  ['GET', '/api/v1/parcels/at'],
  ['GET', '/api/v1/parcels/:lpi'],
  ['POST', '/api/v1/parcels/batch'],
  ['GET', '/api/v1/openapi.json'],
  ['ALL', '/api/v1/:anything/late'],
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
]

function handlersOf(r: { match(m: string, p: string): unknown }, method: string, path: string): [number, Record<string, string>][] {
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

  it.each(PATHS.flatMap((p) => [['GET', p], ['POST', p]]))('%s %s matches the same handlers, in the same order, as one PatternRouter', (method, path) => {
    const want = handlersOf(plain, method, path)
    expect(handlersOf(prefixed, method, path)).toEqual(want)
  })

  it('answers with the general routes, then the service routes, with their params', () => {
    const got = handlersOf(prefixed, 'GET', '/api/v1/jurisdiction/at').map(([h]) => h)
    expect(got).toEqual([0, 2, 10, 11])
    expect(handlersOf(prefixed, 'GET', '/api/v1/plots/123/4')).toEqual([
      [0, {}],
      [2, {}],
      [4, { plot_number: '123/4' }],
    ])
  })

  it('rejects a malformed root', () => {
    expect(() => new PrefixRouter('/api/v1/')).toThrow(/root/)
    expect(() => new PrefixRouter('api')).toThrow(/root/)
  })
})
