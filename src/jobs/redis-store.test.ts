import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type RedisServer, startRedis } from '../../test/fixtures/redis-server.js'
import type { ApiKeyRecord } from '../auth/types.js'
import { inputFile, resultsFile } from './files.js'
import { RedisJobStore } from './redis-store.js'
import { JobRunner } from './runner.js'
import type { NewJob } from './types.js'

let redis: RedisServer
let client: Redis
let store: RedisJobStore
const queued: string[] = []

const KEY = { id: 'k1', products: ['parcels'] } as unknown as ApiKeyRecord
const job = (id: string, createdAt: number, keyId = 'k1'): NewJob => ({
  id,
  keyId,
  key: { ...KEY, id: keyId },
  operation: 'getParcelAt',
  format: 'csv',
  columns: ['lat', 'lon'],
  rows: 100,
  createdAt,
})
const at = (rowsDone: number) => ({ rowsDone, rowsFailed: 1, inputOffset: rowsDone * 10, resultsOffset: rowsDone * 50 })

beforeAll(async () => {
  redis = await startRedis()
  client = new Redis(redis.url)
})
beforeEach(async () => {
  await client.flushall()
  queued.length = 0
  store = new RedisJobStore(client, async (id) => void queued.push(id))
})
afterAll(() => {
  client?.disconnect()
  redis?.kill()
})

describe('RedisJobStore', () => {
  it('creates a queued job, hands it to the queue, and reads it back whole', async () => {
    const made = await store.create(job('j1', 1000))
    expect(queued).toEqual(['j1'])
    expect(made).toEqual({
      ...job('j1', 1000),
      status: 'queued',
      rowsDone: 0,
      rowsFailed: 0,
      inputOffset: 0,
      resultsOffset: 0,
      build: null,
      startedAt: null,
      finishedAt: null,
      expiresAt: null,
      error: null,
      updatedAt: 1000,
    })
    expect(await store.get('j1')).toEqual(made)
    expect(await store.get('nope')).toBeNull()
  })

  it('a job the queue refuses is not kept', async () => {
    const refusing = new RedisJobStore(client, async () => {
      throw new Error('queue down')
    })
    await expect(refusing.create(job('j1', 1))).rejects.toThrow('queue down')
    expect(await refusing.get('j1')).toBeNull()
    expect(await refusing.list('k1')).toEqual([])
  })

  it('lists a key’s jobs newest first; unfinished counts its queued and running ones', async () => {
    await store.create(job('a', 1))
    await store.create(job('b', 2))
    await store.create(job('c', 3, 'k2'))
    expect((await store.list('k1')).map((j) => j.id)).toEqual(['b', 'a'])
    expect(await store.unfinished('k1')).toBe(2)
    await store.cancel('a', 10, 100)
    expect(await store.unfinished('k1')).toBe(1)
    expect(await store.unfinished('k2')).toBe(1)
  })

  it('next: a running job first, else the oldest queued, but those excluded', async () => {
    await store.create(job('a', 1))
    await store.create(job('b', 2))
    expect((await store.next([]))?.id).toBe('a')
    expect((await store.next(['a']))?.id).toBe('b')
    expect(await store.start('b', 'build1', 5)).toBe(true)
    expect((await store.next([]))?.id).toBe('b')
    await store.finish('b', 'done', at(100), 9, 99)
    await store.cancel('a', 10, 100)
    expect(await store.next([])).toBeNull()
  })

  it('start, checkpoint and finish move a job; the build and first start are kept on a resume', async () => {
    await store.create(job('j1', 1))
    expect(await store.start('j1', 'build1', 5)).toBe(true)
    expect(await store.checkpoint('j1', at(40), 6)).toBe(true)
    // another instance resumes it: running stays running, on the build it started on
    expect(await store.start('j1', 'build2', 7)).toBe(true)
    expect(await store.get('j1')).toMatchObject({ status: 'running', build: 'build1', startedAt: 5, rowsDone: 40 })
    await store.finish('j1', 'done', at(100), 9, 500)
    expect(await store.get('j1')).toMatchObject({
      status: 'done',
      rowsDone: 100,
      resultsOffset: 5000,
      finishedAt: 9,
      expiresAt: 500,
      error: null,
    })
    // finished: no more checkpoints, no restart
    expect(await store.checkpoint('j1', at(100), 10)).toBe(false)
    expect(await store.start('j1', 'build1', 10)).toBe(false)
    // 100 rows in 4 ms
    expect(await store.rateOf('getParcelAt')).toBe(25_000)
    expect(await store.rateOf('getJurisdictionAt')).toBeNull()
    await store.create(job('j2', 2))
    await store.start('j2', 'b', 1)
    await store.finish('j2', 'failed', at(3), 2, 600, 'the build is gone')
    expect(await store.get('j2')).toMatchObject({ status: 'failed', error: 'the build is gone' })
    // a failed job says nothing of the rate
    expect(await store.rateOf('getParcelAt')).toBe(25_000)
  })

  it('a job taken over by another process: the first one’s checkpoints and finish are refused', async () => {
    const second = new RedisJobStore(client)
    await store.create(job('j1', 1))
    expect(await store.start('j1', 'b', 2)).toBe(true)
    expect(await store.checkpoint('j1', at(10), 3)).toBe(true)
    // the first lost its queue lock; another process resumes the job
    expect(await second.start('j1', 'b', 4)).toBe(true)
    expect(await store.checkpoint('j1', at(20), 5)).toBe(false)
    await store.finish('j1', 'done', at(100), 6, 600)
    expect(await store.get('j1')).toMatchObject({ status: 'running', rowsDone: 10 })
    expect(await second.checkpoint('j1', at(30), 7)).toBe(true)
    await second.finish('j1', 'done', at(100), 8, 800)
    expect(await store.get('j1')).toMatchObject({ status: 'done', rowsDone: 100, finishedAt: 8 })
  })

  it('a cancel wins over the running checkpoint: it answers false (the runner stops)', async () => {
    await store.create(job('j1', 1))
    await store.start('j1', 'b', 2)
    const cancelled = await store.cancel('j1', 3, 300)
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      finishedAt: 3,
      expiresAt: 300,
      error: 'cancelled by its owner',
    })
    expect(await store.checkpoint('j1', at(10), 4)).toBe(false)
    await store.finish('j1', 'done', at(100), 5, 400)
    expect(await store.get('j1')).toMatchObject({ status: 'cancelled', rowsDone: 0 })
    // a second cancel changes nothing
    expect(await store.cancel('j1', 9, 900)).toMatchObject({ status: 'cancelled', finishedAt: 3 })
    expect(await store.cancel('nope', 9, 900)).toBeNull()
  })

  it('expiring: finished jobs whose expiry passed; marked expired, then removed', async () => {
    for (const [id, t] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      await store.create(job(id, t))
    await store.start('a', 'b', 1)
    await store.finish('a', 'done', at(100), 2, 100)
    await store.cancel('b', 2, 200)
    expect(await store.expiring(100)).toEqual([])
    expect((await store.expiring(201)).map((j) => j.id).sort()).toEqual(['a', 'b'])
    await store.markExpired('a')
    expect(await store.get('a')).toMatchObject({ status: 'expired' })
    expect((await store.expiring(1e9)).map((j) => j.id)).toEqual(['b'])
    await store.remove('b')
    expect(await store.get('b')).toBeNull()
    expect((await store.list('k1')).map((j) => j.id)).toEqual(['c', 'a'])
    expect(await store.expiring(1e9)).toEqual([])
  })

  it('count is atomic: 50 uploads of 30 rows at once against 1000 a day, exactly 33 counted', async () => {
    // a store per connection, as on several instances
    const clients = Array.from({ length: 5 }, () => new Redis(redis.url))
    try {
      const stores = clients.map((c) => new RedisJobStore(c))
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, k) => stores[k % 5].count('k1', '2026-11-29', 30, 1000)),
      )
      const ok = answers.filter((a) => a.ok)
      expect(ok).toHaveLength(33)
      expect(ok.map((a) => a.remaining).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 33 }, (_, k) => 10 + 30 * k),
      )
      for (const a of answers.filter((x) => !x.ok))
        expect(a).toEqual({ ok: false, limit: 1000, remaining: 10, day: '2026-11-29' })
      expect(await client.get('jobs:rows:k1:2026-11-29')).toBe('990')
      // another day, another key: counted apart; the counters expire
      expect(await store.count('k1', '2026-11-30', 1000, 1000)).toMatchObject({ ok: true, remaining: 0 })
      expect(await store.count('k2', '2026-11-29', 5, 1000)).toMatchObject({ ok: true, remaining: 995 })
      expect(await client.ttl('jobs:rows:k1:2026-11-29')).toBeGreaterThan(86_400)
    } finally {
      for (const c of clients) c.disconnect()
    }
  })

  it('lease: one holder per host; renewed by its owner; taken from a dead holder or once it lapses', async () => {
    const alive = new Set(['h1:1:a', 'h1:2:b'])
    const isAlive = (o: string) => alive.has(o)
    expect(await store.lease('h1:1:a', 0, 10_000, isAlive)).toBe(true)
    expect(await store.lease('h1:2:b', 0, 10_000, isAlive)).toBe(false)
    expect(await store.lease('h1:1:a', 0, 10_000, isAlive)).toBe(true)
    // another host has its own
    expect(await store.lease('h2:1:c', 0, 10_000, isAlive)).toBe(true)
    alive.delete('h1:1:a')
    expect(await store.lease('h1:2:b', 0, 10_000, isAlive)).toBe(true)
    expect(await client.get('jobs:runner:h1')).toBe('h1:2:b')
    await store.releaseLease('h1:1:a') // not the holder: nothing
    expect(await client.get('jobs:runner:h1')).toBe('h1:2:b')
    await store.releaseLease('h1:2:b')
    expect(await client.get('jobs:runner:h1')).toBeNull()
    expect(await store.lease('h1:3:d', 0, 50, () => true)).toBe(true)
    await new Promise((r) => setTimeout(r, 80))
    expect(await store.lease('h1:4:e', 0, 10_000, () => true)).toBe(true)
  })

  it('the runner’s expiry sweep over Redis deletes the files of expired jobs and marks them expired', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobs-redis-'))
    let now = 1000
    const runner = new JobRunner({ store, dir, open: () => 'unused', clock: () => now })
    for (const id of ['a', 'b']) {
      await store.create(job(id, 1))
      writeFileSync(inputFile(dir, id), '{}\n')
      writeFileSync(resultsFile(dir, id), '{}\n')
      await store.start(id, 'b1', 2)
    }
    await store.finish('a', 'done', at(100), 3, 5000)
    await store.finish('b', 'done', at(100), 3, 9000)
    now = 6000
    expect(await runner.sweep()).toBe(1)
    expect(await store.get('a')).toMatchObject({ status: 'expired' })
    expect([existsSync(inputFile(dir, 'a')), existsSync(resultsFile(dir, 'a'))]).toEqual([false, false])
    expect(await store.get('b')).toMatchObject({ status: 'done' })
    expect(existsSync(resultsFile(dir, 'b'))).toBe(true)
    now = 9001
    expect(await runner.sweep()).toBe(1)
    expect(await store.get('b')).toMatchObject({ status: 'expired' })
    expect(await runner.sweep()).toBe(0)
  })

  it('Redis unreachable: what the routes ask fails as the 503 RateLimitUnavailable, not a 500', async () => {
    const away = new Redis(redis.url, { lazyConnect: true, enableOfflineQueue: false })
    const cut = new RedisJobStore(away)
    for (const ask of [() => cut.get('j1'), () => cut.list('k1'), () => cut.count('k1', '2026-11-29', 1, 10)])
      await expect(ask()).rejects.toMatchObject({
        code: 'RateLimitUnavailable',
        status: 503,
        message: expect.stringMatching(/^the job store is unavailable \(.+\); retry in 2 s$/),
      })
    away.disconnect()
  })
})
