/**
 * The job store of several instances (REDIS_URL; docs/operations.md "Bulk jobs"): the jobs, their
 * checkpoints and the daily row counts in the Redis the instances share, so any of them answers
 * `GET /jobs/{id}`, `/jobs` and DELETE, and the next one resumes a job where the last checkpoint
 * says. The queue itself is BullMQ's (bull-queue.ts): `create` hands the new job to it.
 *
 * Keys, named as the key store names its own (`apikey:<id>`, `apikeys…`):
 * - `job:<id>`: one hash per job, the Job's fields (a null one absent, `key` and `columns` JSON);
 * - `jobs:of:<keyId>`: a key's job ids scored by creation time (`list`, `unfinished`);
 * - `jobs:unfinished`: queued and running job ids scored by creation time (`next`);
 * - `jobs:expiry`: finished job ids scored by when their results expire (`expiring`);
 * - `jobs:rows:<keyId>:<day>`: rows counted against a key's allowance that day (two days' life);
 * - `jobs:rate:<operation>`: `rows ms` of the last 20 done jobs of an operation (`rateOf`);
 * - `jobs:runner:<host>`: the lease of the process that takes jobs on a host (runner.ts).
 *
 * Every change of status is one Lua script that checks the status it moves from, so a cancel
 * through one instance and a checkpoint on another cannot both win: the checkpoint answers false
 * and the runner stops, as with the SQLite store. A checkpoint is also fenced by the job's run
 * number, so a runner whose job another took over stops too (MOVE_SCRIPT).
 *
 * @module
 */
import type { Redis } from 'ioredis'
import type { ApiKeyRecord } from '../auth/types.js'
import { ApiError, storeUnavailable } from '../http/errors.js'
import type { Allowance, Checkpoint, Job, JobStatus, JobStore, NewJob } from './types.js'

const jobKey = (id: string) => `job:${id}`
const ofKey = (keyId: string) => `jobs:of:${keyId}`
const UNFINISHED = 'jobs:unfinished'
const EXPIRY = 'jobs:expiry'
const rowsKey = (keyId: string, day: string) => `jobs:rows:${keyId}:${day}`
const rateKey = (operation: string) => `jobs:rate:${operation}`
const leaseKey = (owner: string) => `jobs:runner:${owner.split(':')[0]}`

/**
 * KEYS: the job, `jobs:unfinished`, `jobs:expiry`. ARGV: `|from|statuses|`, the id, the expiry
 * ('' unless the job finishes: then out of the unfinished, into the expiring), how many field
 * pairs to set, the fence (below), those pairs, then pairs set only when absent. 0 when the
 * status is not in `from` or the fence fails, else 1 (a start: the job's new run number).
 *
 * The fence: '+' (a start) counts one more run of the job in its `run` field; a run number
 * (a checkpoint, a finish) moves the job only while it is the last run's, so a runner whose job
 * was taken over by another (its queue lock lost) stops at its next checkpoint, writing nothing.
 */
const MOVE_SCRIPT = `
local s = redis.call('HGET', KEYS[1], 'status')
if not s or not string.find(ARGV[1], '|' .. s .. '|', 1, true) then return 0 end
local fence = ARGV[5]
if fence ~= '' and fence ~= '+' and redis.call('HGET', KEYS[1], 'run') ~= fence then return 0 end
local last = 5 + 2 * tonumber(ARGV[4])
for i = 6, #ARGV, 2 do
  redis.call(i < last and 'HSET' or 'HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
end
if ARGV[3] ~= '' then
  redis.call('ZREM', KEYS[2], ARGV[2])
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
end
if fence == '+' then return redis.call('HINCRBY', KEYS[1], 'run', 1) end
return 1
`

/** KEYS: the day's count. ARGV: rows, limit. {1 when counted, rows used before}. */
const COUNT_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local rows = tonumber(ARGV[1])
if used + rows > tonumber(ARGV[2]) then return {0, used} end
redis.call('INCRBY', KEYS[1], rows)
redis.call('EXPIRE', KEYS[1], 172800)
return {1, used}
`

/** KEYS: the lease. ARGV: owner, ttl ms, a holder found dead ('' for none). '' when taken, else the holder. */
const LEASE_SCRIPT = `
local held = redis.call('GET', KEYS[1])
if held == false or held == ARGV[1] or held == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ''
end
return held
`

const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`

type Scripted = Redis & {
  jobmove(job: string, unfinished: string, expiry: string, ...args: (string | number)[]): Promise<number>
  jobcount(key: string, rows: number, limit: number): Promise<[number, number]>
  joblease(key: string, owner: string, ttlMs: number, dead: string): Promise<string>
  jobrelease(key: string, owner: string): Promise<number>
}

const NUMBERS = [
  'rows',
  'rowsDone',
  'rowsFailed',
  'inputOffset',
  'resultsOffset',
  'createdAt',
  'startedAt',
  'finishedAt',
  'expiresAt',
  'updatedAt',
] as const

/** The job of a hash read back, or null for an empty one (no such job). */
function jobOf(h: Record<string, string>): Job | null {
  if (!h.id) return null
  const num = (f: (typeof NUMBERS)[number]) => (h[f] === undefined ? null : Number(h[f]))
  return {
    id: h.id,
    keyId: h.keyId,
    key: JSON.parse(h.key) as ApiKeyRecord,
    operation: h.operation,
    status: h.status as JobStatus,
    format: h.format as Job['format'],
    columns: JSON.parse(h.columns) as string[],
    rows: num('rows')!,
    rowsDone: num('rowsDone')!,
    rowsFailed: num('rowsFailed')!,
    inputOffset: num('inputOffset')!,
    resultsOffset: num('resultsOffset')!,
    build: h.build ?? null,
    createdAt: num('createdAt')!,
    startedAt: num('startedAt'),
    finishedAt: num('finishedAt'),
    expiresAt: num('expiresAt'),
    error: h.error ?? null,
    updatedAt: num('updatedAt')!,
  }
}

/** A checkpoint as field pairs. */
const atPairs = (at: Checkpoint) => [
  'rowsDone',
  at.rowsDone,
  'rowsFailed',
  at.rowsFailed,
  'inputOffset',
  at.inputOffset,
  'resultsOffset',
  at.resultsOffset,
]

const UNFINISHED_FROM = '|queued|running|'

/** What the routes ask of the store: Redis unreachable, they answer 503, not 500. */
const ASKED_BY_ROUTES = ['create', 'get', 'list', 'unfinished', 'count', 'cancel', 'remove', 'rateOf'] as const

/** The 503 every answer that needs Redis gives while it is unreachable (src/http/errors.ts). */
function unavailable(err: unknown): never {
  if (err instanceof ApiError) throw err
  throw storeUnavailable(`the job store is unavailable (${(err as Error).message})`)
}

export class RedisJobStore implements JobStore {
  private readonly client: Scripted
  /** the run number this process's start of each job it runs got (the fence of its checkpoints) */
  private readonly runs = new Map<string, number>()

  /**
   * `client`: a connected ioredis client (commands fail fast while Redis is away: the request
   * answers 503); `enqueue`: hands a new job to the queue (BullMQ), absent in unit tests.
   */
  constructor(
    client: Redis,
    private readonly enqueue?: (id: string) => Promise<void>,
  ) {
    client.defineCommand('jobmove', { numberOfKeys: 3, lua: MOVE_SCRIPT })
    client.defineCommand('jobcount', { numberOfKeys: 1, lua: COUNT_SCRIPT })
    client.defineCommand('joblease', { numberOfKeys: 1, lua: LEASE_SCRIPT })
    client.defineCommand('jobrelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT })
    this.client = client as Scripted
    for (const m of ASKED_BY_ROUTES) {
      const f = this[m] as (...a: unknown[]) => Promise<unknown>
      Object.defineProperty(this, m, { value: (...a: unknown[]) => f.apply(this, a).catch(unavailable) })
    }
  }

  async create(job: NewJob): Promise<Job> {
    const h: Record<string, string | number> = {
      ...job,
      key: JSON.stringify(job.key),
      columns: JSON.stringify(job.columns),
      status: 'queued',
      rowsDone: 0,
      rowsFailed: 0,
      inputOffset: 0,
      resultsOffset: 0,
      updatedAt: job.createdAt,
    }
    await this.client
      .multi()
      .hset(jobKey(job.id), h)
      .zadd(ofKey(job.keyId), job.createdAt, job.id)
      .zadd(UNFINISHED, job.createdAt, job.id)
      .exec()
    try {
      await this.enqueue?.(job.id)
    } catch (err) {
      // not queued: nothing would ever run it
      await this.remove(job.id)
      throw err
    }
    return (await this.get(job.id))!
  }

  async get(id: string): Promise<Job | null> {
    return jobOf(await this.client.hgetall(jobKey(id)))
  }

  /** The jobs of these ids that still exist, in that order. */
  private async jobs(ids: string[]): Promise<Job[]> {
    if (ids.length === 0) return []
    const p = this.client.pipeline()
    for (const id of ids) p.hgetall(jobKey(id))
    const jobs: Job[] = []
    for (const [err, h] of (await p.exec()) ?? []) {
      if (err) throw err
      const job = jobOf(h as Record<string, string>)
      if (job) jobs.push(job)
    }
    return jobs
  }

  async list(keyId: string): Promise<Job[]> {
    return this.jobs(await this.client.zrevrange(ofKey(keyId), 0, -1))
  }

  async unfinished(keyId: string): Promise<number> {
    return (await this.list(keyId)).filter((j) => j.status === 'queued' || j.status === 'running').length
  }

  async count(keyId: string, day: string, rows: number, limit: number): Promise<Allowance> {
    const [ok, used] = await this.client.jobcount(rowsKey(keyId, day), rows, limit)
    if (ok !== 1) return { ok: false, limit, remaining: Math.max(0, limit - used), day }
    return { ok: true, limit, remaining: limit - used - rows, day }
  }

  async next(exclude: readonly string[]): Promise<Job | null> {
    const ids = (await this.client.zrange(UNFINISHED, 0, '-1')).filter((id) => !exclude.includes(id))
    const jobs = (await this.jobs(ids)).filter((j) => j.status === 'queued' || j.status === 'running')
    return jobs.find((j) => j.status === 'running') ?? jobs[0] ?? null
  }

  private move(
    id: string,
    from: string,
    expiresAt: number | '',
    fence: number | '+' | '',
    set: unknown[],
    setIfAbsent: unknown[] = [],
  ) {
    const args = [from, id, expiresAt, set.length / 2, fence, ...set, ...setIfAbsent] as (string | number)[]
    return this.client.jobmove(jobKey(id), UNFINISHED, EXPIRY, ...args)
  }

  /** The fence of this process's run of `id` ('' when it has not started it: no fence). */
  private fence(id: string): number | '' {
    return this.runs.get(id) ?? ''
  }

  async start(id: string, build: string, now: number): Promise<boolean> {
    const run = await this.move(
      id,
      UNFINISHED_FROM,
      '',
      '+',
      ['status', 'running', 'updatedAt', now],
      ['build', build, 'startedAt', now],
    )
    if (run > 0) this.runs.set(id, run)
    return run > 0
  }

  async checkpoint(id: string, at: Checkpoint, now: number): Promise<boolean> {
    return (await this.move(id, '|running|', '', this.fence(id), [...atPairs(at), 'updatedAt', now])) === 1
  }

  async finish(...[id, status, at, now, expiresAt, error]: Parameters<JobStore['finish']>): Promise<void> {
    const set = [...atPairs(at), 'status', status, 'finishedAt', now, 'updatedAt', now, 'expiresAt', expiresAt]
    if (error !== undefined) set.push('error', error)
    const moved = await this.move(id, '|running|', expiresAt, this.fence(id), set)
    this.runs.delete(id)
    if (moved !== 1 || status !== 'done') return
    const job = await this.get(id)
    if (job?.startedAt == null) return
    await this.client
      .multi()
      .lpush(rateKey(job.operation), `${job.rowsDone} ${now - job.startedAt}`)
      .ltrim(rateKey(job.operation), 0, 19)
      .exec()
  }

  async cancel(id: string, now: number, expiresAt: number): Promise<Job | null> {
    await this.move(id, UNFINISHED_FROM, expiresAt, '', [
      'status',
      'cancelled',
      'finishedAt',
      now,
      'updatedAt',
      now,
      'expiresAt',
      expiresAt,
      'error',
      'cancelled by its owner',
    ])
    return this.get(id)
  }

  async remove(id: string): Promise<void> {
    const job = await this.get(id)
    const m = this.client.multi().del(jobKey(id)).zrem(UNFINISHED, id).zrem(EXPIRY, id)
    if (job) m.zrem(ofKey(job.keyId), id)
    await m.exec()
  }

  async expiring(now: number): Promise<Job[]> {
    const ids = await this.client.zrangebyscore(EXPIRY, '-inf', `(${now}`)
    return (await this.jobs(ids)).filter(
      (j) => j.status === 'done' || j.status === 'failed' || j.status === 'cancelled',
    )
  }

  async markExpired(id: string): Promise<void> {
    await this.move(id, '|done|failed|cancelled|', '', '', ['status', 'expired'])
    await this.client.zrem(EXPIRY, id)
  }

  async rateOf(operation: string): Promise<number | null> {
    let rows = 0
    let ms = 0
    for (const entry of await this.client.lrange(rateKey(operation), 0, -1)) {
      const [r, m] = entry.split(' ').map(Number)
      rows += r
      ms += m
    }
    return rows && ms ? (rows * 1000) / Math.max(ms, 1) : null
  }

  /**
   * One lease per host (the owner's first part): the process holding it takes the host's share of
   * jobs from the queue, so JOBS_WORKERS bounds a machine's, not a process's (runner.ts). A
   * holder on this host that no longer runs (`alive` false) is replaced at once.
   */
  async lease(owner: string, _now: number, ttlMs: number, alive: (owner: string) => boolean): Promise<boolean> {
    const key = leaseKey(owner)
    const held = await this.client.joblease(key, owner, ttlMs, '')
    if (held === '') return true
    if (alive(held)) return false
    return (await this.client.joblease(key, owner, ttlMs, held)) === ''
  }

  async releaseLease(owner: string): Promise<void> {
    await this.client.jobrelease(leaseKey(owner), owner)
  }

  close(): void {
    // the connection is closed by its owner (redis-jobs.ts)
  }
}
