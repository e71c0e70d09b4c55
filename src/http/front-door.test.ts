import { Writable } from 'node:stream'
import { Hono } from 'hono'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from './env.js'
import { ApiError, handleError } from './errors.js'
import { frontDoor, type Answerer } from './front-door.js'
import { json } from './reply.js'

function setup(level = 'info') {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l))
      done()
    },
  })
  const log = pino({ level }, stream)
  const enter = frontDoor(log, handleError(log))
  const app = new Hono<AppEnv>()
  const route = (path: string, run: Answerer) => app.get(path, (c) => enter(c, run))
  route('/sync', (c) => json(c, { ok: true }))
  route('/later', (c) => Promise.resolve(json(c, { ok: 'later' })))
  route('/throws', () => {
    throw new ApiError('NoParcelAtPoint', 'nothing here')
  })
  route('/rejects', () =>
    Promise.reject(new ApiError('RateLimitExceeded', 'slow down', undefined, { 'Retry-After': '7' })),
  )
  route('/bug', () => {
    throw 'not even an Error'
  })
  const flush = () => new Promise((r) => setImmediate(r))
  return { app, lines, flush }
}

describe('front door', () => {
  it('answers synchronously when the route does, so @hono/node-server can write it at once', async () => {
    const { app, lines, flush } = setup()
    const res = app.fetch(new Request('http://x/sync', { headers: { 'X-Request-Id': 'sync-1' } }))
    expect(res).toBeInstanceOf(Response)
    expect((res as Response).headers.get('X-Request-Id')).toBe('sync-1')
    expect(await (res as Response).json()).toEqual({ ok: true })
    await flush()
    expect(lines).toMatchObject([{ requestId: 'sync-1', method: 'GET', path: '/sync', status: 200 }])
  })

  it("logs the client's W3C traceparent when it is valid, and nothing when it is not", async () => {
    const { app, lines, flush } = setup()
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
    await app.fetch(new Request('http://x/sync', { headers: { traceparent: tp } }))
    await app.fetch(new Request('http://x/sync', { headers: { traceparent: `${tp}-x` } }))
    await flush()
    expect(lines.map((l) => l.traceparent)).toEqual([tp, undefined])
  })

  it('passes a promised answer through and logs it once it is built', async () => {
    const { app, lines, flush } = setup()
    const res = app.fetch(new Request('http://x/later'))
    expect(res).toBeInstanceOf(Promise)
    const r = await res
    expect(await r.json()).toEqual({ ok: 'later' })
    await flush()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ status: 200, requestId: r.headers.get('X-Request-Id') })
  })

  it(
    'turns a thrown or rejected ApiError into its envelope, with its headers and the request id, and logs its ' +
      'status',
    async () => {
      const { app, lines, flush } = setup()
      const thrown = await app.request('/throws', { headers: { 'X-Request-Id': 'e-1' } })
      expect(thrown.status).toBe(404)
      expect(await thrown.json()).toEqual({ error: 'NoParcelAtPoint', message: 'nothing here', requestId: 'e-1' })
      const rejected = await app.request('/rejects', { headers: { 'X-Request-Id': 'e-2' } })
      expect(rejected.status).toBe(429)
      expect(rejected.headers.get('Retry-After')).toBe('7')
      expect(rejected.headers.get('X-Request-Id')).toBe('e-2')
      await flush()
      expect(lines.map((l) => [l.requestId, l.status])).toEqual([
        ['e-1', 404],
        ['e-2', 429],
      ])
    },
  )

  it('answers anything else thrown with a generic 500, never its text', async () => {
    const { app, lines, flush } = setup()
    const res = await app.request('/bug', { headers: { 'X-Request-Id': 'b-1' } })
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(text).not.toContain('not even')
    expect(JSON.parse(text)).toMatchObject({ error: 'InternalError', requestId: 'b-1' })
    await flush()
    // the fault is logged (with its message) and so is the answer
    expect(lines.find((l) => l.msg === 'unhandled error')).toMatchObject({ requestId: 'b-1' })
    expect(lines.find((l) => l.status === 500)).toMatchObject({ requestId: 'b-1' })
  })

  it('writes no access line when the level is above info, and still answers', async () => {
    const { app, lines, flush } = setup('warn')
    expect((app.fetch(new Request('http://x/sync')) as Response).status).toBe(200)
    expect((await app.request('/later')).status).toBe(200)
    await flush()
    expect(lines).toEqual([])
  })
})
