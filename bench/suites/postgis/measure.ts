/**
 * Timing both sides: ours in process, PostGIS through the `pg` clients (1 and 8 connections),
 * and through pgbench; and which PostGIS client's figure a ratio reads.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Client } from 'pg'
import { pgbenchScript, runPgbench, type Cluster, type PgbenchResult } from '../../lib/postgis.js'
import { Samples, type Summary } from '../../lib/stats.js'
import type { SuiteContext } from '../../lib/suite.js'
import { CONNECTIONS, type Answer, type OpRow } from './model.js'
import { SQL, type PgOp } from './queries.js'

export function measureOurs(
  probes: { length: number },
  rounds: number,
  fn: (k: number) => Answer,
): { answers: Answer[]; summary: Summary; opsPerS: number } {
  const answers: Answer[] = new Array(probes.length)
  for (let k = 0; k < probes.length; k++) answers[k] = fn(k) // warm-up, and the answers compared
  const s = new Samples(probes.length * rounds)
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < probes.length; k++) {
      const t0 = performance.now()
      fn(k)
      s.push(performance.now() - t0)
    }
  }
  const t0 = performance.now()
  for (let k = 0; k < probes.length; k++) fn(k)
  return { answers, summary: s.summary(), opsPerS: probes.length / ((performance.now() - t0) / 1000) }
}

/** Each client takes probes k = c, c + n, c + 2n, … sequentially; all clients at once. */
export async function measurePg(
  clients: Client[],
  probes: { length: number },
  fn: (c: Client, k: number) => Promise<Answer>,
  answers?: Answer[],
): Promise<{ summary: Summary; qps: number }> {
  const s = new Samples(probes.length)
  const t0 = performance.now()
  await Promise.all(
    clients.map(async (c, ci) => {
      for (let k = ci; k < probes.length; k += clients.length) {
        const q0 = performance.now()
        const a = await fn(c, k)
        s.push(performance.now() - q0)
        if (answers) answers[k] = a
      }
    }),
  )
  return { summary: s.summary(), qps: probes.length / ((performance.now() - t0) / 1000) }
}

/** PostGIS's 8-connection throughput for an op: the faster of its two clients (pg, pgbench). */
export function pgConcurrentQps(row: Pick<OpRow, 'pgConcQps' | 'pgbench'>): number {
  return Math.max(row.pgConcQps, row.pgbench?.qps ?? 0)
}

/** PostGIS's sequential p50 latency for an op, as its client sees it: the lower of its two clients'. */
export function pgSequentialP50Us(row: Pick<OpRow, 'pgSeq' | 'pgbenchSeq'>): number {
  return Math.min(row.pgSeq.p50Us, row.pgbenchSeq?.latency.p50Us ?? Infinity)
}

/**
 * The pgbench script of `o`'s statement over its probes, written into the cluster's directory; its path, or why it
 * cannot be.
 */
export function writePgbenchScript(cluster: Cluster, name: string, o: PgOp): string | { error: string } {
  const params = Array.from({ length: o.probes.length }, (_, k) => o.values(k))
  if (params.some((v) => v.some((x) => typeof x !== 'number')))
    return { error: 'not run: its parameters are not all numbers (pgbench variables hold numbers only)' }
  const script = join(cluster.dir, name)
  writeFileSync(script, pgbenchScript(SQL[o.op], params as number[][]))
  return script
}

/** Seconds of each pgbench run (quick: a smoke of the plumbing). */
export const PGBENCH_SECONDS = { quick: 2, full: 10 }
/**
 * PostGIS's throughput with a client that is not the limit: pgbench asks the op's statement with
 * 8 connections for a fixed time, each transaction with one of the same probes drawn at random
 * (seeded; see pgbenchScript). Ops whose parameters are not numbers (the corridor's WKT) are not
 * run: pgbench variables hold numbers only, and at tens of queries a second `pg` is far from its limit.
 */
export function pgbenchPass(
  ctx: SuiteContext,
  cluster: Cluster,
  pgbench: string,
  o: PgOp,
): { seq: PgbenchResult; conc: PgbenchResult } | { error: string } {
  const script = writePgbenchScript(cluster, `pgbench-${o.op}.sql`, o)
  if (typeof script !== 'string') return script
  const run = (clients: number) =>
    runPgbench(pgbench, cluster, script, {
      clients,
      threads: 1,
      seconds: ctx.opts.quick ? PGBENCH_SECONDS.quick : PGBENCH_SECONDS.full,
      seed: ctx.opts.seed,
      logDir: cluster.dir,
    })
  const seq = run(1)
  if ('error' in seq) return seq
  const conc = run(CONNECTIONS)
  if ('error' in conc) return conc
  return { seq, conc }
}
