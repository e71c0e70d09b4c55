/**
 * The app served by @hono/node-server on a real socket, as `npm start` serves it (the server of
 * src/http/node-server.ts, with the default timeouts). Request
 * headers are read from Node's own header object there (src/http/request-header.ts) and the
 * access log is written by hand (src/http/log.ts): paths `app.request` never takes.
 */
import type { Server } from 'node:http'
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createHttpServer } from '../src/http/node-server.js'
import { MemoryRateLimiter } from '../src/rate-limit/memory.js'
import { makeTestApp } from './helpers.js'

describe('served over a socket', () => {
  const t = makeTestApp()
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l))
      done()
    },
  })
  const log = pino({ level: 'info', base: { pid: 7 } }, stream)
  const app = createApp({ log, keys: t.keys, limiter: new MemoryRateLimiter(), data: t.data })
  const config = loadConfig({})
  let base = ''
  let server: Server
  beforeAll(
    () =>
      new Promise<void>((resolve) => {
        const limits = { headersTimeoutMs: config.HEADERS_TIMEOUT_MS, requestTimeoutMs: config.REQUEST_TIMEOUT_MS }
        server = createHttpServer(app.fetch, log, limits, '127.0.0.1')
        server.listen(0, '127.0.0.1', () => {
          base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
          resolve()
        })
      }),
  )
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { key, record } = t.issue({ ratePerMinute: 50 })
  const reverse = '/api/v1/plots/reverse?latitude=-24.6282&longitude=25.9231'
  const flush = () => new Promise((r) => setTimeout(r, 20))

  it('answers as app.request does, with the request id echoed and the rate-limit headers', async () => {
    const res = await fetch(base + reverse, { headers: { 'X-API-KEY': key, 'X-Request-Id': 'sock-1' } })
    const direct = await t.get(reverse, key)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('X-Request-Id')).toBe('sock-1')
    expect(res.headers.get('RateLimit-Policy')).toBe('50;w=60')
    expect(res.headers.get('RateLimit')).toBe('limit=50, remaining=49, reset=60')
    const text = await res.text()
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)))
    const body = JSON.parse(text)
    expect(body).toEqual(await direct.json())
    expect((body as { plots: unknown[] }).plots).toHaveLength(1)
  })

  it('runs with the configured timeouts (10 s, 30 s), not the 60 s and 300 s of Node', () => {
    expect(server.headersTimeout).toBe(10_000)
    expect(server.requestTimeout).toBe(30_000)
  })

  it('answers a wrong method with 405 and Allow, and HEAD with the GET headers', async () => {
    const res = await fetch(base + reverse, { method: 'PUT', headers: { 'X-API-KEY': key } })
    expect(res.status).toBe(405)
    expect(res.headers.get('Allow')).toBe('GET, HEAD')
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff')
    expect(((await res.json()) as { error: string }).error).toBe('MethodNotAllowed')
  })

  it('answers HEAD with the GET headers and no body', async () => {
    const res = await fetch(base + reverse, {
      method: 'HEAD',
      headers: { 'X-API-KEY': key, 'X-Request-Id': 'sock-head' },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('X-Request-Id')).toBe('sock-head')
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('RateLimit')).toMatch(/^limit=50, remaining=\d+, reset=\d+$/)
    // the length the GET body has, though none is sent
    const get = await fetch(base + reverse, { headers: { 'X-API-KEY': key } })
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(await get.text())))
    expect(await res.text()).toBe('')
  })

  it('reads the key header whatever its case, and answers 401 without it or with a wrong one', async () => {
    expect((await fetch(base + reverse, { headers: { 'x-api-key': key } })).status).toBe(200)
    const missing = await fetch(base + reverse)
    expect(missing.status).toBe(401)
    expect(((await missing.json()) as { error: string }).error).toBe('ApiKeyMissing')
    const wrong = await fetch(base + reverse, {
      headers: { 'X-API-KEY': key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a') },
    })
    expect(wrong.status).toBe(401)
    expect(((await wrong.json()) as { error: string }).error).toBe('ApiKeyInvalid')
    // an unsafe client id is replaced, on error answers too
    const unsafe = await fetch(base + '/nope', { headers: { 'X-Request-Id': 'has space' } })
    expect(unsafe.status).toBe(404)
    expect(unsafe.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('validates a POST body', async () => {
    const post = (body: string) =>
      fetch(base + '/api/v1/parcels/batch', {
        method: 'POST',
        headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
        body,
      })
    expect((await post(JSON.stringify({ points: [{ latitude: -34.9045, longitude: 17.0015 }] }))).status).toBe(200)
    const bad = await post('{"points":')
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { error: string }).error).toBe('ValidationError')
  })

  it('logs one line per request with id, method, path, status, duration and key id, never the key', async () => {
    lines.length = 0
    await fetch(base + reverse + '&x=%22q%22', { headers: { 'X-API-KEY': key, 'X-Request-Id': 'sock-log' } })
    await fetch(base + reverse, { headers: { 'X-Request-Id': 'sock-nokey' } })
    await flush()
    const a = lines.find((l) => l.requestId === 'sock-log')!
    const b = lines.find((l) => l.requestId === 'sock-nokey')!
    expect(a).toMatchObject({
      level: 30,
      pid: 7,
      method: 'GET',
      path: '/api/v1/plots/reverse',
      status: 200,
      keyId: record.id,
    })
    expect(typeof a.time).toBe('number')
    expect(a.ms).toBeGreaterThan(0)
    expect(b).toMatchObject({ method: 'GET', status: 401 })
    expect(b).not.toHaveProperty('keyId')
    expect(JSON.stringify(lines)).not.toContain(key)
  })

  // last: the server closes the connection after a 413 (the body is never read)
  it('refuses a body over the limit with 413', async () => {
    const big = await fetch(base + '/api/v1/parcels/batch', {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ points: [], pad: 'x'.repeat(2 * 1024 * 1024) }),
    })
    expect(big.status).toBe(413)
    expect(((await big.json()) as { error: string }).error).toBe('PayloadTooLarge')
  })
})
