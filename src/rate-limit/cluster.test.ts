import { describe, expect, it } from 'vitest'
import {
  answerLimitBatch,
  ClusterRateLimiter,
  type LimitBatch,
  type LimitChannel,
  type LimitReplies,
} from './cluster.js'
import { MemoryRateLimiter } from './memory.js'
import { rateLimitHeaders } from './middleware.js'
import { RateLimitStoreError, WINDOW_MS } from './types.js'

/** A worker's channel to a primary in this process: every batch sent is kept, and answered unless `silent`. */
function fakePrimary(store = new MemoryRateLimiter(), silent = false) {
  const sent: LimitBatch[] = []
  let deliver: ((m: unknown) => void) | null = null
  const channel: LimitChannel = {
    send(m) {
      // through JSON, as the IPC channel carries it
      const copy = JSON.parse(JSON.stringify(m)) as LimitBatch
      sent.push(copy)
      if (!silent)
        setTimeout(() => deliver?.(JSON.parse(JSON.stringify(answerLimitBatch(store, copy))) as LimitReplies), 1)
    },
    listen(onMessage) {
      deliver = onMessage
      return () => (deliver = null)
    },
  }
  return { channel, sent, store }
}

describe('ClusterRateLimiter', () => {
  it('sends the counts of one turn of the event loop as one message, answered in order and exactly', async () => {
    const p = fakePrimary()
    const rl = new ClusterRateLimiter(1000, p.channel)
    const now = 1_000_000
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => rl.limit('k1', 3, now)))
    expect(p.sent).toHaveLength(1)
    expect(p.sent[0].q).toHaveLength(5)
    expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
      [false, 0],
    ])
    expect(results.every((r) => r.limit === 3 && r.resetAt === now + WINDOW_MS)).toBe(true)
    // the next turn: a new message, and the count goes on across batches (per key)
    const [a, b] = await Promise.all([rl.limit('k1', 3, now + 1), rl.limit('k2', 3, now + 1)])
    expect(p.sent).toHaveLength(2)
    expect([a.allowed, b.allowed, b.remaining]).toEqual([false, true, 2])
    rl.close()
  })

  it('keeps batches apart when their answers overlap', async () => {
    const p = fakePrimary()
    const rl = new ClusterRateLimiter(1000, p.channel)
    const first = rl.limit('k', 10, 0)
    await new Promise((r) => setImmediate(r))
    const second = rl.limit('k', 10, 0)
    expect((await second).remaining).toBe(8)
    expect((await first).remaining).toBe(9)
    expect(p.sent.map((m) => m.b)).toEqual([1, 2])
    rl.close()
  })

  it('fails every request of a batch closed when the primary does not answer', async () => {
    const p = fakePrimary(new MemoryRateLimiter(), true)
    const rl = new ClusterRateLimiter(20, p.channel)
    const asks = [rl.limit('k', 5, 0), rl.limit('k', 5, 0)]
    // RateLimitStoreError: the middleware answers it with 503 RateLimitUnavailable
    for (const a of asks) await expect(a).rejects.toThrow(RateLimitStoreError)
    for (const a of asks) await expect(a).rejects.toThrow(/did not answer/)
    rl.close()
  })

  it('counts an answer that came while the worker was too busy to read it as in time', async () => {
    let deliver: (m: unknown) => void = () => {}
    const store = new MemoryRateLimiter()
    const rl = new ClusterRateLimiter(20, {
      send: (m) => {
        const batch = m as LimitBatch
        // the answer is there by the next turn's check phase (as an IPC message is by its I/O
        // phase), but this worker blocks past the timeout first, so the timer is due before it
        setImmediate(() => deliver(answerLimitBatch(store, batch)))
        const until = Date.now() + 60
        while (Date.now() < until) {}
      },
      listen: (f) => {
        deliver = f
        return () => {}
      },
    })
    expect((await rl.limit('k', 5, 0)).remaining).toBe(4)
    rl.close()
  })

  it('ignores messages that are not its answers', async () => {
    const p = fakePrimary()
    let deliver: (m: unknown) => void = () => {}
    const rl = new ClusterRateLimiter(1000, {
      send: p.channel.send,
      listen(on) {
        deliver = on
        return p.channel.listen(on)
      },
    })
    deliver({ t: 'something else' })
    deliver({ t: 'rl#', b: 99, r: [[1, 1, 1, 1]] })
    deliver(null)
    expect((await rl.limit('k', 2, 0)).remaining).toBe(1)
    rl.close()
  })

  it('keeps reset within the window when the workers sharing a primary disagree on the time', async () => {
    // one primary's store, two workers: B's clock runs 7 s behind A's, and A opened the window
    const p = fakePrimary()
    const a = new ClusterRateLimiter(1000, p.channel)
    const b = new ClusterRateLimiter(1000, fakePrimary(p.store).channel)
    const tA = 2_000_000
    const tB = tA - 7_000
    const first = await a.limit('k', 5, tA)
    const skewed = await b.limit('k', 5, tB)
    expect(skewed.resetAt).toBe(first.resetAt)
    expect(rateLimitHeaders(first, tA).RateLimit).toBe('limit=5, remaining=4, reset=60')
    expect(rateLimitHeaders(skewed, tB).RateLimit).toBe('limit=5, remaining=3, reset=60')
    a.close()
    b.close()
  })
})
