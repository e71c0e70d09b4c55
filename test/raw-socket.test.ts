/**
 * What the server answers where the app cannot (src/http/node-server.ts), over raw loopback
 * sockets: requests Node's parser refuses, request targets the adapter cannot make a URL of,
 * and clients too slow to send their request, with short timeouts so each case ends in seconds.
 */
import type { Server } from 'node:http'
import { connect } from 'node:net'
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/app.js'
import { checkingIntervalMs, createHttpServer } from '../src/http/node-server.js'
import { MemoryRateLimiter } from '../src/rate-limit/memory.js'
import { makeTestApp } from './helpers.js'

const LIMITS = { headersTimeoutMs: 600, requestTimeoutMs: 1500 }

interface Exchange {
  /** everything the server sent, as text */
  text: string
  /** ms from connecting to the server closing the connection */
  closedAfterMs: number
}

interface Parsed {
  status: number
  headers: Record<string, string>
  body: Record<string, unknown>
}

/** The first HTTP response in `text`: its status, headers (lower-case names) and JSON body. */
function parse(text: string): Parsed {
  const end = text.indexOf('\r\n\r\n')
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const l of lines) {
    const colon = l.indexOf(':')
    headers[l.slice(0, colon).toLowerCase()] = l.slice(colon + 1).trim()
  }
  const length = Number(headers['content-length'])
  const body = JSON.parse(
    Buffer.from(text.slice(end + 4))
      .subarray(0, length)
      .toString(),
  )
  return { status: Number(statusLine.split(' ')[1]), headers, body }
}

describe('answers before the app, over a raw socket', () => {
  const t = makeTestApp()
  const { key } = t.issue()
  const lines: Record<string, unknown>[] = []
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _enc, done) {
        for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l))
        done()
      },
    }),
  )
  const app = createApp({ log, keys: t.keys, limiter: new MemoryRateLimiter(), data: t.data })
  let port = 0
  let server: Server
  beforeAll(
    () =>
      new Promise<void>((resolve) => {
        server = createHttpServer(app.fetch, log, LIMITS, '127.0.0.1')
        server.listen(0, '127.0.0.1', () => {
          port = (server.address() as { port: number }).port
          resolve()
        })
      }),
  )
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  /**
   * Sends `raw`, then each of `trickle` every `everyMs`, and resolves when the server closes the
   * connection; fails after `boundMs`, so a server that holds the socket fails the test in time.
   */
  function exchange(raw: string, opts: { trickle?: string; everyMs?: number; boundMs?: number } = {}) {
    return new Promise<Exchange>((resolve, reject) => {
      const started = performance.now()
      const chunks: Buffer[] = []
      let timer: NodeJS.Timeout | undefined
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(raw)
        if (opts.trickle) {
          let k = 0
          timer = setInterval(() => {
            if (k < opts.trickle!.length && !socket.destroyed) socket.write(opts.trickle![k++])
          }, opts.everyMs ?? 500)
        }
      })
      const bound = setTimeout(() => {
        socket.destroy()
        reject(new Error(`the server still held the socket after ${opts.boundMs ?? 3000} ms`))
      }, opts.boundMs ?? 3000)
      socket.on('data', (d: Buffer) => chunks.push(d))
      socket.on('error', () => {})
      socket.on('close', () => {
        clearInterval(timer)
        clearTimeout(bound)
        resolve({ text: Buffer.concat(chunks).toString('latin1'), closedAfterMs: performance.now() - started })
      })
    })
  }

  /** The envelope every early answer carries, with the request id in header and body alike. */
  function expectEnvelope(p: Parsed, status: number, error: string) {
    expect(p.status).toBe(status)
    expect(p.headers['content-type']).toBe('application/json')
    expect(p.headers['cache-control']).toBe('no-store')
    expect(p.headers['x-content-type-options']).toBe('nosniff')
    expect(p.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(p.body).toEqual({
      error,
      message: expect.any(String),
      ...(p.body.details ? { details: expect.any(Array) } : {}),
      requestId: p.headers['x-request-id'],
    })
  }

  it('answers what the parser refuses in the envelope with a request id, then closes', async () => {
    for (const raw of [
      'FOO / HTTP/1.1\r\nHost: x\r\n\r\n',
      'garbage\r\n\r\n',
      'GET / HTTP/1.1\r\nHo st: x\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
    ]) {
      const { text } = await exchange(raw)
      expect(text, raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
      const p = parse(text)
      expectEnvelope(p, 400, 'ValidationError')
      expect(p.headers.connection).toBe('close')
      expect(p.body.details).toEqual([{ field: '(request)', message: expect.any(String) }])
      // one answer, nothing after it
      expect(text.length).toBe(text.indexOf('\r\n\r\n') + 4 + Number(p.headers['content-length']))
    }
    const rid = parse((await exchange('garbage\r\n\r\n')).text).headers['x-request-id']
    await new Promise((r) => setTimeout(r, 20))
    expect(lines.find((l) => l.requestId === rid)).toMatchObject({ status: 400, error: 'ValidationError' })
  })

  it('answers headers over 16 KB with 431 RequestHeaderFieldsTooLarge', async () => {
    const { text } = await exchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expect(text).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/)
    expectEnvelope(parse(text), 431, 'RequestHeaderFieldsTooLarge')
  })

  it('answers a request target or Host the adapter cannot use (GET *, a backslash) in the envelope', async () => {
    for (const raw of [
      'GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'GET /api\\v1/cities HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n',
    ]) {
      const p = parse((await exchange(raw)).text)
      expectEnvelope(p, 400, 'ValidationError')
      expect(p.body.details).toEqual([{ field: '(request)', message: expect.any(String) }])
    }
  })

  it('does not answer again on a socket whose response was already sent', async () => {
    // a whole request and garbage in one write: the parser fails after the 200 is written
    const { text } = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\ngarbage\r\n\r\n')
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1)
  })

  it('answers 408 and closes when the headers do not come in time', async () => {
    const { text, closedAfterMs } = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n')
    expect(closedAfterMs).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50)
    expect(closedAfterMs).toBeLessThan(LIMITS.headersTimeoutMs + checkingIntervalMs(LIMITS) + 500)
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
    expectEnvelope(parse(text), 408, 'RequestTimeout')
  })

  it('closes a body trickled one byte per 500 ms at the request timeout, with a 408', async () => {
    const body = JSON.stringify({ points: [{ latitude: -34.9045, longitude: 17.0015 }] })
    lines.length = 0
    const { text, closedAfterMs } = await exchange(
      'POST /api/v1/parcels/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `X-API-KEY: ${key}\r\nContent-Length: ${body.length}\r\n\r\n`,
      { trickle: body, everyMs: 500, boundMs: 4000 },
    )
    expect(closedAfterMs).toBeGreaterThanOrEqual(LIMITS.requestTimeoutMs - 50)
    expect(closedAfterMs).toBeLessThan(LIMITS.requestTimeoutMs + checkingIntervalMs(LIMITS) + 500)
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
    expectEnvelope(parse(text), 408, 'RequestTimeout')
    // the route, left waiting for the body, does not log the client's departure as a failure,
    // and its access line says what the client got: 408, not 400 (issue #39 item 14)
    await new Promise((r) => setTimeout(r, 50))
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([])
    expect(lines.find((l) => l.path === '/api/v1/parcels/batch')).toMatchObject({
      status: 408,
      error: 'RequestTimeout',
    })
  })

  it('a 413 says Connection: close, then closes (issue #39 item 13: it promised keep-alive)', async () => {
    const body = `{"points":[${'0,'.repeat(1_100_000)}0]}`
    const { text } = await exchange(
      `POST /api/v1/parcels/batch HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      { boundMs: 5000 },
    )
    const p = parse(text)
    expect(p.status).toBe(413)
    expect(p.body.error).toBe('PayloadTooLarge')
    expect(p.headers.connection).toBe('close')
  })

  it('still serves a client that sends its request in time', async () => {
    const { text } = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    const p = parse(text)
    expect(p.status).toBe(200)
    expect(p.body).toEqual({ status: 'ok' })
  })
})
