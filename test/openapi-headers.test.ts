/**
 * What the OpenAPI document says of operations against what the server does: every operation is
 * named and tagged (docs/api.md "OpenAPI document"), tiles are typed, and the response headers it
 * documents (src/http/openapi-headers.ts) are the ones real answers carry, both ways.
 */
import { describe, expect, it } from 'vitest'
import { tileAt } from '../src/geo/tiles.js'
import { erfLpi } from './fixtures/parcel-fixtures.js'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const limited = t.issue({ ratePerMinute: 1 }).key
const doc = await json(await t.get('/api/v1/openapi.json'))

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options']
const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([m]) => METHODS.includes(m))
    .map(([method, op]) => ({ path, method, op })),
)

/** The headers the server may send that the document describes (openapi-headers.ts). */
const NAMED = ['X-Request-Id', 'RateLimit-Policy', 'RateLimit', 'Retry-After', 'ETag', 'Content-Encoding']

/** The documented headers of one response, each with whether it is required. */
function documented(path: string, method: string, status: number): Map<string, boolean> {
  const response = doc.paths[path]?.[method]?.responses?.[String(status)]
  if (!response) throw new Error(`${method} ${path} documents no ${status}`)
  const out = new Map<string, boolean>()
  for (const [name, h] of Object.entries(response.headers ?? {}) as [string, { $ref: string }][]) {
    const component = doc.components.headers[h.$ref.replace('#/components/headers/', '')]
    out.set(name, component.required === true)
  }
  return out
}

describe('operations', () => {
  it('each has a camelCase operationId, none twice', () => {
    expect(operations.length).toBeGreaterThan(40)
    const ids = operations.map(({ op }) => op.operationId)
    for (const [i, id] of ids.entries()) expect(id, operations[i].path).toMatch(/^[a-z]+[A-Z][A-Za-z0-9]*$/)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('each has one tag, one per service, described at the top level', () => {
    const declared = new Map(doc.tags.map((tag: { name: string; description: string }) => [tag.name, tag.description]))
    expect([...declared.keys()]).toEqual([
      'Plots',
      'Parcels',
      'Encumbrances',
      'Jurisdiction',
      'OGC API - Features',
      'Jobs',
    ])
    // the OGC view and the bulk jobs serve the other services' records: no spec or product of their own
    for (const [name, description] of declared)
      if (name !== 'OGC API - Features')
        expect(description).toMatch(name === 'Jobs' ? /^Bulk jobs/ : /spec 00\d, product `\w+`/)
    for (const { path, op } of operations) {
      expect(op.tags, path).toHaveLength(1)
      expect(declared.has(op.tags[0]), path).toBe(true)
      // the service is the path's first segment after the root (the towns are the plot service's;
      // /ogc is the OGC API - Features view of the parcels and encumbrances)
      const service = path === '/api/v1/cities' ? 'plots' : path.split('/')[3]
      expect(op.tags[0] === 'OGC API - Features' ? 'ogc' : op.tags[0].toLowerCase(), path).toBe(service)
    }
  })

  it('types every tile as a binary Mapbox Vector Tile, and every TileJSON as JSON', () => {
    const tiles = operations.filter(({ path }) => path.endsWith('/{z}/{x}/{y}.mvt'))
    const tileJsons = operations.filter(({ path }) => path.endsWith('/tiles.json'))
    expect(tiles).toHaveLength(4)
    expect(tileJsons).toHaveLength(4)
    for (const { path, op } of tiles) {
      expect(Object.keys(op.responses['200'].content), path).toEqual(['application/vnd.mapbox-vector-tile'])
      const ref = op.responses['200'].content['application/vnd.mapbox-vector-tile'].schema.$ref
      expect(doc.components.schemas[ref.split('/').pop()], path).toMatchObject({ type: 'string', format: 'binary' })
    }
    for (const { path, op } of tileJsons)
      expect(Object.keys(op.responses['200'].content), path).toEqual(['application/json'])
  })

  it('names the licence of the project and a server relative to the document', () => {
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' })
    expect(doc.servers.map((s: { url: string }) => s.url)).toEqual(['/'])
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/v1/'))).toBe(true)
  })
})

describe('documented response headers against real answers', () => {
  const near = '/api/v1/plots/search-given-coordinates?latitude=-24.6545&longitude=25.9086&radius=50000&limit=500'
  const { x, y } = tileAt(25.9086, -24.6545, 14)
  const plotTile = `/api/v1/plots/tiles/14/${x}/${y}.mvt`
  const post = (path: string, body: unknown) =>
    t.app.request(path, {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })

  /** Checks one answer: a named header sent is documented; a required one (or, `all`, any) is sent. */
  function check(label: string, res: Response, path: string, method: string, status: number, all = false) {
    expect(res.status, label).toBe(status)
    const docs = documented(path, method, status)
    for (const name of NAMED) if (res.headers.has(name)) expect(docs.has(name), `${label}: ${name} sent`).toBe(true)
    for (const [name, required] of docs)
      if (required || all) expect(res.headers.has(name), `${label}: ${name} documented`).toBe(true)
  }

  it('a JSON GET: 200 (compressed) and 304 carry every header documented for them', async () => {
    const ok = await t.get(near, key, { 'Accept-Encoding': 'br' })
    const path = '/api/v1/plots/search-given-coordinates'
    check('200', ok, path, 'get', 200, true)
    const again = await t.get(near, key, { 'Accept-Encoding': 'br', 'If-None-Match': ok.headers.get('ETag')! })
    check('304', again, path, 'get', 304, true)
  })

  it('a tile: 200 (stored, gzip), 304 and 204 carry every header documented for them', async () => {
    const path = '/api/v1/plots/tiles/{z}/{x}/{y}.mvt'
    const ok = await t.get(plotTile, key, { 'Accept-Encoding': 'gzip' })
    check('tile 200', ok, path, 'get', 200, true)
    const again = await t.get(plotTile, key, { 'If-None-Match': ok.headers.get('ETag')! })
    check('tile 304', again, path, 'get', 304, true)
    const empty = await t.get('/api/v1/encumbrances/tiles/14/0/0.mvt', key)
    check('tile 204', empty, '/api/v1/encumbrances/tiles/{z}/{x}/{y}.mvt', 'get', 204, true)
  })

  it('a TileJSON and a POST: the ETag documented where it is sent, and only there', async () => {
    check('tilejson', await t.get('/api/v1/parcels/tiles.json', key), '/api/v1/parcels/tiles.json', 'get', 200)
    expect(documented('/api/v1/parcels/tiles.json', 'get', 200).has('ETag')).toBe(true)
    const batch = await post('/api/v1/parcels/batch', { lpis: [erfLpi(1)] })
    check('batch', batch, '/api/v1/parcels/batch', 'post', 200)
    expect(batch.headers.has('ETag')).toBe(false)
    expect(documented('/api/v1/parcels/batch', 'post', 200).has('ETag')).toBe(false)
  })

  it('errors: 400, 401 (no rate limit), 404 and 429 (Retry-After)', async () => {
    check('400', await t.get('/api/v1/parcels/by-key?source_key=x', key), '/api/v1/parcels/by-key', 'get', 400)
    const unkeyed = await t.get('/api/v1/cities')
    check('401', unkeyed, '/api/v1/cities', 'get', 401)
    expect(documented('/api/v1/cities', 'get', 401).has('RateLimit')).toBe(false)
    check('404', await t.get(`/api/v1/parcels/${erfLpi(999)}`, key), '/api/v1/parcels/{lpi}', 'get', 404)
    await t.get('/api/v1/cities', limited)
    const over = await t.get('/api/v1/cities', limited)
    check('429', over, '/api/v1/cities', 'get', 429)
    for (const name of ['Retry-After', 'RateLimit', 'RateLimit-Policy']) expect(over.headers.has(name), name).toBe(true)
  })
})
