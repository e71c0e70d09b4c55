/**
 * Bulk jobs on several instances (REDIS_URL; docs/operations.md "Bulk jobs"), with real parts: a
 * `redis-server` on a free loopback port and two `dist/server.js` instances sharing it and one
 * JOBS_DIR. A job submitted to one is watched, listed and fetched through the other; another key
 * gets 404; a cancel through the instance not running it stops it; the per-key running limit holds
 * across instances; and SIGKILL of the instance running a job mid-way hands it to the other
 * (BullMQ's lock lapses, its stalled check re-queues the job), which resumes from the checkpoint
 * in Redis: every row once, in order; a SIGTERM puts the job back in the queue at once. Needs `npm run build`; every wait is bounded.
 */
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { openRedisKeyStore } from '../src/auth/cli-store.js'
import { POINTS } from './fixtures/parcel-fixtures.js'
import { type RedisServer, startRedis } from './fixtures/redis-server.js'
import { type ServerProcess, spawnServer, until } from './fixtures/server-process.js'

let redis: RedisServer
let jobsDir: string
let key = ''
let otherKey = ''
const instances: ServerProcess[] = []

interface JobView {
  id: string
  status: string
  rows: number
  rows_done: number
}

async function serve(): Promise<ServerProcess> {
  const instance = await spawnServer(
    {
      REDIS_URL: redis.url,
      // never created: with REDIS_URL the keys and jobs live in Redis
      KEYS_DB: join(jobsDir, 'no-such-keys.db'),
      JOBS_DIR: jobsDir,
      JOBS_WORKERS: '1',
      JOBS_MAX_RUNNING_PER_KEY: '1',
      VERIFY_ON_START: 'off',
      REDIS_TIMEOUT_MS: '2000',
    },
    1,
    [],
    'jobs-redis',
  )
  instances.push(instance)
  return instance
}

/** `n` CSV rows of points in and around erf 1. */
function points(n: number): string[] {
  return Array.from(
    { length: n },
    (_, i) => `${(POINTS.inErf1.latitude - (i % 40) * 1e-4).toFixed(6)},${POINTS.inErf1.longitude}`,
  )
}

async function submit(at: ServerProcess, rows: string[]): Promise<Response> {
  return fetch(`${at.url}/api/v1/jobs?operation=getParcelAt`, {
    method: 'POST',
    headers: { 'X-API-KEY': key, 'Content-Type': 'text/csv' },
    body: `lat,lon\n${rows.join('\n')}\n`,
  })
}

const call = (at: ServerProcess, path: string, k = key, method = 'GET') =>
  fetch(`${at.url}/api/v1${path}`, { method, headers: { 'X-API-KEY': k } })

async function status(at: ServerProcess, id: string): Promise<JobView> {
  const res = await call(at, `/jobs/${id}`)
  expect(res.status).toBe(200)
  return (await res.json()) as JobView
}

/** The instance whose log says it runs job `id` (the holder of the host's lease). */
const runnerOf = (id: string) => instances.find((i) => i.output().includes(`"job":"${id}"`))

const resultLines = async (at: ServerProcess, id: string) =>
  (await (await call(at, `/jobs/${id}/results`)).text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { row: number; input: { lat: string }; status: number; result?: unknown })

beforeAll(async () => {
  redis = await startRedis()
  jobsDir = mkdtempSync(join(inject('workDir'), 'jobs-redis-'))
  const keys = await openRedisKeyStore(redis.url)
  try {
    const grants = { products: ['parcels' as const], countries: ['SOUTH_AFRICA' as const], ratePerMinute: 1e6 }
    key = (await keys.issue(grants)).key
    otherKey = (await keys.issue(grants)).key
  } finally {
    keys.close()
  }
  // one after the other: the first holds the host's lease and runs the jobs
  await serve()
  await serve()
}, 90_000)

afterAll(() => {
  for (const i of instances) i.child.kill('SIGKILL')
  redis?.kill()
})

describe('bulk jobs on two instances sharing Redis and JOBS_DIR', () => {
  it('submitted to one, watched, listed and fetched through the other; another key gets 404', async () => {
    const [a, b] = instances
    const rows = points(1500)
    const res = await submit(b, rows)
    expect(res.status).toBe(202)
    const { id } = (await res.json()) as JobView
    expect(res.headers.get('location')).toBe(`/api/v1/jobs/${id}`)
    await until('the job to finish', async () => (await status(a, id)).status === 'done', a.output, 60_000)
    expect(await status(b, id)).toMatchObject({ status: 'done', rows: 1500, rows_done: 1500 })
    const listed = (await (await call(a, '/jobs')).json()) as { jobs: JobView[] }
    expect(listed.jobs.map((j) => j.id)).toContain(id)
    const lines = await resultLines(a, id)
    expect(lines.map((l) => l.row)).toEqual(Array.from({ length: 1500 }, (_, i) => i + 1))
    expect(lines.map((l) => l.input.lat)).toEqual(rows.map((r) => r.split(',')[0]))
    const online = await call(b, `/parcels/at?latitude=${lines[0].input.lat}&longitude=${POINTS.inErf1.longitude}`)
    expect(lines[0]).toMatchObject({ status: online.status, result: await online.json() })
    for (const at of [a, b]) {
      for (const [path, method] of [
        [`/jobs/${id}`, 'GET'],
        [`/jobs/${id}/results`, 'GET'],
        [`/jobs/${id}`, 'DELETE'],
      ]) {
        const other = await call(at, path, otherKey, method)
        expect(other.status).toBe(404)
        expect(((await other.json()) as { error: string }).error).toBe('JobNotFound')
      }
      expect(((await (await call(at, '/jobs', otherKey)).json()) as { jobs: JobView[] }).jobs).toEqual([])
    }
  }, 90_000)

  it('a cancel through the instance not running it stops it; the running limit holds across both', async () => {
    const res = await submit(instances[0], points(60_000))
    expect(res.status).toBe(202)
    const { id } = (await res.json()) as JobView
    await until('the job to run', async () => (await status(instances[1], id)).rows_done > 0, instances[0].output)
    const runner = runnerOf(id)!
    const other = instances.find((i) => i !== runner)!
    // JOBS_MAX_RUNNING_PER_KEY=1: a second job is refused by either instance
    const second = await submit(other, points(10))
    expect(second.status).toBe(429)
    expect(((await second.json()) as { error: string }).error).toBe('TooManyJobs')
    const cancel = await call(other, `/jobs/${id}`, key, 'DELETE')
    expect(cancel.status).toBe(200)
    expect(((await cancel.json()) as JobView).status).toBe('cancelled')
    // the runner stops at its next checkpoint (every second at most): the results stop growing
    await sleep(2500)
    const before = (await resultLines(other, id)).length
    await sleep(2000)
    const after = await resultLines(other, id)
    expect(after.length).toBe(before)
    expect(after.length).toBeLessThan(60_000)
    expect(after.map((l) => l.row)).toEqual(Array.from({ length: after.length }, (_, i) => i + 1))
    expect(await status(runner, id)).toMatchObject({ status: 'cancelled' })
    // the runner is free again: the next job runs
    const next = await submit(other, points(10))
    expect(next.status).toBe(202)
    const nextId = ((await next.json()) as JobView).id
    await until('the next job', async () => (await status(other, nextId)).status === 'done', runner.output, 30_000)
  }, 90_000)

  it('SIGKILL of the instance running a job: the other takes it over, every row once, in order', async () => {
    const rows = points(12_000)
    const res = await submit(instances[1], rows)
    expect(res.status).toBe(202)
    const { id } = (await res.json()) as JobView
    await until('1000 rows done', async () => (await status(instances[1], id)).rows_done >= 1000, instances[0].output)
    const runner = runnerOf(id)!
    const survivor = instances.find((i) => i !== runner)!
    runner.child.kill('SIGKILL')
    await runner.exited
    const left = await status(survivor, id)
    expect(left.status).toBe('running')
    expect(left.rows_done).toBeLessThan(12_000)
    const t = Date.now()
    // BullMQ's lock lapses (8 s) and its stalled check (every 4 s) puts the job back in the queue
    await until(
      'the survivor to resume the job',
      () => survivor.output().includes(`"job":"${id}"`),
      survivor.output,
      30_000,
    )
    const resumedAt = Date.now() - t
    await until(
      'the job to finish',
      async () => (await status(survivor, id)).status === 'done',
      survivor.output,
      90_000,
    )
    // resumed from the checkpoint, not from the start
    const resumed = survivor
      .output()
      .split('\n')
      .find((l) => l.includes(`"job":"${id}"`))!
    expect(JSON.parse(resumed).rowsDone).toBeGreaterThanOrEqual(left.rows_done)
    expect(resumedAt).toBeLessThan(20_000)
    const lines = await resultLines(survivor, id)
    expect(lines.map((l) => l.row)).toEqual(Array.from({ length: 12_000 }, (_, i) => i + 1))
    expect(lines.map((l) => l.input.lat)).toEqual(rows.map((r) => r.split(',')[0]))
    expect(lines.every((l) => l.status === 200 || l.status === 404)).toBe(true)
  }, 150_000)

  it('SIGTERM of the instance running a job: the job goes back to the queue at once, not after the lock lapses', async () => {
    await serve()
    const alive = () => instances.filter((i) => i.child.exitCode === null && i.child.signalCode === null)
    const res = await submit(alive()[0], points(12_000))
    expect(res.status).toBe(202)
    const { id } = (await res.json()) as JobView
    await until('500 rows done', async () => (await status(alive()[0], id)).rows_done >= 500, alive()[0].output)
    const runner = runnerOf(id)!
    runner.child.kill('SIGTERM')
    expect(await runner.exited).toBe(0)
    const others = alive()
    const t = Date.now()
    const taker = () => others.find((i) => i.output().includes(`"job":"${id}"`))
    await until('another to resume the job', () => taker() !== undefined, runner.output, 30_000)
    // well before the 8 s lock would lapse: the stopping runner put it back (moveToWait)
    expect(Date.now() - t).toBeLessThan(6000)
    const next = taker()!
    await until('the job to finish', async () => (await status(next, id)).status === 'done', next.output, 90_000)
    const lines = await resultLines(next, id)
    expect(lines.map((l) => l.row)).toEqual(Array.from({ length: 12_000 }, (_, i) => i + 1))
  }, 150_000)

  it('Redis stopped: the job routes answer 503, the instance lives on, and a SIGTERM still stops it', async () => {
    const [live] = instances.filter((i) => i.child.exitCode === null && i.child.signalCode === null)
    await redis.stop()
    const res = await call(live, '/jobs')
    expect(res.status).toBe(503)
    expect(((await res.json()) as { error: string }).error).toBe('RateLimitUnavailable')
    // the runner's looks for work fail (logged once) while Redis is away: the process lives on
    await sleep(3000)
    expect(live.child.exitCode).toBeNull()
    expect(live.output()).toContain('jobs: cannot look for work')
    const t = Date.now()
    live.child.kill('SIGTERM')
    expect(await live.exited).toBe(0)
    expect(Date.now() - t).toBeLessThan(20_000)
  }, 60_000)
})
