/**
 * The multi-instance example of docs/production.md, run for real on loopback: a Redis server,
 * three instances with two workers each, nginx in front and the health checker
 * (scripts/lb/stack.ts, what `npm run lb` starts). Through nginx: a key's limit is exact across
 * the instances, a run of load has no failed request, and an instance that stops is taken out
 * of nginx's list by its /readyz while traffic goes on without a failure. Bounded in time.
 */
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { type Stack, startStack } from '../scripts/lb/stack.js'
import { issueKeyWithCli } from '../scripts/lib/issue-key.js'

let stack: Stack

/** A key issued through the keys CLI into the shared store. */
const issue = (rate: number) => issueKeyWithCli({ products: 'plots', rate, env: { REDIS_URL: stack.redisUrl } })

const PATH = '/api/v1/plots/reverse?latitude=-24.6545&longitude=25.9086'

async function get(key: string): Promise<{ status: number; remaining: number | null }> {
  const res = await fetch(`http://127.0.0.1:${stack.port}${PATH}`, { headers: { 'X-API-KEY': key } })
  await res.arrayBuffer()
  const m = /remaining=(\d+)/.exec(res.headers.get('ratelimit') ?? '')
  return { status: res.status, remaining: m ? Number(m[1]) : null }
}

/** Requests `key` from `connections` loops for `ms`: status counts. */
async function load(key: string, connections: number, ms: number): Promise<Map<number | string, number>> {
  const counts = new Map<number | string, number>()
  const end = Date.now() + ms
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) {
        let k: number | string
        try {
          k = (await get(key)).status
        } catch (err) {
          k = String((err as Error).cause ?? err)
        }
        counts.set(k, (counts.get(k) ?? 0) + 1)
      }
    }),
  )
  return counts
}

describe('three instances behind nginx, sharing Redis', () => {
  beforeAll(async () => {
    stack = await startStack({
      dataset: inject('datasetDir'),
      dir: mkdtempSync(join(inject('workDir'), 'lb-')),
      instances: 3,
      workers: 2,
      env: { LOG_LEVEL: 'warn' },
    })
  }, 90_000)

  afterAll(async () => {
    await stack?.stop()
  }, 30_000)

  it('counts one key exactly across the instances: 100 allowed, then 429', async () => {
    // not across a window boundary: the 150 requests must fall in one fixed minute
    const inWindow = Date.now() % 60_000
    if (inWindow > 50_000) await new Promise((r) => setTimeout(r, 60_000 - inWindow + 200))
    const key = issue(100)
    const answers = await Promise.all(Array.from({ length: 150 }, () => get(key)))
    const ok = answers.filter((a) => a.status === 200)
    expect(ok).toHaveLength(100)
    expect(answers.filter((a) => a.status === 429)).toHaveLength(50)
    // every remaining value from 99 down to 0 was handed out once
    expect(ok.map((a) => a.remaining).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual(
      Array.from({ length: 100 }, (_, k) => k),
    )
  }, 30_000)

  it('serves load through nginx with no failed request, every instance ready', async () => {
    const key = issue(1_000_000)
    const counts = await load(key, 20, 3000)
    expect([...counts.keys()]).toEqual([200])
    expect(counts.get(200)).toBeGreaterThan(100)
    expect(stack.health.instances.every((i) => i.ready && i.up && i.build !== null)).toBe(true)
  }, 30_000)

  it('takes a stopped instance out of rotation with no failed request', async () => {
    const key = issue(1_000_000)
    const during = load(key, 10, 4000)
    await new Promise((r) => setTimeout(r, 500))
    await stack.stopInstance(0)
    const counts = await during
    expect([...counts.keys()]).toEqual([200])
    // the health checker saw /readyz go away; nginx's passive check keeps requests off it
    const deadline = Date.now() + 5000
    while (stack.health.instances[0].ready && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(stack.health.instances[0].ready).toBe(false)
    expect(stack.health.instances.slice(1).every((i) => i.ready)).toBe(true)
  }, 30_000)
})
