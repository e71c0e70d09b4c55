/**
 * The corridor row: seeded routes through built-up areas, the current encumbrances loaded into
 * PostGIS, the agreement on the uids met (differences explained or failing the run), the lengths
 * inside, the parcels entered, and our whole `POST /encumbrances/intersect` handler in process.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import KDBush from 'kdbush'
import type { Client } from 'pg'
import pino from 'pino'
import { provinceDirs } from '../../../build-index/sources/province-dirs.js'
import { createApp } from '../../../src/app.js'
import { SqliteKeyStore } from '../../../src/auth/key-store.js'
import { ENCUMBRANCE_CLASSES, ENCUMBRANCE_FILES } from '../../../src/data/encumbrance-format.js'
import { DatasetHandle, type OpenDataset } from '../../../src/data/open-dataset.js'
import { PARCEL_FILES } from '../../../src/data/parcels-format.js'
import { parseInputGeometry } from '../../../src/features/encumbrances/geometry-input.js'
import { createEncumbranceQueries } from '../../../src/features/encumbrances/queries.js'
import { fastGeodesicM, metresPerDegree } from '../../../src/geo/geodesic.js'
import { lineOverlap } from '../../../src/geo/overlay/line-overlap.js'
import { MemoryRateLimiter } from '../../../src/rate-limit/memory.js'
import { buildServices } from '../../../src/services.js'
import { BenchKeys } from '../../lib/keys.js'
import { lineStringWkt, type Cluster } from '../../lib/postgis.js'
import { Random } from '../../lib/prng.js'
import { fmt, median, Samples, type Summary } from '../../lib/stats.js'
import type { SuiteContext } from '../../lib/suite.js'
import { explainDifference } from './compare.js'
import { loadEncumbrances } from './load.js'
import {
  CORRIDOR,
  LENGTH_TOL,
  PARCEL_EDGE_DEPTH_M,
  PARCEL_EDGE_M,
  type Answer,
  type CorridorData,
  type PostgisData,
} from './model.js'
import { EXPLAIN_SQL, PARCEL_EDGE_SQL, PLANAR_LENGTH_SQL, type PgOp } from './queries.js'
import { round } from '../../../src/geo/round.js'

const round7 = (v: number) => round(v, 7)

/**
 * `count` corridor probes: LineStrings of {@link CORRIDOR}.minM–maxM drawn through built-up
 * areas from the dataset's parcels. Each starts on the label point of a random published parcel
 * (drawn uniformly by row, so mostly erven in towns) at a random heading, then takes steps of
 * `stepM`, turning up to ± `turnDeg` each, every step's end moved to the nearest published
 * parcel's label point within `snapM` when there is one, turning up to twice `turnDeg` more to
 * find one (so the route runs through parcels, not along the empty land between towns). Positions have 7 decimals, as a
 * client sends them; a draw
 * the route's own validation refuses (self-intersecting) is drawn again.
 */
export function makeCorridorProbes(
  ds: OpenDataset,
  count: number,
  seed: number,
): { routes: [number, number][][]; snapped: number; positions: number } {
  // published parcels' label points (without a cadastre: the box centres of the current encumbrances)
  const [db, where] = ds.domain('parcels')
    ? [ds.sqlite(PARCEL_FILES.sqlite), 'SELECT label_lon, label_lat FROM parcel WHERE hidden = 0 ORDER BY id']
    : [
        ds.sqlite(ENCUMBRANCE_FILES.sqlite),
        'SELECT (min_x + max_x) / 2, (min_y + max_y) / 2 FROM encumbrance WHERE record_status IS NULL ORDER BY id',
      ]
  const n = db.prepare(`SELECT count(*) FROM (${where})`).pluck().get() as number
  const routes: [number, number][][] = []
  if (!n) return { routes, snapped: 0, positions: 0 }
  const lon = new Float64Array(n)
  const lat = new Float64Array(n)
  const kd = new KDBush(n, 64, Float64Array)
  let k = 0
  for (const [x, y] of db.prepare(where).raw().iterate() as Iterable<[number, number]>) {
    lon[k] = x
    lat[k++] = y
    kd.add(x, y)
  }
  kd.finish()
  const rnd = new Random(seed >>> 0, 'bench/postgis/corridor')
  const turn = (CORRIDOR.turnDeg * Math.PI) / 180
  let snapped = 0
  let positions = 0
  for (let tries = 0; routes.length < count && tries < count * 20; tries++) {
    const s0 = rnd.int(0, n - 1)
    const wantM = rnd.range(CORRIDOR.minM, CORRIDOR.maxM)
    let heading = rnd.range(0, 2 * Math.PI)
    let x = round7(lon[s0])
    let y = round7(lat[s0])
    const line: [number, number][] = [[x, y]]
    let moved = 0
    for (let lengthM = 0, steps = 0; lengthM < wantM && steps < 100; steps++) {
      heading += rnd.range(-turn, turn)
      const m = metresPerDegree(y)
      const rx = CORRIDOR.snapM / m.lon
      const ry = CORRIDOR.snapM / m.lat
      // the step's end on the heading, or turned one or two `turnDeg` either way when only there
      // a parcel's label point lies within `snapM` (the route stays in the built-up area)
      let best = -1
      let tx = NaN
      let ty = NaN
      for (const dh of [0, turn, -turn, 2 * turn, -2 * turn]) {
        const cx = x + (CORRIDOR.stepM * Math.cos(heading + dh)) / m.lon
        const cy = y + (CORRIDOR.stepM * Math.sin(heading + dh)) / m.lat
        if (dh === 0) {
          tx = cx
          ty = cy
        }
        let bestM = CORRIDOR.snapM
        for (const i of kd.range(cx - rx, cy - ry, cx + rx, cy + ry)) {
          const d = Math.hypot((lon[i] - cx) * m.lon, (lat[i] - cy) * m.lat)
          if (d < bestM) {
            bestM = d
            best = i
          }
        }
        if (best >= 0) {
          heading += dh
          break
        }
      }
      if (best >= 0) moved++
      const nx = round7(best >= 0 ? lon[best] : tx)
      const ny = round7(best >= 0 ? lat[best] : ty)
      lengthM += fastGeodesicM(x, y, nx, ny)
      x = nx
      y = ny
      line.push([x, y])
    }
    // the route's own validation: positions, length, not self-intersecting
    if (Array.isArray(parseInputGeometry({ type: 'LineString', coordinates: line }))) continue
    routes.push(line)
    snapped += moved
    positions += line.length - 1
  }
  return { routes, snapped, positions }
}

/**
 * The corridor row: loads the current encumbrances (COPY, GiST, VACUUM ANALYZE, timed apart
 * from the other tables), checks they are the dataset's, draws the routes, and returns the op
 * plus its agreement check and its whole-handler timing. Null, with a note, when the dataset or
 * the source has no encumbrances.
 */
export async function prepareCorridor(
  ctx: SuiteContext,
  admin: Client,
  cluster: Cluster,
  ds: OpenDataset,
  source: string,
  data: PostgisData,
): Promise<{
  op: PgOp
  agreement(ours: Answer[], theirs: Answer[]): Promise<{ agreed: number; tolerated: number; disagreed: number }>
  handler(rounds: number): Promise<Summary>
} | null> {
  const log = ctx.log
  if (!ds.domain('encumbrances') || !ds.has(ENCUMBRANCE_FILES.sqlite)) {
    data.notes!.push('corridor not measured: the dataset has no encumbrance domain')
    return null
  }
  if (!provinceDirs(join(source, 'south_africa', 'encumbrances')).length) {
    data.notes!.push(
      `corridor not measured: the source export has no encumbrance layers (${join(source, 'south_africa', 'encumbrances')})`,
    )
    return null
  }
  // ---- load
  const { uids, load } = await loadEncumbrances(log, admin, cluster, source)

  // the uid sets only compare if both sides hold the same records
  const served = ds
    .sqlite(ENCUMBRANCE_FILES.sqlite)
    .prepare('SELECT uid FROM encumbrance WHERE record_status IS NULL ORDER BY uid')
    .pluck()
    .all() as number[]
  const loaded = [...uids].sort((a, b) => a - b)
  const firstDiff = loaded.findIndex((u, i) => u !== served[i])
  if (loaded.length !== served.length || firstDiff >= 0)
    ctx.fail(
      `postgis: loaded ${loaded.length} current encumbrances from the source, the dataset serves ${served.length} (first difference ` +
        `at uid ${loaded[firstDiff] ?? served[loaded.length]}): uid sets would ` +
        `not compare`,
    )

  // ---- routes
  const count = ctx.opts.quick ? 30 : 500
  const { routes, snapped, positions } = makeCorridorProbes(ds, count, ctx.opts.seed)
  if (routes.length < count)
    data.notes!.push(`corridor: ${routes.length} of ${count} routes drawn (the others kept self-intersecting)`)
  const lengths = routes.map((r) => {
    let m = 0
    for (let i = 0; i + 1 < r.length; i++) m += fastGeodesicM(r[i][0], r[i][1], r[i + 1][0], r[i + 1][1])
    return m
  })
  const wkt = routes.map(lineStringWkt)
  const eq = createEncumbranceQueries(ds)
  const classes = [...ENCUMBRANCE_CLASSES]
  const corridor: CorridorData = {
    load,
    routes: {
      count: routes.length,
      meanLengthM: lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length),
      minLengthM: Math.min(...lengths),
      maxLengthM: Math.max(...lengths),
      meanPositions: routes.reduce((a, r) => a + r.length, 0) / Math.max(1, routes.length),
      snappedShare: positions ? snapped / positions : 0,
    },
    handler: null,
    encumbrances: { agreed: 0, tolerated: 0, disagreed: 0, probes: routes.length },
    lengths: {
      pairs: 0,
      within: 0,
      medianAbsM: NaN,
      maxAbsM: NaN,
      worst: null,
      outsideStraightAgree: 0,
      otherOutliers: [],
    },
    parcels: { agreed: 0, tolerated: 0, disagreed: 0, meanOurs: 0, meanPg: 0, examples: [] },
    differences: [],
    differenceCounts: { tolerance: 0, 'edge model': 0, unexplained: 0 },
  }
  data.corridor = corridor

  const op: PgOp = {
    op: 'corridor',
    probes: { length: routes.length },
    where: (k) => `route ${k} from (${routes[k][0].join(', ')})`,
    ours: (k) => {
      const r = eq.intersect({ lines: [routes[k]] }, classes)
      return {
        ids: r.encumbrances.map((e) => e.row.uid),
        d: r.encumbrances.map((e) => e.overlap.overlapM ?? 0),
        parcels: r.parcels.map((p) => p.parcel.id),
        parcelM: r.parcels.map((p) => p.overlapM ?? 0),
      }
    },
    values: (k) => [wkt[k]],
    answer: (rows) => {
      const a: Answer = { ids: [], d: [], parcels: [], parcelM: [] }
      for (const x of rows as { k: number; id: string; m: number }[]) {
        if (x.k === 0) {
          a.ids.push(Number(x.id))
          a.d!.push(x.m)
        } else {
          a.parcels!.push(Number(x.id))
          a.parcelM!.push(x.m)
        }
      }
      return a
    },
  }

  async function agreement(ours: Answer[], theirs: Answer[]) {
    const enc = corridor.encumbrances
    const absDiffs: number[] = []
    let failures = 0
    for (let k = 0; k < routes.length; k++) {
      const a = new Map(ours[k].ids.map((id, i) => [id, ours[k].d![i]]))
      const b = new Map(theirs[k].ids.map((id, i) => [id, theirs[k].d![i]]))
      // lengths of the records met on both sides
      for (const [uid, m] of a) {
        const pm = b.get(uid)
        if (pm === undefined) continue
        const diff = Math.abs(m - pm)
        absDiffs.push(diff)
        const tol = Math.max(LENGTH_TOL.m, LENGTH_TOL.share * pm)
        let straight: number | null = null
        if (diff <= tol) corridor.lengths.within++
        else {
          // is it the edge model? the same intersection with straight edges in lon/lat, as ours draws them
          straight = (await admin.query<{ m: number }>(PLANAR_LENGTH_SQL, [wkt[k], uid])).rows[0]?.m ?? null
          if (straight !== null && Math.abs(m - straight) <= tol) corridor.lengths.outsideStraightAgree++
          else if (corridor.lengths.otherOutliers.length < 5) {
            const o = ours[k].ids.indexOf(uid)
            const rel = eq.intersect({ lines: [routes[k]] }, classes).encumbrances.find((e) => e.row.uid === uid)
            corridor.lengths.otherOutliers.push(
              `uid ${uid} (${rel?.row.cls}, ${rel?.overlap.relationship}) on route ${k}: ours ${fmt(ours[k].d![o], 3)} m, PostGIS ${fmt(pm, 3)} m, with straight ` +
                `edges ${fmt(straight, 3)} m` +
                // a touch's length is the run along the record's boundary, within our 2 cm; PostGIS counts only what
                // lies exactly on or in it
                (rel?.overlap.relationship === 'touches'
                  ? ' (a run along the boundary: ours counts it within 2 cm, PostGIS only where exactly on it)'
                  : ''),
            )
          }
        }
        if (!(diff <= corridor.lengths.maxAbsM)) {
          corridor.lengths.maxAbsM = diff
          corridor.lengths.worst = `uid ${uid} on route ${k}: ours ${fmt(m, 2)} m, PostGIS ${fmt(pm, 2)} m${
            straight !== null ? `, PostGIS with ` + `straight edges ${fmt(straight, 2)} m` : ''
          }`
        }
      }
      const only: ['ours' | 'PostGIS', number][] = [
        ...[...a.keys()].filter((u) => !b.has(u)).map((u) => ['ours', u] as ['ours', number]),
        ...[...b.keys()].filter((u) => !a.has(u)).map((u) => ['PostGIS', u] as ['PostGIS', number]),
      ]
      if (!only.length) {
        enc.agreed++
        continue
      }
      let unexplained = false
      const kx = metresPerDegree(routes[k][0][1]).lon
      for (const [side, uid] of only) {
        const r = (
          await admin.query<{ cls: string; gap_m: number; planar: boolean; planar_gap: number }>(EXPLAIN_SQL, [
            wkt[k],
            uid,
          ])
        ).rows[0]
        const kind = r ? explainDifference(side, r.gap_m, r.planar, r.planar_gap * kx) : 'unexplained'
        corridor.differenceCounts[kind]++
        if (corridor.differences.length < 50)
          corridor.differences.push({
            route: k,
            uid,
            side,
            cls: r?.cls ?? '?',
            kind,
            gapM: r?.gap_m ?? NaN,
            planarMeets: r?.planar ?? false,
            planarGapDeg: r?.planar_gap ?? NaN,
          })
        if (kind === 'unexplained') {
          unexplained = true
          if (failures++ < 3)
            ctx.fail(
              `postgis corridor: route ${k} (${wkt[k].slice(0, 80)}…): uid ${uid} (${r?.cls}) met by ${side} only, ${fmt(r?.gap_m, 3)} m from the route on ` +
                `geography, straight-edge ${r?.planar ? 'meets' : 'misses'}`,
            )
        }
      }
      if (unexplained) enc.disagreed++
      else enc.tolerated++
    }
    if (failures > 3) ctx.fail(`postgis corridor: ${failures - 3} more unexplained differences not listed`)
    corridor.lengths.pairs = absDiffs.length
    corridor.lengths.medianAbsM = median(absDiffs)

    // parcels entered: same id set, or the ids on one side only are edge cases of our tolerance:
    // listed by PostGIS only with the piece inside wholly within PARCEL_EDGE_M of the boundary
    // (ours: along the boundary, a touch), or by ours only entering by at most PARCEL_EDGE_M
    const p = corridor.parcels
    let pFailures = 0
    for (let k = 0; k < routes.length; k++) {
      const a = new Map(ours[k].parcels!.map((id, i) => [id, ours[k].parcelM![i]]))
      const b = new Map(theirs[k].parcels!.map((id, i) => [id, theirs[k].parcelM![i]]))
      p.meanOurs += a.size / routes.length
      p.meanPg += b.size / routes.length
      const only = [
        ...[...a].filter(([id]) => !b.has(id)).map(([id, m]) => ({ id, m, side: 'ours' })),
        ...[...b].filter(([id]) => !a.has(id)).map(([id, m]) => ({ id, m, side: 'PostGIS' })),
      ]
      if (!only.length) {
        p.agreed++
        continue
      }
      const unexplained: typeof only = []
      for (const x of only) {
        let edge = x.m <= PARCEL_EDGE_M
        if (x.side === 'PostGIS') {
          const o = lineOverlap([routes[k]], eq.parcelGeometry(x.id))
          // (PostGIS may split a run along a shared edge between the two parcels, a few mm either side)
          const alongBoundary = o !== null && o.relationship === 'touches' && x.m <= o.boundaryM + 0.01
          edge =
            alongBoundary &&
            ((await admin.query<{ near: boolean }>(PARCEL_EDGE_SQL, [wkt[k], x.id, PARCEL_EDGE_DEPTH_M])).rows[0]
              ?.near ??
              false)
        }
        if (!edge) unexplained.push(x)
      }
      // the unexplained first, at most 3 named
      const listed = [...unexplained, ...only.filter((x) => !unexplained.includes(x))]
      const what =
        listed
          .slice(0, 3)
          .map(
            (x) =>
              `parcel ${x.id} by ${x.side} only (${fmt(x.m, 3)} m inside${
                unexplained.includes(x) ? '' : ', within the edge ' + 'tolerance'
              })`,
          )
          .join(', ') + (listed.length > 3 ? ` and ${listed.length - 3} more` : '')
      if (p.examples.length < 5) p.examples.push(`route ${k}: ${what}`)
      if (!unexplained.length) p.tolerated++
      else {
        p.disagreed++
        if (pFailures++ < 3) ctx.fail(`postgis corridor: route ${k} (${wkt[k].slice(0, 80)}…): ${what}`)
      }
    }
    log(
      `postgis corridor: encumbrance uids agree on ${enc.agreed} + ${enc.tolerated} explained of ${routes.length} routes (${JSON.stringify(corridor.differenceCounts)}); ` +
        `lengths within tolerance ${corridor.lengths.within}/${corridor.lengths.pairs}, max |diff| ${fmt(corridor.lengths.maxAbsM, 3)} m; parcels agree ${p.agreed} + ${p.tolerated}/${routes.length}`,
    )
    return { agreed: enc.agreed, tolerated: enc.tolerated, disagreed: enc.disagreed }
  }

  async function handler(rounds: number): Promise<Summary> {
    const work = mkdtempSync(join(tmpdir(), 'landdata-bench-postgis-corridor-'))
    const keys = new BenchKeys(join(work, 'keys.db'))
    try {
      const key = keys.issue(['encumbrance'])
      const store = new SqliteKeyStore(keys.path)
      const app = createApp({
        log: pino({ level: 'silent' }),
        keys: store,
        limiter: new MemoryRateLimiter(),
        data: new DatasetHandle(ds, buildServices),
      })
      const headers = { 'X-API-KEY': key, 'Content-Type': 'application/json' }
      const bodies = routes.map((coordinates) =>
        JSON.stringify({ geometry: { type: 'LineString', coordinates }, include_geometry: false }),
      )
      const call = async (k: number) => {
        const res = await app.request('/api/v1/encumbrances/intersect', { method: 'POST', headers, body: bodies[k] })
        // the body as the server sends it
        const text = await res.text()
        return { status: res.status, text }
      }
      // warm-up, and every answer checked against the queries (untimed)
      let bad = 0
      for (let k = 0; k < routes.length; k++) {
        const { status, text } = await call(k)
        const got =
          status === 200
            ? (JSON.parse(text) as { encumbrances: { encumbrance_uid: number }[] }).encumbrances.map(
                (e) => e.encumbrance_uid,
              )
            : null
        const want = eq.intersect({ lines: [routes[k]] }, classes).encumbrances.map((e) => e.row.uid)
        if ((!got || JSON.stringify(got) !== JSON.stringify(want)) && bad++ < 3)
          ctx.fail(`postgis corridor: POST /intersect route ${k} answered ${status}: ${text.slice(0, 200)}`)
      }
      const s = new Samples(routes.length * rounds)
      for (let r = 0; r < rounds; r++) {
        for (let k = 0; k < routes.length; k++) {
          const t0 = performance.now()
          await call(k)
          s.push(performance.now() - t0)
        }
      }
      store.close()
      return s.summary()
    } finally {
      keys.close()
      rmSync(work, { recursive: true, force: true })
    }
  }

  return { op, agreement, handler }
}
