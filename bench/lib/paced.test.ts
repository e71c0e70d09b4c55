import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MixRequest, runClosed, runPaced, sendEach, Windows } from './paced.js'

describe('Windows', () => {
  it('counts each answer in the window it was due in, with its percentiles and error causes', () => {
    const w = new Windows(1000)
    // window 0: latencies 1..100 ms, two errors (a 503 and a socket error); window 2: one answer; window 1 empty
    for (let i = 1; i <= 100; i++) w.record(i * 9.99, 'GET /a', { status: i === 50 ? 503 : 200, bytes: 10 }, i)
    w.record(500, 'POST /b', { error: 'ECONNRESET' }, 7)
    w.record(2500, 'POST /b', { status: 204, bytes: 0 }, 3)
    const rows = w.rows()
    expect(rows.map((r) => [r.index, r.requests, r.errors])).toEqual([
      [0, 101, 2],
      [1, 0, 0],
      [2, 1, 0],
    ])
    expect(rows[0].errorCauses).toEqual({ 'GET /a: 503': 1, 'POST /b: ECONNRESET': 1 })
    // nearest rank over 1..100 and 7: the 51st of 101 is 50, the 100th is 99
    expect(rows[0].p50Ms).toBe(50)
    expect(rows[0].p99Ms).toBe(99)
    expect(rows[0].maxMs).toBe(100)
    expect(rows[1].p99Ms).toBeNaN()
    expect(rows[2].p50Ms).toBe(3)
    const kinds = w.kinds()
    expect(kinds.map((k) => [k.kind, k.requests, k.errors, k.meanBytes])).toEqual([
      ['GET /a', 100, 1, 10],
      ['POST /b', 2, 1, 0],
    ])
  })

  it('takes the statuses a caller counts as answers', () => {
    const w = new Windows(1000, (s) => s === 200 || s === 404)
    w.record(0, 'GET /a', { status: 404, bytes: 1 }, 1)
    w.record(0, 'GET /a', { status: 204, bytes: 1 }, 1)
    expect(w.rows()[0].errorCauses).toEqual({ 'GET /a: 204': 1 })
  })
})

describe('the load generator against a local server', () => {
  let server: Server
  let port = 0
  const seen: { method: string; url: string; body: string; at: number }[] = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, body, at: performance.now() })
        if (req.url === '/fail') res.writeHead(500).end('no')
        else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('late'), 300)
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  const mix = (paths: MixRequest[]) => {
    let i = 0
    return () => paths[i++ % paths.length]
  }
  const ok: MixRequest = { kind: 'GET /ok', method: 'GET', path: '/ok' }

  it('paces requests at the rate asked, open loop, and counts a slow answer from when it was due', async () => {
    seen.length = 0
    const slow: MixRequest = { kind: 'GET /slow', method: 'GET', path: '/slow' }
    const run = await runPaced(
      { port, headers: { 'X-API-KEY': 'k' }, next: mix([slow, ok, ok, ok]), connections: 32 },
      { rate: 200, durationS: 1, windowS: 0.5, maxInFlight: 1000 },
    )
    const rows = run.windows.rows()
    expect(rows.map((r) => r.requests)).toEqual([100, 100])
    expect(rows.every((r) => r.errors === 0)).toBe(true)
    expect(seen).toHaveLength(200)
    // open loop: the slow answers held up none of the others; 200 requests spread over about a second
    const span = seen.at(-1)!.at - seen[0].at
    expect(span).toBeGreaterThan(700)
    const kinds = run.windows.kinds()
    expect(kinds.find((k) => k.kind === 'GET /slow')!.p50Ms).toBeGreaterThanOrEqual(290)
    expect(kinds.find((k) => k.kind === 'GET /ok')!.p50Ms).toBeLessThan(250)
    // about 15 slow answers pending at once (50 a second, 0.3 s each)
    expect(run.mostInFlight).toBeGreaterThanOrEqual(12)
  })

  it('sends POST bodies as JSON with the target headers, and counts a 500 and a refused backlog as errors', async () => {
    seen.length = 0
    const post: MixRequest = { kind: 'POST /b', method: 'POST', path: '/b', body: '{"points":[]}' }
    const fail: MixRequest = { kind: 'GET /fail', method: 'GET', path: '/fail' }
    const out = await sendEach({ port, headers: { 'X-API-KEY': 'k' } }, [post, fail], 2)
    expect(out).toEqual([
      { status: 200, bytes: 11 },
      { status: 500, bytes: 2 },
    ])
    expect(seen.find((s) => s.url === '/b')).toMatchObject({ method: 'POST', body: '{"points":[]}' })
    const slow: MixRequest = { kind: 'GET /slow', method: 'GET', path: '/slow' }
    const run = await runPaced(
      { port, headers: {}, next: mix([slow, fail]), connections: 4 },
      { rate: 100, durationS: 0.2, windowS: 1, maxInFlight: 5 },
    )
    const causes = run.windows.rows()[0].errorCauses
    expect(causes['GET /fail: 500']).toBeGreaterThan(0)
    expect(Object.keys(causes).some((c) => c.endsWith(': backlog'))).toBe(true)
    expect(run.mostInFlight).toBe(5)
  })

  it('measures the closed-loop rate over the connections', async () => {
    const r = await runClosed({ port, headers: {}, next: mix([ok]), connections: 4 }, 0.3)
    expect(r.row.errors).toBe(0)
    expect(r.reqPerS).toBeGreaterThan(50)
    expect(r.row.requests / 0.3 / r.reqPerS).toBeGreaterThan(0.9)
    expect(r.row.requests / 0.3 / r.reqPerS).toBeLessThan(1.1)
  })
})
