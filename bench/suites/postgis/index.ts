/**
 * PostGIS side by side (issue 7): the same source exports loaded into a private PostgreSQL +
 * PostGIS cluster (GiST indexes), the same seeded probes asked of both, answers compared by id.
 *
 * - nearest plot: KNN `geog <-> point` gives the sphere-nearest plot (geography KNN orders on
 *   the sphere); every plot within {@link KNN_SLACK} of its distance (`ST_DWithin` on the
 *   sphere) is re-ranked by the ellipsoidal `ST_Distance`, within the same 100 km reach as
 *   `/plots/reverse` (a fixed count of KNN candidates missed the true nearest in sparse areas);
 * - radius: `ST_DWithin(geog, point, 500)` on geography (ellipsoid), `ORDER BY ST_Distance, id LIMIT 100`;
 * - point in polygon: `ST_Intersects(geom, point)` on geometry(MultiPolygon, 4326) with the
 *   default status filter (hidden when lstatus is A or W, or wstatus is H). ST_Intersects, not
 *   ST_Contains: docs/decisions.md makes a point on a parcel's boundary inside it (closed set), as
 *   `createParcelQueries().at` does; ST_Contains would drop boundary points;
 * - corridor: a seeded LineString of 2–5 km through built-up areas against the current
 *   encumbrances (geography(Geometry, 4326), GiST): `ST_Intersects` on geography and, for each
 *   record met, `ST_Length(ST_Intersection(geog, route))` (geography: the intersection is computed
 *   in PostGIS's best-fit projection, the length on the spheroid); in the same statement the
 *   current parcels other than parent farms whose interior the route enters (`ST_Intersects AND
 *   NOT ST_Touches` on geometry) with the length inside. Ours is `createEncumbranceQueries().intersect`,
 *   what `POST /encumbrances/intersect` calls (encumbrances and parcels); the whole handler
 *   (`app.request`, JSON answer included) is timed as well. Agreement is the set of encumbrance
 *   uids met per route: a uid on one side only is looked up in PostGIS (untimed) and explained
 *   as our 2 cm edge tolerance, or as the edge model (ours: straight edges in lon/lat; PostGIS
 *   geography: great-circle arcs), or fails the run.
 *
 * PostGIS runs through `pg` with named prepared statements: once sequentially (1 connection,
 * per-query latency) and once with 8 connections each taking its share of the probes (queries/s);
 * then through pgbench, PostgreSQL's C client, with 1 and 8 connections on the same statements
 * and probes, since the 8 `pg` clients share one Node thread that can be the limit (the ratios
 * use whichever client got more out of PostGIS). Ours runs in process, single thread. Targets (reported, not asserted):
 * ours >= 50x faster per
 * query than PostGIS sequential; ours >= 3x PostGIS's 8-connection throughput.
 *
 * Rows and ids come from the build's own readers and normalisers (same accepted rows, same
 * order, so the same ids); parcel geometry is snapped to the dataset's 1e-7 degree grid exactly
 * as the build stores it, so both sides test the same polygons.
 *
 * This folder, one stage per module: model.ts (settings and the record's shape), load.ts (source
 * exports into COPY files, COPY, GiST, ANALYZE; bench/lib/postgis.ts installs and starts the
 * cluster), queries.ts (the statements), measure.ts (timing both sides, pgbench), compare.ts
 * (agreement), corridor.ts (the corridor row), http.ts (ours over HTTP), run.ts (one run),
 * report.ts (RESULTS.md); this file is the suite.
 *
 * @module
 */
import { dirname, join } from 'node:path'
import { provinceDirs } from '../../../build-index/sources/province-dirs.js'
import { findLayerFile } from '../../../build-index/sources/read-layer.js'
import { openDataset } from '../../../src/data/open-dataset.js'
import { NO_POSTGIS_ENV, preparePostgis, startCluster } from '../../lib/postgis.js'
import type { Suite, SuiteRecord } from '../../lib/suite.js'
import { httpFromResults } from './http.js'
import { CONNECTIONS, type PostgisData } from './model.js'
import { renderPostgis } from './report.js'
import { runWith, Skip, type PgModule } from './run.js'

export const postgisSuite: Suite<PostgisData> = {
  name: 'postgis',
  title: 'PostGIS side by side',
  summary:
    `the same probes against PostgreSQL + PostGIS (GiST; 1 and ${CONNECTIONS} connections) vs in process: ` +
    `latency, throughput, ratio, agreement (${NO_POSTGIS_ENV}=1 skips)`,

  async run(ctx) {
    const data: PostgisData = { connections: CONNECTIONS, notes: [] }
    const source = join(dirname(ctx.dataset.dir), 'source')
    if (process.env[NO_POSTGIS_ENV] === '1') return { ...data, skipped: `${NO_POSTGIS_ENV}=1` }
    if (
      !findLayerFile(join(source, 'botswana'), 'plots') &&
      !findLayerFile(join(source, 'south_africa'), 'erven') &&
      !provinceDirs(join(source, 'south_africa', 'cadastre')).length
    )
      return { ...data, skipped: `no source export next to the dataset (${source}); PostGIS loads the source exports` }
    let pg: PgModule
    try {
      pg = (await import('pg')).default
    } catch (err) {
      return {
        ...data,
        skipped: `the PostgreSQL client \`pg\` (a dev dependency) cannot be loaded: ${(err as Error).message.split('\n')[0]}; run npm install`,
      }
    }
    const install = preparePostgis(ctx.log)
    if ('skipped' in install) {
      ctx.log(`postgis: skipped: ${install.skipped}`)
      return { ...data, skipped: install.skipped }
    }
    data.install = { packages: install.installed, ms: install.installMs }
    const cluster = await startCluster(install, ctx.log)
    if ('skipped' in cluster) {
      ctx.log(`postgis: skipped: ${cluster.skipped}`)
      return { ...data, skipped: cluster.skipped }
    }
    const ds = openDataset(ctx.dataset.dir)
    try {
      await runWith(ctx, pg, cluster, ds, source, data)
    } catch (err) {
      if (!(err instanceof Skip)) throw err
      ctx.log(`postgis: skipped: ${err.message}`)
      return { ...data, skipped: err.message }
    } finally {
      ds.close()
      cluster.stop()
      ctx.log('postgis: cluster stopped, temporary directory removed')
    }
    data.http = httpFromResults(ctx)
    return data
  },

  render(r: SuiteRecord<PostgisData>) {
    return renderPostgis(r)
  },
}
