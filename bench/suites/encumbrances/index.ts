/**
 * The encumbrance service: `/encumbrances/parcel/{lpi}` and `/encumbrances/summary/parcel/{lpi}`,
 * `/encumbrances/at` next to `/parcels/at` on the same points, `POST /encumbrances/intersect`
 * with 200 km routes and 25 km² areas through dense townships, and vector tiles at z14 over the
 * densest township cells, in process; `/encumbrances/parcel/{lpi}`
 * over HTTP with 1 and 2 workers next to the Hono hello-world floor of the same run.
 *
 * In process, "whole handler" sends each request through the app (`app.request`: routing, key
 * check, rate limit, validation, queries, the JSON or MVT answer read back as text or bytes, not
 * parsed) without a socket; "queries only" is the `createEncumbranceQueries` calls the route
 * makes, without shaping the answer. Every answer is checked afterwards (untimed) against the
 * in-process queries.
 *
 * Probe sets, all seeded (`--seed`) and drawn from the dataset itself:
 * - LPIs: parcel rows drawn uniformly by id, kept when the LPI's current version (what the route
 *   serves) has encumbrance overlaps (80 %) or has none (20 %);
 * - dense townships: the `heat_cell` table (current records per 0.01° cell) gathered into
 *   clusters of cells within {@link CLUSTER_DEG} of the densest one;
 * - routes: from a dense township, hop to further dense townships ahead (turns bounded by
 *   {@link TURN_LIMITS}), each hop gently bent, then cut at {@link ROUTE_TARGET_M}; the best of
 *   {@link ROUTE_DRAWS} draws that pass the route's own validation (`parseInputGeometry`:
 *   length, positions, not self-intersecting);
 * - areas: 5 km × 5 km squares (25 km²) at a random angle on a dense township;
 * - tiles: the z14 tiles of random points in the densest heat cells;
 * - points: those of the parcel suite's `/parcels/at` HTTP run (measure-at.ts).
 *
 * Issue targets at national scale: `/intersect` of a 200 km line through dense townships p50 <=
 * 100 ms, `/parcel/{lpi}` p50 <= 1 ms, a z14 tile in a dense township <= 20 ms (p50), `/at` at
 * least half `/parcels/at`'s throughput (issue #37 item 4).
 *
 * @module *
 * This folder: probes.ts (the probe sets), measure.ts (timing and checks; measure-at.ts for `/at`), model.ts (the record),
 * report.ts (RESULTS.md); this file is the suite.
 *
 * @module
 */
import { ENCUMBRANCE_FILES } from '../../../src/data/encumbrance-format.js'
import { openDataset } from '../../../src/data/open-dataset.js'
import { withInProcessApp } from '../../lib/batches.js'
import type { Suite, SuiteRecord } from '../../lib/suite.js'
import { measureIntersect, measureLookups, measureTiles, runHttp } from './measure.js'
import { measureAt } from './measure-at.js'
import { skipped, type EncumbrancesData } from './model.js'
import { heatCells } from './probes.js'
import { renderEncumbrances } from './report.js'

export const encumbrancesSuite: Suite<EncumbrancesData> = {
  name: 'encumbrances',
  title: 'Encumbrances: /parcel/{lpi}, /summary, /intersect and z14 tiles in process, /parcel/{lpi} over HTTP',
  summary:
    '/encumbrances/parcel/{lpi} and /summary p50/p99 us, POST /intersect (200 km routes, 25 km² areas) ms, z14 ' +
    'tiles ms, /parcel/{lpi} req/s with 1 and 2 workers vs hello-world',

  async run(ctx) {
    const ds = openDataset(ctx.dataset.dir)
    try {
      const m = ds.domain('encumbrances')
      if (!m) {
        ctx.log('encumbrances: skipped: the dataset has no encumbrance domain')
        return skipped('the dataset has no encumbrance domain')
      }
      const edb = ds.sqlite(ENCUMBRANCE_FILES.sqlite)
      const counts = edb
        .prepare(
          'SELECT count(*) AS records, count(*) FILTER (WHERE record_status IS NULL) AS current FROM encumbrance',
        )
        .get() as { records: number; current: number }
      if (!counts.current) {
        ctx.log('encumbrances: skipped: the encumbrance domain holds no current record')
        return skipped('the encumbrance domain holds no current record')
      }
      return await withInProcessApp(ds, 'encumbrances', ['encumbrance', 'parcels'], async (app, key, services) => {
        const s = services.encumbrances!
        const data: EncumbrancesData = {
          ...skipped(''),
          records: counts.records,
          current: counts.current,
          overlaps: edb.prepare('SELECT count(*) FROM parcel_overlap').pluck().get() as number,
          version: s.version,
          asOf: s.asOf,
        }
        delete data.skipped
        ctx.log(
          `encumbrances: ${counts.records.toLocaleString('en-US')} records (${counts.current.toLocaleString('en-US')} current), ${data.overlaps.toLocaleString('en-US')} parcel overlaps`,
        )
        if (s.hasParcels) await measureLookups(ctx, ds, app, key, s, data)
        else data.notes.push('the dataset has no parcel domain: the parcel lookups and the HTTP runs were not measured')
        if (services.parcels) await measureAt(ctx, ds, app, key, s, services.parcels, data)
        else data.notes.push('the dataset has no parcel domain: /encumbrances/at was not measured against /parcels/at')
        const cells = heatCells(ds)
        await measureIntersect(ctx, cells, app, key, s, data)
        await measureTiles(ctx, cells, app, key, data)
        data.http = ctx.opts.http && s.hasParcels && data.lpis > 0 ? await runHttp(ctx, ds, s) : null
        return data
      })
    } finally {
      ds.close()
    }
  },

  render(r: SuiteRecord<EncumbrancesData>) {
    return renderEncumbrances(r)
  },
}
