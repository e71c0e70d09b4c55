/**
 * One run against a started cluster: PostGIS and the tables loaded, the probes, every query on
 * both sides (timed, compared), pgbench, the corridor, and ours over HTTP taking turns.
 */
import type { Client } from 'pg'
import type { OpenDataset } from '../../../src/data/open-dataset.js'
import { PARCEL_LAYERS } from '../../../src/data/parcels-format.js'
import { createParcelQueries } from '../../../src/features/parcels/queries.js'
import { createPlotQueries } from '../../../src/features/plots/queries.js'
import { REVERSE_REACH_M } from '../../../src/features/plots/schemas.js'
import { loadLayers, makeProbes as makePlotProbes } from '../../lib/layers.js'
import { findPgbench, type Cluster, type PgbenchResult } from '../../lib/postgis.js'
import { fmt } from '../../lib/stats.js'
import type { SuiteContext } from '../../lib/suite.js'
import { makeParcelProbes } from '../parcels.js'
import { RADIUS_LIMIT, RADIUS_M } from '../plots.js'
import { compare } from './compare.js'
import { prepareCorridor } from './corridor.js'
import { sameRunHttp } from './http.js'
import { loadPlotsAndParcels } from './load.js'
import { measureOurs, measurePg, pgbenchPass } from './measure.js'
import { CONNECTIONS, type Answer, type PostgisData, type Probes } from './model.js'
import { ask, idsAndDistances, SQL, type PgOp } from './queries.js'

export type PgModule = typeof import('pg')['default']

/** The environment cannot run the comparison after all (reported as a skip, never a failure). */
export class Skip extends Error {}

/** The parcels suite's /at probes (same generator and label, so the same points). */
const makeAtProbes = (ds: OpenDataset, count: number, seed: number): Probes => makeParcelProbes(ds, count, seed, 'at')

export async function runWith(
  ctx: SuiteContext,
  pg: PgModule,
  cluster: Cluster,
  ds: OpenDataset,
  source: string,
  data: PostgisData,
): Promise<void> {
  const log = ctx.log
  const quick = ctx.opts.quick
  const admin = new pg.Client(cluster.connection)
  await admin.connect()
  const clients: Client[] = []
  try {
    data.server = ((await admin.query<{ v: string }>(`SELECT version() AS v`)).rows[0].v.split(',')[0] ?? '') as string
    try {
      await admin.query('CREATE EXTENSION postgis')
    } catch (err) {
      throw new Skip(`CREATE EXTENSION postgis failed: ${(err as Error).message}`)
    }
    if (cluster.statStatements) await admin.query('CREATE EXTENSION pg_stat_statements')
    data.server += `, PostGIS ${(await admin.query<{ v: string }>(`SELECT postgis_lib_version() AS v`)).rows[0].v}`

    // ---- load: the build's readers write COPY files (timed apart), then COPY + GiST + ANALYZE
    data.load = await loadPlotsAndParcels(log, admin, cluster, source)
    const { plots, parcels } = data.load

    // the ids only compare if both sides accepted the same rows
    const expectPlots = ctx.dataset.counts.botswana + ctx.dataset.counts.south_africa
    if (plots !== expectPlots)
      ctx.fail(`postgis: loaded ${plots} plots from the source, the dataset has ${expectPlots}: ids would not line up`)
    const parcelFiles = new Set<string>(PARCEL_LAYERS.map((x) => x.file))
    const dsParcels = Object.entries(ds.domain('parcels')?.layers ?? {}).reduce(
      (s, [key, l]) => s + (parcelFiles.has(key.split('/').pop()!) ? l.rows : 0),
      0,
    )
    if (parcels !== dsParcels)
      ctx.fail(
        `postgis: loaded ${parcels} parcels from the source, the dataset has ${dsParcels}: ids would not line up`,
      )

    for (let c = 0; c < CONNECTIONS; c++) {
      const cl = new pg.Client(cluster.connection)
      await cl.connect()
      clients.push(cl)
    }

    // ---- probes and the three queries on both sides
    const count = quick ? 200 : 5_000
    const rounds = quick ? 1 : 3
    const plotProbes = makePlotProbes(loadLayers(ds), count, ctx.opts.seed, 'plots')
    const pq = createPlotQueries(ds)
    const countries = pq.countries
    const at = (p: Probes) => (k: number) => `(${p.lon[k]}, ${p.lat[k]})`
    const ops: PgOp[] = [
      {
        op: 'nearest',
        probes: plotProbes,
        where: at(plotProbes),
        ours: (k) => {
          const r = pq.reverse(plotProbes.lon[k], plotProbes.lat[k], REVERSE_REACH_M, countries, {}).plots()
          return { ids: r.map((p) => p.id), d: r.map((p) => p.distance_meters ?? NaN) }
        },
        values: (k) => [plotProbes.lon[k], plotProbes.lat[k], REVERSE_REACH_M],
        answer: idsAndDistances,
      },
      {
        op: 'radius',
        probes: plotProbes,
        where: at(plotProbes),
        ours: (k) => {
          const r = pq.radius(plotProbes.lon[k], plotProbes.lat[k], RADIUS_M, RADIUS_LIMIT, countries, {}).plots()
          return { ids: r.map((p) => p.id), d: r.map((p) => p.distance_meters ?? NaN) }
        },
        values: (k) => [plotProbes.lon[k], plotProbes.lat[k], RADIUS_M, RADIUS_LIMIT],
        answer: idsAndDistances,
      },
    ]
    if (parcels && dsParcels) {
      const atProbes = makeAtProbes(ds, count, ctx.opts.seed)
      const cq = createParcelQueries(ds)
      const f = { all: false }
      ops.push({
        op: 'at',
        probes: atProbes,
        where: at(atProbes),
        ours: (k) => ({ ids: cq.at(atProbes.lon[k], atProbes.lat[k], f).map((p) => p.id) }),
        values: (k) => [atProbes.lon[k], atProbes.lat[k]],
        answer: (rows) => ({ ids: rows.map((x) => x.id as number) }),
      })
    } else {
      data.notes!.push('point in polygon not measured: the dataset has no cadastre')
    }
    const corridor = await prepareCorridor(ctx, admin, cluster, ds, source, data)
    if (corridor) ops.push(corridor.op)

    const pgbench = findPgbench(cluster.bindir)
    if (!pgbench)
      data.notes!.push(
        `pgbench not found in ${cluster.bindir}: PostGIS's ${CONNECTIONS}-connection throughput comes from the ` +
          `\`pg\` clients alone, whose one Node thread may be what limits it`,
      )
    data.rows = []
    const answered: { o: PgOp; answers: Answer[] }[] = []
    for (const o of ops) {
      const ours = measureOurs(o.probes, rounds, o.ours)
      answered.push({ o, answers: ours.answers })
      const theirs: Answer[] = new Array(o.probes.length)
      const pgAsk = (c: Client, k: number) => ask(c, o, k)
      await measurePg(clients, o.probes, pgAsk, theirs) // warm-up (plans, caches) and the answers compared
      if (cluster.statStatements) await admin.query('SELECT pg_stat_statements_reset()')
      const seq = await measurePg(clients.slice(0, 1), o.probes, pgAsk)
      const server = cluster.statStatements
        ? (
            await admin.query<{ calls: string; mean: number }>(
              `SELECT calls::text AS calls, mean_exec_time AS mean FROM pg_stat_statements WHERE query = $1`,
              [SQL[o.op]],
            )
          ).rows[0]
        : undefined
      const pgServerMeanUs = server && Number(server.calls) > 0 ? server.mean * 1000 : null
      const conc = await measurePg(clients, o.probes, pgAsk)
      let agreement = { agreed: 0, tolerated: 0, disagreed: 0 }
      if (o.op === 'corridor' && corridor) {
        // uids met on one side only are looked up in PostGIS and explained (or fail the run)
        agreement = await corridor.agreement(ours.answers, theirs)
      } else {
        const shown: string[] = []
        for (let k = 0; k < o.probes.length; k++) {
          const v = compare(o.op, ours.answers[k], theirs[k])
          agreement[v]++
          if (v === 'disagreed' && shown.length < 3)
            shown.push(
              `${o.where(k)}: ours ${JSON.stringify(ours.answers[k])}, PostGIS ${JSON.stringify(theirs[k])}`.slice(
                0,
                600,
              ),
            )
        }
        if (agreement.disagreed)
          ctx.fail(
            `postgis ${o.op}: ${agreement.disagreed} of ${o.probes.length} answers differ, e.g. ${shown.join('; ')}`,
          )
      }
      let bench: { seq: PgbenchResult; conc: PgbenchResult } | undefined
      if (pgbench) {
        const r = pgbenchPass(ctx, cluster, pgbench, o)
        if ('error' in r) data.notes!.push(`pgbench on ${o.op}: ${r.error}`)
        else bench = r
      }
      const mean = (a: Answer[]) => a.reduce((s, x) => s + x.ids.length, 0) / a.length
      data.rows.push({
        op: o.op,
        probes: o.probes.length,
        ours: ours.summary,
        oursOpsPerS: ours.opsPerS,
        pgSeq: seq.summary,
        pgSeqQps: seq.qps,
        pgConc: conc.summary,
        pgConcQps: conc.qps,
        pgServerMeanUs,
        pgbenchSeq: bench?.seq,
        pgbench: bench?.conc,
        meanResultsOurs: mean(ours.answers),
        meanResultsPg: mean(theirs),
        agreement,
      })
      log(
        `postgis ${o.op}: ours p50 ${fmt(ours.summary.p50Us, 2)} us (${fmt(ours.opsPerS)} ops/s); PostGIS 1 conn ` +
          `p50 ${fmt(seq.summary.p50Us)} us (${fmt(seq.qps)} q/s, server-side ` +
          `mean ${fmt(pgServerMeanUs)} us), ` +
          `${CONNECTIONS} conns ${fmt(conc.qps)} q/s${bench ? ` (pgbench: 1 conn p50 ${fmt(bench.seq.latency.p50Us)} us, ${CONNECTIONS} conns ${fmt(bench.conc.qps)} q/s)` : ''}; agreement ${agreement.agreed}+${agreement.tolerated}/${o.probes.length}`,
      )
    }
    // the corridor's whole handler, in process, with PostgreSQL idle
    if (corridor && data.corridor) data.corridor.handler = await corridor.handler(rounds)
    if (ctx.opts.http) {
      const same = await sameRunHttp(ctx, cluster, pgbench, clients, answered)
      if ('skipped' in same)
        data.notes!.push(`ours over HTTP next to PostGIS in this run: not measured: ${same.skipped}`)
      else data.sameRun = same
    }
  } finally {
    await Promise.allSettled([admin, ...clients].map((c) => c.end()))
  }
}
