/**
 * Clients that do not read (issue #39 items 12 and 13), over real loopback sockets against
 * createHttpServer: an answer its client takes nothing of is cut after the send timeout; the
 * unsent answers of one process stay under their bound; a client that reads slowly is never cut;
 * answers sent while the server closes say `Connection: close`.
 */
import type { Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { createHttpServer, type ServerLimits } from '../src/http/node-server.js'

const BIG = 48 * 2 ** 20
const big = new Uint8Array(BIG).fill(0x61)
const log = pino({ level: 'silent' })

let server: Server | null = null
const open: Socket[] = []
afterEach(async () => {
  for (const s of open.splice(0)) s.destroy()
  if (server) await new Promise<void>((r) => server!.close(() => r()))
  server = null
})

/** A server answering `/big` with 48 MB and `/slow` after 300 ms, with `limits`. */
function serve(limits: Partial<ServerLimits>): Promise<number> {
  const fetch = async (req: Request) => {
    if (new URL(req.url).pathname === '/slow') {
      await new Promise((r) => setTimeout(r, 300))
      return new Response('{"ok":true}', { headers: { 'Content-Type': 'application/json' } })
    }
    return new Response(big, { headers: { 'Content-Type': 'application/octet-stream' } })
  }
  server = createHttpServer(fetch, log, { headersTimeoutMs: 5000, requestTimeoutMs: 10_000, ...limits }, '127.0.0.1')
  return new Promise((resolve) =>
    server!.listen(0, '127.0.0.1', () => resolve((server!.address() as { port: number }).port)),
  )
}

/**
 * A client that asks for `/big` and reads nothing for `stallMs`, then reads: the bytes it gets
 * and whether the server had closed the connection (a paused socket sees the close only when it
 * reads again). An open connection is left after `boundMs` of reading.
 */
function nonReader(port: number, stallMs: number, boundMs = 3000): Promise<{ bytes: number; closed: boolean }> {
  return new Promise((resolve) => {
    let bytes = 0
    const s = connect(port, '127.0.0.1', () => s.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n'))
    open.push(s)
    s.pause()
    s.on('error', () => {})
    s.on('data', (d: Buffer) => {
      bytes += d.length
    })
    let bound: NodeJS.Timeout | undefined
    setTimeout(() => {
      s.resume()
      bound = setTimeout(() => resolve({ bytes, closed: false }), boundMs)
    }, stallMs)
    s.on('close', () => {
      clearTimeout(bound)
      resolve({ bytes, closed: true })
    })
  })
}

describe('clients that do not read their answers', () => {
  it('closes a connection whose client takes nothing for the send timeout', async () => {
    const port = await serve({ send: { sendTimeoutMs: 400, maxUnsentBytes: 1024 * 2 ** 20 } })
    const got = await nonReader(port, 1500)
    expect(got.closed).toBe(true)
    expect(got.bytes).toBeLessThan(BIG)
  })

  it('without the guard the same client, reading at last, gets it all and the connection stays (the finding)', async () => {
    const port = await serve({})
    const got = await nonReader(port, 1500, 1500)
    expect(got.closed).toBe(false)
    expect(got.bytes).toBeGreaterThan(BIG)
  })

  it('keeps the unsent answers under the bound: stalled connections are cut, the rest stay', async () => {
    // each 48 MB answer leaves tens of MB in the process beyond the kernel's buffers
    const port = await serve({ send: { sendTimeoutMs: 60_000, maxUnsentBytes: 64 * 2 ** 20, sweepMs: 100 } })
    const got = await Promise.all(Array.from({ length: 6 }, () => nonReader(port, 2000, 5000)))
    const cut = got.filter((g) => g.closed && g.bytes < BIG).length
    // six stalled answers hold far more than 64 MB: most are cut well before the send timeout,
    // and those left get their answer whole
    expect(cut).toBeGreaterThanOrEqual(4)
    expect(cut).toBeLessThan(6)
    for (const g of got) if (!g.closed) expect(g.bytes).toBeGreaterThan(BIG)
  })

  it('never cuts a client that reads, however slowly, within the send timeout', async () => {
    // stalled after a quarter of the timeout (250 ms): this client never pauses that long
    const port = await serve({ send: { sendTimeoutMs: 1000, maxUnsentBytes: 2 ** 20, sweepMs: 50 } })
    const got = await new Promise<number>((resolve, reject) => {
      let bytes = 0
      const s = connect(port, '127.0.0.1', () => s.write('GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'))
      open.push(s)
      s.on('error', reject)
      // read in bursts with pauses under the timeout
      const tick = setInterval(() => {
        s.resume()
        setTimeout(() => s.pause(), 20)
      }, 120)
      s.on('data', (d: Buffer) => {
        bytes += d.length
      })
      s.on('close', () => {
        clearInterval(tick)
        resolve(bytes)
      })
    })
    expect(got).toBeGreaterThan(BIG)
  }, 30_000)

  it('an answer sent while the server closes says Connection: close, and the socket closes', async () => {
    const port = await serve({})
    const text = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = []
      const s = connect(port, '127.0.0.1', () => {
        s.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n')
        // the request is in flight: the drain begins
        setTimeout(() => server!.close(), 100)
      })
      open.push(s)
      s.on('data', (d: Buffer) => chunks.push(d))
      s.on('close', () => resolve(Buffer.concat(chunks).toString()))
    })
    expect(text).toMatch(/^HTTP\/1.1 200/)
    expect(text.toLowerCase()).toContain('connection: close')
    expect(text.toLowerCase()).not.toContain('keep-alive')
    server = null
  })
})
