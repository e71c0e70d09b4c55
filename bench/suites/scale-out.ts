/**
 * Scale-out (docs/production.md "Several instances with Redis"): what sharing rate limits and
 * keys through Redis costs, and what nginx in front of several instances gives, on one machine.
 * - store: one instance (1 worker, then 2) with the in-process (or cluster-primary) store against
 *   the same instance with REDIS_URL, on `/plots/reverse`, interleaved over rounds (target: the
 *   Redis store at least 0.9x);
 * - balancer: nginx in front of 3 instances against nginx in front of 1 and against 1 instance
 *   direct, all on Redis (scripts/lb/stack.ts, as `npm run lb` starts them).
 * Any failed request fails the run. A real redis-server (Debian package) is started on loopback.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { startRedis, startStack, stopChild } from '../../scripts/lb/stack.js'
import { issueKeyWithCli } from '../../scripts/lib/issue-key.js'
import { BenchKeys } from '../lib/keys.js'
import { reversePaths } from '../lib/layers.js'
import { loadTool, runLoad, type LoadResult } from '../lib/load.js'
import { startApiServer } from '../lib/servers.js'
import { fmt, median } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'

const CONNECTIONS = 50
/** The Redis store's target against the in-process store, req/s. */
const TARGET_RATIO = 0.9

interface Row {
  /** what was measured, e.g. `in-process, 1 worker` */
  setup: string
  round: number
  result: LoadResult
}

export interface ScaleOutData {
  tool: string
  rounds: number
  durationS: number
  store: Row[]
  balancer: Row[]
}

/** A key with the highest rate in the Redis store, through the keys CLI. */
const redisKey = (redisUrl: string) =>
  issueKeyWithCli({ products: 'plots', rate: 1_000_000, env: { REDIS_URL: redisUrl } })

async function loadRun(ctx: SuiteContext, port: number, paths: string[], key: string, work: string) {
  const o = { port, paths, headers: { 'X-API-KEY': key }, connections: CONNECTIONS, workDir: work }
  await runLoad(loadTool(ctx.opts), { ...o, durationS: 2 })
  const r = await runLoad(loadTool(ctx.opts), { ...o, durationS: ctx.opts.durationS })
  if (r.errors + r.non2xx) ctx.fail(`scale-out: ${r.errors + r.non2xx} failed requests`)
  return r
}

async function runStore(ctx: SuiteContext, work: string, redisUrl: string, paths: string[], rounds: number) {
  const keys = new BenchKeys(join(work, 'keys.db'))
  const rows: Row[] = []
  try {
    for (let round = 1; round <= rounds; round++)
      for (const workers of [1, 2])
        for (const store of ['in-process', 'Redis'] as const) {
          const p = await startApiServer({
            datasetDir: ctx.dataset.dir,
            keysDb: join(work, 'keys.db'),
            workers,
            workDir: work,
            env: store === 'Redis' ? { REDIS_URL: redisUrl } : {},
          })
          try {
            const key = store === 'Redis' ? redisKey(redisUrl) : keys.issue(['plots'])
            const result = await loadRun(ctx, p.port, paths, key, work)
            const setup = `${store === 'Redis' ? 'Redis' : workers > 1 ? 'cluster primary' : 'in-process'}, ${workers} worker${workers > 1 ? 's' : ''}`
            rows.push({ setup, round, result })
            ctx.log(`scale-out: ${setup}, round ${round}: ${fmt(result.reqPerS, 0)} req/s`)
          } finally {
            await p.stop()
          }
        }
  } finally {
    keys.close()
  }
  return rows
}

async function runBalancer(ctx: SuiteContext, work: string, redisUrl: string, paths: string[], rounds: number) {
  const rows: Row[] = []
  const setups: { setup: string; instances: number; direct: boolean }[] = [
    { setup: '1 instance direct', instances: 1, direct: true },
    { setup: 'nginx → 1 instance', instances: 1, direct: false },
    { setup: 'nginx → 3 instances', instances: 3, direct: false },
  ]
  for (let round = 1; round <= rounds; round++)
    for (const s of setups) {
      const stack = await startStack({
        dataset: ctx.dataset.dir,
        dir: join(work, `lb-${round}-${s.instances}-${s.direct}`),
        instances: s.instances,
        workers: 1,
        redisUrl,
        env: { LOG_LEVEL: 'warn', VERIFY_ON_START: 'quick' },
      })
      try {
        const port = s.direct ? stack.instances[0].port : stack.port
        const result = await loadRun(ctx, port, paths, redisKey(redisUrl), work)
        rows.push({ setup: s.setup, round, result })
        ctx.log(`scale-out: ${s.setup}, round ${round}: ${fmt(result.reqPerS, 0)} req/s`)
      } finally {
        await stack.stop()
      }
    }
  return rows
}

function table(rows: Row[], base: string): string[] {
  const setups = [...new Set(rows.map((r) => r.setup))]
  const med = (setup: string) => median(rows.filter((r) => r.setup === setup).map((r) => r.result.reqPerS))
  const medianRun = (setup: string) => {
    const runs = rows.filter((r) => r.setup === setup).sort((a, b) => a.result.reqPerS - b.result.reqPerS)
    return runs[Math.floor(runs.length / 2)].result
  }
  return [
    `| setup | req/s (median) | vs ${base} | p50 | p99 |`,
    '|---|--:|--:|--:|--:|',
    ...setups.map((s) => {
      const r = medianRun(s)
      return `| ${s} | ${fmt(med(s), 0)} | ${fmt(med(s) / med(base), 2)}x | ${fmt(r.p50Ms, 2)} ms | ${fmt(r.p99Ms, 2)} ms |`
    }),
  ]
}

export const scaleOutSuite: Suite<ScaleOutData> = {
  name: 'scale-out',
  title: 'Scale-out: the Redis store against the in-process one, nginx in front of 1 and 3 instances',
  summary:
    '/plots/reverse req/s with the Redis rate-limit and key store vs in process; through nginx to 3 instances vs 1',
  async run(ctx) {
    const work = mkdtempSync(join(dirname(ctx.dataset.dir), 'scale-out-'))
    const redis = await startRedis(work)
    const redisUrl = `redis://127.0.0.1:${redis.port}`
    const rounds = ctx.opts.quick ? 1 : 3
    try {
      const paths = reversePaths(ctx.dataset.dir, 2000, ctx.opts.seed, 'scale-out')
      const store = await runStore(ctx, work, redisUrl, paths, rounds)
      const balancer = await runBalancer(ctx, work, redisUrl, paths, rounds)
      for (const workers of ['1 worker', '2 workers']) {
        const base = median(
          store.filter((r) => r.setup.endsWith(workers) && !r.setup.startsWith('Redis')).map((r) => r.result.reqPerS),
        )
        const red = median(store.filter((r) => r.setup === `Redis, ${workers}`).map((r) => r.result.reqPerS))
        ctx.log(
          `scale-out: Redis store, ${workers}: ${fmt(red / base, 2)}x the in-process store (target ≥ ${TARGET_RATIO}x)`,
        )
      }
      return { tool: loadTool(ctx.opts), rounds, durationS: ctx.opts.durationS, store, balancer }
    } finally {
      await stopChild(redis.child)
      rmSync(work, { recursive: true, force: true })
    }
  },
  render(record: SuiteRecord<ScaleOutData>) {
    const d = record.data
    const ratio = (workers: string) => {
      const base = median(
        d.store.filter((r) => r.setup.endsWith(workers) && !r.setup.startsWith('Redis')).map((r) => r.result.reqPerS),
      )
      const red = median(d.store.filter((r) => r.setup === `Redis, ${workers}`).map((r) => r.result.reqPerS))
      const x = red / base
      return `Redis store, ${workers}: ${fmt(x, 2)}x (target ≥ ${TARGET_RATIO}x) → ${x >= TARGET_RATIO ? 'met' : `missed by ${fmt(TARGET_RATIO - x, 2)}x`}`
    }
    return [
      `\`/plots/reverse\` over loopback, ${d.tool}, ${CONNECTIONS} connections, ${d.durationS} s per run after a 2 s ` +
        `warm-up, ${d.rounds} round(s) interleaved, median req/s with the p50/p99 of the median run. Each run has a ` +
        'fresh key with a rate of 1 000 000 a minute. Redis: a local `redis-server` on loopback, no persistence.',
      '',
      '**The rate-limit and key store.** One instance, the same requests: counting in the process (1 worker) or ' +
        'in the cluster primary (2 workers), against counting in Redis (one pipelined round trip per event-loop ' +
        'turn, keys cached in process).',
      '',
      ...table(d.store, d.store[0].setup),
      '',
      `- ${ratio('1 worker')}`,
      `- ${ratio('2 workers')}`,
      '',
      '**Through nginx.** One worker per instance, all on Redis, nginx (1 worker process) in front ' +
        '(scripts/lb/nginx.conf.template, keep-alive to the instances). All of it shares the same two cores, ' +
        'so three instances cannot be faster than one here: the rows measure what the balancer costs, and ' +
        'that spreading the load loses nothing; on three machines each instance would have its own cores.',
      '',
      ...table(d.balancer, '1 instance direct'),
    ].join('\n')
  },
}
