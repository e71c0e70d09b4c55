import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { reply } from '../src/http/reply.js'
import { json, makeTestApp, testRoute } from './helpers.js'

describe('request ids', () => {
  const t = makeTestApp()

  it('echoes a safe client request id on the response and in the error body', async () => {
    const res = await t.get('/api/v1/cities', undefined, { 'X-Request-Id': 'abc-123:x.y_z' })
    expect(res.headers.get('X-Request-Id')).toBe('abc-123:x.y_z')
    expect((await json(res)).requestId).toBe('abc-123:x.y_z')
  })

  it('replaces an unsafe or overlong id with a generated one', async () => {
    for (const bad of ['has space', 'x'.repeat(129), 'semi;colon']) {
      const res = await t.get('/healthz', undefined, { 'X-Request-Id': bad })
      const id = res.headers.get('X-Request-Id')!
      expect(id).not.toBe(bad)
      expect(id).toMatch(/^[0-9a-f-]{36}$/)
    }
  })

  it('generates an id when none is sent, different each time, on success responses too', async () => {
    const a = (await t.get('/healthz')).headers.get('X-Request-Id')
    const b = (await t.get('/healthz')).headers.get('X-Request-Id')
    expect(a).toMatch(/^[0-9a-f-]{36}$/)
    expect(a).not.toBe(b)
  })

  it('sends the id on every kind of answer: 200, 400, 401, 403, 404, the OpenAPI document', async () => {
    const { key } = t.issue({ products: ['plots'] })
    const answers = [
      await t.get('/api/v1/cities', key),
      await t.get('/api/v1/plots/reverse?latitude=x', key),
      await t.get('/api/v1/cities'),
      await t.get('/api/v1/parcels/at?latitude=-26&longitude=28', key),
      await t.get('/api/v1/nope', key),
      await t.get('/api/v1/openapi.json'),
    ]
    expect(answers.map((r) => r.status)).toEqual([200, 400, 401, 403, 404, 200])
    for (const r of answers) expect(r.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('every registered route answers through the front door: the id echoed, and the key asked for under /api/v1', async () => {
    // a route mounted on Hono directly (not through ApiRouter or the app's `open`) would miss
    // the request id, the error envelope and the access line
    const routes = t.app.routes.filter((r) => r.method !== 'ALL')
    expect(routes.length).toBeGreaterThan(30)
    const open = new Set(['/healthz', '/readyz', '/docs', '/docs/assets/:file', '/api/v1/openapi.json', '/map'])
    // the map's files need no key either: version 1 is not the served one, so 404 (not 401)
    const openMissing = new Set(['/map/assets/:version/:file'])
    for (const r of routes) {
      const path = r.path.replace(/:(\w+)(\{[^}]*\})?/g, (_m, name: string) =>
        name === 'file' ? 'swagger-ui.css' : '1',
      )
      const res = await t.app.request(path, {
        method: r.method,
        headers: { 'X-Request-Id': 'door-1' },
        ...(r.method === 'POST' ? { body: '{}' } : {}),
      })
      expect(res.headers.get('X-Request-Id'), `${r.method} ${r.path}`).toBe('door-1')
      expect(res.status, `${r.method} ${r.path}`).toBe(open.has(r.path) ? 200 : openMissing.has(r.path) ? 404 : 401)
    }
  })

  it('runs ordinary Hono middleware before the route, the route still answering through the door', async () => {
    const mw = makeTestApp()
    const { key } = mw.issue()
    const seen: string[] = []
    mw.app.use('/api/v1/plots/*', async (c, next) => {
      seen.push(c.req.path)
      await next()
      c.res.headers.set('X-Seen', 'yes')
    })
    const res = await mw.get('/api/v1/plots/reverse?latitude=-24.6282&longitude=25.9231', key, {
      'X-Request-Id': 'mw-1',
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('X-Seen')).toBe('yes')
    expect(res.headers.get('X-Request-Id')).toBe('mw-1')
    expect((await json(res)).plots).toHaveLength(1)
    // a path the middleware does not cover, and the not-found answer after middleware
    expect((await mw.get('/api/v1/cities', key)).headers.get('X-Seen')).toBeNull()
    const missing = await mw.app.request('/api/v1/plots/reverse', { method: 'DELETE', headers: { 'X-API-KEY': key } })
    expect(missing.status).toBe(405)
    expect(missing.headers.get('X-Seen')).toBe('yes')
    expect(seen).toEqual(['/api/v1/plots/reverse', '/api/v1/plots/reverse'])
  })

  it('accepts an id of exactly 128 characters', async () => {
    const id = 'a'.repeat(128)
    expect((await t.get('/healthz', undefined, { 'X-Request-Id': id })).headers.get('X-Request-Id')).toBe(id)
  })
})

describe('error envelope', () => {
  const t = makeTestApp()
  const { key } = t.issue()

  it('answers an unknown route with 404 in the envelope', async () => {
    const res = await t.get('/nope', key)
    expect(res.status).toBe(404)
    const body = await json(res)
    expect(body).toEqual({
      error: 'NotFound',
      message: expect.stringContaining('/nope'),
      requestId: res.headers.get('X-Request-Id'),
    })
  })

  it('lists every invalid field: three bad parameters give three details', async () => {
    const res = await t.get('/api/v1/plots/search-given-coordinates?latitude=abc&longitude=200&radius=0', key)
    expect(res.status).toBe(400)
    const body = await json(res)
    expect(body.error).toBe('ValidationError')
    expect(body.details.map((d: { field: string }) => d.field).sort()).toEqual(['latitude', 'longitude', 'radius'])
    expect(Object.keys(body).sort()).toEqual(['details', 'error', 'message', 'requestId'])
  })

  it('answers 500 with a generic message and never the error text or stack', async () => {
    const f = makeTestApp({
      routes: (router) =>
        router.add(testRoute('get', '/boom', 'fails'), [], () => {
          throw new Error('secret internals at /srv/x.ts:12')
        }),
    })
    const res = await f.get('/api/v1/boom', f.issue().key)
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(text).not.toContain('secret')
    expect(text).not.toContain('.ts:')
    const body = JSON.parse(text)
    expect(body.error).toBe('InternalError')
    expect(body.requestId).toBe(res.headers.get('X-Request-Id'))
  })

  describe('request bodies', () => {
    const f = makeTestApp({
      routes: (router) =>
        router.add(
          testRoute('post', '/echo', 'echoes the body', { body: z.object({ n: z.number() }) }),
          [],
          (c, { body }) => reply(c, JSON.stringify(body), 200, 'application/json'),
        ),
    })
    const fkey = f.issue().key
    const post = (body: string, headers: Record<string, string> = {}) =>
      f.app.request('/api/v1/echo', {
        method: 'POST',
        headers: { 'X-API-KEY': fkey, 'Content-Type': 'application/json', ...headers },
        body,
      })

    it('accepts a well-formed JSON body', async () => {
      const res = await post('{"n": 3}')
      expect(res.status).toBe(200)
      expect(await json(res)).toEqual({ n: 3 })
    })

    it('rejects a body over 2 MB with 413 in the envelope, declared or streamed', async () => {
      const payload = '[' + '1,'.repeat(1_100_000) + '1]'
      const declared = await post(payload, { 'Content-Length': String(payload.length) })
      expect(declared.status).toBe(413)
      const body = await json(declared)
      expect(body.error).toBe('PayloadTooLarge')
      expect(body.requestId).toBe(declared.headers.get('X-Request-Id'))
    })

    it('documents that 413 on every operation that takes a body, and on no other', async () => {
      const doc = await json(await t.get('/api/v1/openapi.json'))
      const ops = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((p) => Object.values(p))
      const withBody = ops.filter((op) => op.requestBody)
      expect(withBody.length).toBeGreaterThanOrEqual(4)
      for (const op of ops) {
        expect(op.responses['413'] !== undefined, op.operationId).toBe(op.requestBody !== undefined)
        // a bulk job's upload has its own cap (JOBS_MAX_MB), the others the 2 MB of JSON bodies
        if (op.requestBody)
          expect(op.responses['413'].description, op.operationId).toMatch(
            op.operationId === 'postJob' ? /^PayloadTooLarge: .*268435456 bytes/ : /^PayloadTooLarge: .*2097152 bytes/,
          )
      }
    })

    it('answers malformed JSON, non-JSON and empty bodies with 400 ValidationError', async () => {
      for (const [text, headers] of [
        ['{"n": ', {}],
        ['n=3', { 'Content-Type': 'application/x-www-form-urlencoded' }],
        ['', {}],
      ] as const) {
        const res = await post(text, headers)
        expect(res.status, text).toBe(400)
        const body = await json(res)
        expect(body.error).toBe('ValidationError')
        expect(body.details[0].field).toBe('(body)')
      }
    })

    it('answers a body nested deeper than 64 levels with 400 naming the limit, before parsing it', async () => {
      const deep = await post(`{"n":${'['.repeat(5000)}${']'.repeat(5000)}}`)
      expect(deep.status).toBe(400)
      const body = await json(deep)
      expect(body.error).toBe('ValidationError')
      expect(body.message).toContain('64')
      expect(body.details).toEqual([{ field: '(body)', message: expect.stringContaining('64 levels') }])
      // 64 levels is parsed and checked as usual; brackets inside strings do not count
      const at64 = await json(await post(`{"n":${'['.repeat(63)}${']'.repeat(63)}}`))
      expect(at64.details).toEqual([{ field: 'n', message: expect.any(String) }])
      expect((await post(`{"n": 3, "s": "${'['.repeat(100)}"}`)).status).toBe(200)
    })

    it('answers a 5,000-deep geometry to /encumbrances/intersect with 400, never 500', async () => {
      const deep = `{"geometry":{"type":"Polygon","coordinates":${'['.repeat(5000)}${']'.repeat(5000)}}}`
      const res = await f.app.request('/api/v1/encumbrances/intersect', {
        method: 'POST',
        headers: { 'X-API-KEY': fkey, 'Content-Type': 'application/json' },
        body: deep,
      })
      expect(res.status).toBe(400)
      expect((await json(res)).error).toBe('ValidationError')
    })

    it('answers a JSON body of the wrong shape with the field named', async () => {
      const res = await post('{"n": "three"}')
      expect(res.status).toBe(400)
      expect((await json(res)).details).toEqual([{ field: 'n', message: expect.any(String) }])
    })
  })
})

describe('a wrong method', () => {
  const t = makeTestApp()
  const { key } = t.issue()
  const send = (method: string, path: string, k?: string) =>
    t.app.request(path, { method, headers: k ? { 'X-API-KEY': k } : {} })

  it('a POST-only route answers GET and PUT with 405 and Allow: POST, not a parameter error (issue #39 item 8)', async () => {
    const { key } = t.issue()
    for (const path of ['/api/v1/parcels/batch', '/api/v1/encumbrances/batch', '/api/v1/encumbrances/intersect'])
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await t.app.request(path, { method, headers: { 'X-API-KEY': key } })
        expect(res.status, `${method} ${path}`).toBe(405)
        expect(res.headers.get('Allow'), `${method} ${path}`).toBe('POST')
        expect((await json(res)).error).toBe('MethodNotAllowed')
      }
  })

  it('answers 405 MethodNotAllowed with Allow naming the methods the path has, HEAD with GET', async () => {
    for (const [method, path, allow] of [
      ['POST', '/api/v1/parcels/at', 'GET, HEAD'],
      ['DELETE', '/api/v1/plots/reverse', 'GET, HEAD'],
      ['GET', '/api/v1/jurisdiction/batch', 'POST'],
      ['HEAD', '/api/v1/jurisdiction/batch', 'POST'],
      ['OPTIONS', '/api/v1/openapi.json', 'GET, HEAD'],
      ['PUT', '/healthz', 'GET, HEAD'],
      ['POST', '/docs', 'GET, HEAD'],
    ]) {
      const res = await send(method, path, key)
      expect(res.status, `${method} ${path}`).toBe(405)
      expect(res.headers.get('Allow'), `${method} ${path}`).toBe(allow)
      if (method === 'HEAD') continue
      const body = await json(res)
      expect(body).toEqual({
        error: 'MethodNotAllowed',
        message: `${method} is not allowed on ${path} (allowed: ${allow})`,
        requestId: res.headers.get('X-Request-Id'),
      })
    }
  })

  it('answers HEAD on every GET route with the GET status and headers, Content-Length, and no body', async () => {
    const volatile = new Set(['x-request-id', 'ratelimit', 'content-length'])
    const headersOf = (r: Response) => [...r.headers].filter(([name]) => !volatile.has(name))
    const paths = t.app.routes
      .filter((r) => r.method === 'GET')
      .map((r) =>
        r.path.replace(/:(\w+)(\{[^}]*\})?/g, (_m, name: string) => (name === 'file' ? 'swagger-ui.css' : '1')),
      )
    paths.push('/api/v1/cities', '/api/v1/plots/revers', '/api/v1/plots/reverse?latitude=x', '/nope')
    for (const path of paths) {
      const get = await send('GET', path, key)
      const head = await send('HEAD', path, key)
      const body = new Uint8Array(await get.arrayBuffer())
      expect(head.status, path).toBe(get.status)
      expect(headersOf(head), path).toEqual(headersOf(get))
      // an error message names the method (`no route for HEAD ...`), so only a success has the GET's length
      if (get.status < 400)
        expect(head.headers.get('Content-Length'), path).toBe(body.byteLength ? String(body.byteLength) : null)
      else expect(head.headers.get('Content-Length'), path).toMatch(/^\d+$/)
      expect(await head.text(), path).toBe('')
    }
  })

  it('keeps 404 for a path no method has, and 401 first under /api/v1', async () => {
    expect((await send('PUT', '/api/v1/nope', key)).status).toBe(404)
    expect((await send('POST', '/nope')).status).toBe(404)
    const noKey = await send('POST', '/api/v1/parcels/at')
    expect(noKey.status).toBe(401)
    expect(noKey.headers.get('Allow')).toBeNull()
  })
})

describe('health and docs', () => {
  const t = makeTestApp()

  it('serves /healthz and /readyz without a key, readyz naming each domain', async () => {
    expect((await t.get('/healthz')).status).toBe(200)
    const ready = await json(await t.get('/readyz'))
    expect(ready.status).toBe('ready')
    expect(ready.domains.plots.dataset_version).toMatch(/^plots-/)
    expect(ready.domains.parcels.dataset_version).toMatch(/^csg-/)
    expect(ready.domains.encumbrances.dataset_version).toMatch(/^csg-enc-/)
    expect(ready.domains.jurisdiction.dataset_version).toMatch(/^mdb-/)
  })

  it('readyz answers 503 with the reason while the server is not ready (draining), 200 again after', async () => {
    let reason: string | null = 'shutting down'
    const draining = makeTestApp({ readiness: () => reason })
    const res = await draining.get('/readyz')
    expect(res.status).toBe(503)
    expect(await json(res)).toMatchObject({ status: 'not_ready', reason: 'shutting down' })
    expect((await draining.get('/healthz')).status).toBe(200)
    reason = null
    expect((await draining.get('/readyz')).status).toBe(200)
  })

  it('publishes OpenAPI 3.1 describing every plot endpoint with its parameters', async () => {
    const doc = await json(await t.get('/api/v1/openapi.json'))
    expect(doc.openapi).toBe('3.1.0')
    for (const p of [
      '/api/v1/plots/search-given-coordinates',
      '/api/v1/plots/reverse',
      '/api/v1/plots/{plot_number}',
      '/api/v1/cities',
    ]) {
      expect(doc.paths[p]?.get, p).toBeDefined()
    }
    const params = doc.paths['/api/v1/plots/search-given-coordinates'].get.parameters.map(
      (p: { name: string }) => p.name,
    )
    // lat, lon and radius_m: the other spellings (docs/api.md "Parameter aliases")
    expect(params.sort()).toEqual([
      'country',
      'format',
      'lat',
      'latitude',
      'limit',
      'lon',
      'longitude',
      'radius',
      'radius_m',
    ])
    expect(doc.components.securitySchemes.ApiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-KEY' })
  })

  it('renders /docs from local assets', async () => {
    const html = await (await t.get('/docs')).text()
    expect(html).toContain('/api/v1/openapi.json')
    const js = await t.get('/docs/assets/swagger-ui-bundle.js')
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toContain('javascript')
  })
})
