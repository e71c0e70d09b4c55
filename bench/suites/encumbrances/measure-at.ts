/**
 * `GET /encumbrances/at` in process (issue #37 item 4), on the points the parcel suite's HTTP run
 * asks `/parcels/at` (seeded, each within 400 m of a published parcel's label point and in a
 * parcel): radius 0 (the default) queries only and whole handler, radius 1 km queries only (on a
 * fifth of the points), and `/parcels/at`'s whole handler on the same points, the yardstick: the
 * issue asks `/encumbrances/at` for at least half its throughput at national scale
 * (TARGETS.atThroughputRatio). Every whole
 * handler answer is checked afterwards against the in-process queries.
 */
import type { createApp } from '../../../src/app.js'
import type { OpenDataset } from '../../../src/data/open-dataset.js'
import type { EncumbranceQueries } from '../../../src/features/encumbrances/queries.js'
import type { ParcelQueries } from '../../../src/features/parcels/queries.js'
import { measureAsync } from '../../lib/measure.js'
import { fmt } from '../../lib/stats.js'
import type { SuiteContext } from '../../lib/suite.js'
import { makeParcelProbes } from '../parcels.js'
import { failures } from './measure.js'
import { QUERIES, WHOLE, type EncumbrancesData } from './model.js'

type App = ReturnType<typeof createApp>

export async function measureAt(
  ctx: SuiteContext,
  ds: OpenDataset,
  app: App,
  key: string,
  s: EncumbranceQueries,
  parcels: ParcelQueries,
  data: EncumbrancesData,
): Promise<void> {
  const quick = ctx.opts.quick
  const rounds = quick ? 1 : 3
  // the parcel suite's HTTP points (same label), as the URLs write them, kept where a parcel is
  const drawn = makeParcelProbes(ds, quick ? 500 : 5_000, ctx.opts.seed, 'http', 1)
  const lon: number[] = []
  const lat: number[] = []
  for (let k = 0; k < drawn.length; k++) {
    const x = Number(drawn.lon[k].toFixed(7))
    const y = Number(drawn.lat[k].toFixed(7))
    if (!parcels.at(x, y, { all: false }).length) continue
    lon.push(x)
    lat.push(y)
  }
  const n = lon.length
  if (!n) {
    data.notes.push('no probe point lies in a parcel: /encumbrances/at was not measured')
    return
  }
  const kind = new Uint8Array(n)
  const classes = s.classes
  const headers = { 'X-API-KEY': key }
  const query = (k: number) => `latitude=${lat[k]}&longitude=${lon[k]}`
  ctx.log(`encumbrances: /at on ${n} points in parcels x ${rounds} rounds`)
  data.atPoints = n
  data.atRounds = rounds
  const rows = (data.atRows = [] as NonNullable<EncumbrancesData['atRows']>)

  rows.push((await measureAsync('/at', QUERIES, n, rounds, kind, (k) => s.at(lon[k], lat[k], 0, classes).length)).row)
  const n1km = Math.max(1, Math.floor(n / 5))
  rows.push(
    (
      await measureAsync(
        '/at radius 1 km',
        QUERIES,
        n1km,
        rounds,
        kind,
        (k) => s.at(lon[k], lat[k], 1000, classes).length,
      )
    ).row,
  )
  const texts: string[] = new Array(n)
  const statuses = new Uint16Array(n)
  const whole = await measureAsync('/at', WHOLE, n, rounds, kind, async (k) => {
    const res = await app.request(`/api/v1/encumbrances/at?${query(k)}`, { headers })
    texts[k] = await res.text()
    statuses[k] = res.status
    return 0
  })
  const check = failures(ctx, 'GET /at')
  let results = 0
  for (let k = 0; k < n; k++) {
    const want = JSON.stringify(s.at(lon[k], lat[k], 0, classes).map((h) => h.row.uid))
    const body = statuses[k] === 200 ? (JSON.parse(texts[k]) as { encumbrances: { encumbrance_uid: number }[] }) : null
    const got = body ? JSON.stringify(body.encumbrances.map((e) => e.encumbrance_uid)) : `status ${statuses[k]}`
    if (got !== want) check.fail(`${query(k)} answered ${got.slice(0, 120)}, in process ${want.slice(0, 120)}`)
    results += body?.encumbrances.length ?? 0
  }
  check.done()
  whole.row.meanResults = results / n
  rows.push(whole.row)
  const parcelsWhole = await measureAsync('/parcels/at (same points)', WHOLE, n, rounds, kind, async (k) => {
    const res = await app.request(`/api/v1/parcels/at?${query(k)}`, { headers })
    await res.arrayBuffer()
    if (res.status !== 200) check.fail(`/parcels/at?${query(k)} answered ${res.status}`)
    return 1
  })
  rows.push(parcelsWhole.row)
  ctx.log(
    `encumbrances: /at whole handler p50 ${fmt(whole.row.all.p50Us)} us, mean ${fmt(whole.row.all.meanUs)} us (queries ` +
      `only p50 ${fmt(rows[0].all.p50Us)} us, 1 km ${fmt(rows[1].all.p50Us)} us); /parcels/at whole handler mean ` +
      `${fmt(parcelsWhole.row.all.meanUs)} us: ${fmt(parcelsWhole.row.all.meanUs / whole.row.all.meanUs, 2)}x its throughput`,
  )
}
