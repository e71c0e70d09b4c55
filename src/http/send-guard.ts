/**
 * Bounds on clients that do not read their answers (docs/operations.md "Configuration"): an
 * answer the client does not take stays in the worker's memory, because Node keeps whatever the
 * kernel's socket buffer cannot hold. Without a bound, 1 000 connections asking for a 3.6 MB
 * jurisdiction batch and never reading took a worker to 1.9 GB.
 *
 * - **Send timeout** (as nginx's `send_timeout`): an answer whose unsent bytes make no progress
 *   for `sendTimeoutMs` has its connection closed. Progress, not the whole transfer, is timed, so
 *   a slow but reading client still gets a large answer.
 * - **Unsent bytes per worker**: when the answers waiting for their clients hold more than
 *   `maxUnsentBytes` in all, the stalled connections (whose client took nothing for a second, or
 *   a quarter of the send timeout when shorter) holding the most are closed until the rest fit.
 *   A client that keeps reading is never cut by it.
 *
 * One sweep every `sweepMs` over the answers in flight, which the server keeps in a set anyway:
 * nothing is done per request. Judged: answers begun whose socket holds bytes the kernel has not
 * taken (written whole, or a streamed answer waiting for the client to make room).
 *
 * @module
 */
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Logger } from 'pino'

export interface SendLimits {
  /** ms an answer's unsent bytes may make no progress before its connection is closed */
  sendTimeoutMs: number
  /** bytes of unsent answers a process holds at most before it closes the stalled connections */
  maxUnsentBytes: number
  /** ms between sweeps; a quarter of the send timeout, at most a second, when absent */
  sweepMs?: number
}

interface Pending {
  socket: Socket
  /** bytes the kernel had taken at the last sweep */
  sent: number
  /** the sweep at which `sent` last grew (or the answer was first seen written whole) */
  movedAt: number
}

/** Bytes a socket holds that the kernel has not taken yet. */
const unsent = (s: Socket): number => s.writableLength

/** Bytes the kernel has taken from a socket (written, less what Node still holds). */
const taken = (s: Socket): number => s.bytesWritten - s.writableLength

/** What the sweep closed, for the log and the tests. */
export interface SendGuard {
  /** connections closed by the send timeout and by the unsent-bytes bound, since the start */
  readonly closed: { timeout: number; overBudget: number }
  /** unsent bytes held by answers right now */
  unsentBytes(): number
  stop(): void
}

/**
 * Sweeps the answers in flight (`live`, kept by the server: src/http/node-server.ts): one written
 * whole whose bytes the kernel has not all taken is watched as above; the rest cost nothing.
 */
export function guardSends(live: ReadonlySet<ServerResponse>, limits: SendLimits, log: Logger): SendGuard {
  const pending = new Map<ServerResponse, Pending>()
  const closed = { timeout: 0, overBudget: 0 }
  const every = limits.sweepMs ?? Math.max(10, Math.min(1000, Math.floor(limits.sendTimeoutMs / 4)))
  // an answer is stalled once its client has taken nothing for this long: a second, or a
  // quarter of the send timeout when that is shorter, and never less than a sweep
  const stallMs = Math.max(every, Math.min(1000, limits.sendTimeoutMs / 4))

  const cut = (res: ServerResponse, p: Pending, why: 'timeout' | 'overBudget', total: number) => {
    pending.delete(res)
    closed[why]++
    log.warn(
      { unsentBytes: unsent(p.socket), totalUnsentBytes: total, remote: p.socket.remoteAddress },
      why === 'timeout'
        ? `closing a connection whose client read nothing of its answer for ${limits.sendTimeoutMs} ms`
        : `closing a stalled connection: unsent answers hold more than ${limits.maxUnsentBytes} bytes`,
    )
    p.socket.destroy()
  }

  const sweep = () => {
    const now = performance.now()
    for (const res of pending.keys()) if (!live.has(res)) pending.delete(res)
    let total = 0
    const stalled: [ServerResponse, Pending][] = []
    for (const res of live) {
      const socket = res.socket
      // not begun, or nothing waiting for the client (taken by the kernel, or an answer still
      // being made): nothing to judge
      if (!socket || socket.destroyed || !res.headersSent || res.writableFinished || unsent(socket) === 0) continue
      const t = taken(socket)
      let p = pending.get(res)
      if (!p) pending.set(res, (p = { socket, sent: t, movedAt: now }))
      else if (t > p.sent) {
        p.sent = t
        p.movedAt = now
      }
      if (now - p.movedAt >= stallMs) stalled.push([res, p])
      total += unsent(socket)
    }
    for (const [res, p] of stalled)
      if (now - p.movedAt >= limits.sendTimeoutMs) {
        total -= unsent(p.socket)
        cut(res, p, 'timeout', total)
      }
    if (total <= limits.maxUnsentBytes) return
    // over the bound: the stalled answers holding the most go first
    stalled.sort((a, b) => unsent(b[1].socket) - unsent(a[1].socket))
    for (const [res, p] of stalled) {
      if (total <= limits.maxUnsentBytes) break
      if (!pending.has(res)) continue
      total -= unsent(p.socket)
      cut(res, p, 'overBudget', total)
    }
  }
  const timer = setInterval(sweep, every)
  timer.unref()
  return {
    closed,
    unsentBytes: () => {
      let total = 0
      for (const res of live) if (res.socket && res.headersSent && !res.writableFinished) total += unsent(res.socket)
      return total
    },
    stop: () => clearInterval(timer),
  }
}
