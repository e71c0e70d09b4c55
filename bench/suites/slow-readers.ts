/**
 * Clients that do not read, against the real server (the worst-case suite's one case that needs
 * sockets, issue #39 item 12): `count` connections each POST the largest jurisdiction batch and
 * never read the answer. The server's resident memory is sampled while they wait; with the send
 * guard (src/http/send-guard.ts) it stays near UNSENT_MAX_MB above its start, where each
 * connection once kept its whole answer (1 000 such clients took a worker to 1.9 GB).
 *
 * @module
 */
import { connect, type Socket } from 'node:net'
import type { BenchKeys } from '../lib/keys.js'
import { startApiServer } from '../lib/servers.js'

export interface SlowReaders {
  connections: number
  answerBytes: number
  /** RSS of the server before the clients connect, and its peak while they wait, MB */
  rssBeforeMb: number
  rssPeakMb: number
  /** connections the server had closed when the clients finally read */
  cut: number
  waitS: number
  unsentMaxMb: number
}

const rssMb = (server: { rss(): { rssBytes: number }[] }) => server.rss().reduce((s, p) => s + p.rssBytes, 0) / 2 ** 20

/** Runs the case; `body` is the batch, `answerBytes` the size of its answer (measured in process). */
export async function slowReaders(o: {
  datasetDir: string
  keys: BenchKeys
  workDir: string
  body: unknown
  answerBytes: number
  count: number
  waitS: number
}): Promise<SlowReaders> {
  const unsentMaxMb = 256
  const server = await startApiServer({
    datasetDir: o.datasetDir,
    keysDb: o.keys.path,
    workers: 1,
    logLevel: 'warn',
    workDir: o.workDir,
    env: { UNSENT_MAX_MB: String(unsentMaxMb), SEND_TIMEOUT_S: '30' },
  })
  const key = o.keys.issue(['jurisdiction'])
  const payload = JSON.stringify(o.body)
  const request =
    `POST /api/v1/jurisdiction/batch HTTP/1.1\r\nHost: bench\r\nX-API-KEY: ${key}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`
  try {
    const rssBeforeMb = rssMb(server)
    const sockets: { s: Socket; bytes: number; closed: boolean }[] = []
    for (let k = 0; k < o.count; k++) {
      const entry = { s: connect(server.port, '127.0.0.1'), bytes: 0, closed: false }
      entry.s.on('connect', () => entry.s.write(request))
      entry.s.on('error', () => {})
      entry.s.on('data', (d: Buffer) => {
        entry.bytes += d.length
      })
      entry.s.on('close', () => {
        entry.closed = true
      })
      // paused: the answer waits in the kernel's buffers and the server's
      entry.s.pause()
      sockets.push(entry)
    }
    let rssPeakMb = rssBeforeMb
    const until = performance.now() + o.waitS * 1000
    while (performance.now() < until) {
      rssPeakMb = Math.max(rssPeakMb, rssMb(server))
      await new Promise((r) => setTimeout(r, 250))
    }
    // read at last: a connection the server closed ends short of its answer
    for (const e of sockets) e.s.resume()
    await new Promise((r) => setTimeout(r, 3000))
    const cut = sockets.filter((e) => e.closed && e.bytes < o.answerBytes).length
    for (const e of sockets) e.s.destroy()
    return {
      connections: o.count,
      answerBytes: o.answerBytes,
      rssBeforeMb,
      rssPeakMb,
      cut,
      waitS: o.waitS,
      unsentMaxMb,
    }
  } finally {
    await server.stop()
  }
}

/** The report's lines for the case. */
export function slowReadersText(r: SlowReaders): string {
  return (
    `Clients that do not read: ${r.connections} connections each asked for the 5 000-point jurisdiction batch ` +
    `(${(r.answerBytes / 2 ** 20).toFixed(1)} MB) and read nothing for ${r.waitS} s, against one server process ` +
    `(UNSENT_MAX_MB ${r.unsentMaxMb}): its resident memory went from ${r.rssBeforeMb.toFixed(0)} MB to a peak of ` +
    `${r.rssPeakMb.toFixed(0)} MB, and ${r.cut} of the ${r.connections} connections had been closed by the server ` +
    'when the clients finally read.'
  )
}
