/**
 * The plot lookup service in process: `reverse` and `radius` (500 m, limit 100) through
 * `createPlotQueries`, exactly as the routes call them (every country, no town scope), over a
 * seeded probe set. An "index only" row runs the same cross-country logic on the PointIndex
 * alone, so the cost of reading numbers and towns and writing the answer shows as the difference;
 * a "plots as objects" row builds the answer as objects (the measure of records before the
 * routes wrote JSON bytes).
 *
 * Issue 3 targets at national scale: reverse p50 <= 20 us, radius p50 <= 100 us.
 *
 * @module
 */
import { openDataset } from '../../src/data/open-dataset.js'
import { PLOT_FILES } from '../../src/data/plots-format.js'
import { createPlotQueries, type FoundPlots } from '../../src/features/plots/queries.js'
import { JsonBytes } from '../../src/http/json-bytes.js'
import { REVERSE_REACH_M } from '../../src/features/plots/schemas.js'
import { PointIndex, type PointHit } from '../../src/geo/point-index.js'
import { loadLayers, makeProbes } from '../lib/layers.js'
import { measure, type OpRow } from '../lib/measure.js'
import { fmt } from '../lib/stats.js'
import type { Suite, SuiteRecord } from '../lib/suite.js'

export const RADIUS_M = 500
export const RADIUS_LIMIT = 100
/** Issue 3 targets, microseconds (national scale). */
export const TARGETS_US = { reverse: 20, radius: 100 }

type PlotsRow = OpRow<'service' | 'service, plots as objects' | 'index only'>

export interface PlotsData {
  probes: number
  rounds: number
  rows: PlotsRow[]
}

export const plotsSuite: Suite<PlotsData> = {
  name: 'plots',
  title: 'Plot lookup service, in process',
  summary: 'reverse and radius (500 m, limit 100) through createPlotQueries, p50/p99 us and ops/s',

  async run(ctx) {
    const ds = openDataset(ctx.dataset.dir)
    try {
      const q = createPlotQueries(ds)
      const layers = loadLayers(ds)
      const count = ctx.opts.quick ? 1_000 : 20_000
      const rounds = ctx.opts.quick ? 1 : 3
      const probes = makeProbes(layers, count, ctx.opts.seed, 'plots')
      const countries = q.countries
      ctx.log(`plots: ${count} probes x ${rounds} rounds over ${layers.map((l) => `${l.country} ${l.n}`).join(', ')}`)

      // the same cross-country logic as queries.ts, on the index alone
      const indexes = layers.map((l) => PointIndex.from(ds.arrayBuffer(PLOT_FILES[l.country].kdbush), l.n))
      const nearestIndexOnly = (lon: number, lat: number): PointHit | null => {
        let best: PointHit | null = null
        for (const ix of indexes) {
          const h = ix.nearest(lon, lat, best ? Math.min(REVERSE_REACH_M, best.distanceM) : REVERSE_REACH_M)
          if (h && (!best || h.distanceM < best.distanceM)) best = h
        }
        return best
      }
      const withinIndexOnly = (lon: number, lat: number): number => {
        const found: PointHit[] = []
        for (const ix of indexes) for (const h of ix.within(lon, lat, RADIUS_M, RADIUS_LIMIT)) found.push(h)
        found.sort((a, b) => a.distanceM - b.distanceM)
        return Math.min(found.length, RADIUS_LIMIT)
      }

      // the service rows write the plots' JSON bytes, as the routes do, and count the plots
      const writer = new JsonBytes()
      let textBytes = 0
      const answered = (f: FoundPlots): number => {
        f.write(writer.start())
        textBytes += writer.take().length
        return f.length
      }
      const rows: PlotsRow[] = []
      const { lon, lat } = probes
      rows.push(
        measure('reverse', 'service', probes, rounds, (k) =>
          answered(q.reverse(lon[k], lat[k], REVERSE_REACH_M, countries, {})),
        ),
      )
      ctx.log(`plots: reverse p50 ${fmt(rows.at(-1)!.all.p50Us)} us`)
      rows.push(measure('reverse', 'index only', probes, rounds, (k) => (nearestIndexOnly(lon[k], lat[k]) ? 1 : 0)))
      rows.push(
        measure('radius', 'service', probes, rounds, (k) =>
          answered(q.radius(lon[k], lat[k], RADIUS_M, RADIUS_LIMIT, countries, {})),
        ),
      )
      ctx.log(`plots: radius p50 ${fmt(rows.at(-1)!.all.p50Us)} us`)
      rows.push(
        measure(
          'radius',
          'service, plots as objects',
          probes,
          rounds,
          (k) => q.radius(lon[k], lat[k], RADIUS_M, RADIUS_LIMIT, countries, {}).plots().length,
        ),
      )
      rows.push(measure('radius', 'index only', probes, rounds, (k) => withinIndexOnly(lon[k], lat[k])))
      ctx.log(`plots: ${(textBytes / 2 ** 20).toFixed(1)} MiB of answer JSON written by the service rows`)
      return { probes: count, rounds, rows }
    } finally {
      ds.close()
    }
  },

  render(r: SuiteRecord<PlotsData>) {
    const d = r.data
    const lines = [
      `${d.probes.toLocaleString('en-US')} seeded probes (80 % within 400 m of a real plot, 20 % uniform in the ` +
        `country's extent; half per country), ` +
        `${d.rounds} timed round(s) after one warm-up round; ops/s from one untimed pass. Radius = ${RADIUS_M} m, limit ${RADIUS_LIMIT}. ` +
        `"service" is \`createPlotQueries\` (index + plot numbers and towns from the in-memory tables + the plots' ` +
        `JSON bytes, as the route writes them); ` +
        `"plots as objects" builds the answer's plot objects instead of its bytes (what "service" measured before ` +
        `2026-11-25, when the route still serialised those objects); "index only" is the same cross-country ` +
        `search on the PointIndex alone.`,
      '',
      '| query | variant | p50 µs | p99 µs | mean µs | p50 near / random µs | ops/s | mean results | target p50 | ' +
        'verdict |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|---|',
    ]
    for (const row of d.rows) {
      const target = row.variant === 'service' ? TARGETS_US[row.op as keyof typeof TARGETS_US] : undefined
      const verdict =
        target === undefined
          ? ''
          : r.dataset.scale !== 'national'
            ? `(target is for national scale)`
            : row.all.p50Us <= target
              ? 'met'
              : `missed by ${fmt(row.all.p50Us - target)} µs (${fmt(row.all.p50Us / target, 2)}x)`
      lines.push(
        `| ${row.op} | ${row.variant} | ${fmt(row.all.p50Us)} | ${fmt(row.all.p99Us)} | ${fmt(row.all.meanUs)} | ${fmt(row.near?.p50Us)} / ${fmt(row.random?.p50Us)} | ${fmt(row.opsPerS)} | ${fmt(row.meanResults)} | ${target ? `≤ ${target}` : ''} | ${verdict} |`,
      )
    }
    // where a target is missed, what the service's time is made of: from the ops/s column (one
    // untimed pass), steadier than differences of p50s measured in turns
    const find = (op: string, variant: string) => d.rows.find((x) => x.op === op && x.variant === variant)
    const perOp = (row: PlotsRow | undefined) => (row && row.opsPerS > 0 ? 1e6 / row.opsPerS : undefined)
    const limits: string[] = []
    for (const op of Object.keys(TARGETS_US) as (keyof typeof TARGETS_US)[]) {
      const service = find(op, 'service')
      const whole = perOp(service)
      const index = perOp(find(op, 'index only'))
      if (
        r.dataset.scale !== 'national' ||
        !service ||
        whole === undefined ||
        index === undefined ||
        service.all.p50Us <= TARGETS_US[op]
      )
        continue
      const objects = perOp(find(op, 'service, plots as objects'))
      const rest = whole - index
      limits.push(
        `${op}: per answer in the untimed pass, ${fmt(whole)} µs, of which the index search ${fmt(index)} µs and reading the ` +
          `plot numbers and towns and writing the answer's bytes ${fmt(rest)} µs, ~${fmt((1000 * rest) / Math.max(1, service.meanResults))} ns per plot answered` +
          (objects === undefined
            ? ''
            : ` (making the plots as objects instead: ${fmt(objects - index)} µs, before any JSON.stringify)`),
      )
    }
    if (limits.length) lines.push('', `What limits it: ${limits.join('; ')}.`)
    return lines.join('\n')
  },
}
