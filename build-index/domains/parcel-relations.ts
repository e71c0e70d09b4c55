/**
 * The relation pass of the parcel build: for every parcel, the touching neighbours with a higher
 * id, the beacons on its boundary with their ring positions, and the General Plans it shares
 * interior with.
 *
 * National exports hold eight million parcels, so the pass runs on worker threads when the
 * bundled worker (`dist/relation-worker.js`) exists and the export is large. Workers read the
 * scratch database (committed, not written while they run) and share the parcel Flatbush through
 * a SharedArrayBuffer; the main thread keeps their rows in chunk order and inserts them once the
 * workers are done, so the database is the same whichever way it was computed.
 *
 * @module
 */
import type Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import KDBush from 'kdbush'
import { decodeGeometry, type MultiPolygon } from '../../src/data/geometry-blob.js'
import { metresPerDegree } from '../../src/geo/geodesic.js'
import { coversByArea } from '../../src/geo/covers.js'
import { bboxOf, containsPoint, locatePoint } from '../../src/geo/polygon.js'
import { sharedBoundaryM } from '../../src/geo/shared-boundary.js'
import { createProgress } from '../progress.js'
import { buildThreads, runChunksOnWorkers, workerScript } from '../threads.js'
import { GrowableF64 } from '../write/growable.js'
import { round } from '../../src/geo/round.js'

/** Beacons attach to boundaries passing within this distance (docs/source-formats.md). */
const BEACON_SNAP_M = 0.5
/**
 * Shared boundary shorter than this is a contact, not touching (docs/decisions.md "Geometry
 * tolerances"): two corners that meet within the 2 cm tolerance share a few centimetres.
 */
const MIN_SHARED_M = 0.5
/** Parcels per message to a worker. */
const CHUNK = 8192
/** Below this many parcels the pass stays in the thread. */
const WORKER_MIN_PARCELS = 100_000

/**
 * The scratch table of touching pairs (a < b) this pass fills and drops once `neighbour` holds
 * both directions; created with the parcel tables (it is never part of a dataset).
 */
export const NEIGHBOUR_PASS_SQL = `
    CREATE TABLE neighbour_pass (a INTEGER NOT NULL, b INTEGER NOT NULL, shared_m REAL NOT NULL);
  `

/**
 * The rows one run of parcels yields, as flat arrays: touching pairs (a, b, shared m) with
 * a < b, beacons (parcel id, beacon row, ring position), General Plan links (parcel id, plan id).
 */
export interface RelationRows {
  pairs: Float64Array
  beacons: Float64Array
  plans: Float64Array
}

/**
 * A General Plan covers a parcel when they share interior area (docs/decisions.md): a vertex or the
 * box centre of one strictly inside the other, or one covering the other.
 */
export function sharesInterior(a: MultiPolygon, b: MultiPolygon): boolean {
  const strictlyIn = (mp: MultiPolygon, x: number, y: number) => locatePoint(mp, x, y) === 1
  for (const poly of a) for (const [x, y] of poly[0]) if (strictlyIn(b, x, y)) return true
  for (const poly of b) for (const [x, y] of poly[0]) if (strictlyIn(a, x, y)) return true
  const ba = bboxOf(a)
  const cx = (ba.minX + ba.maxX) / 2
  const cy = (ba.minY + ba.maxY) / 2
  if (containsPoint(a, cx, cy) && strictlyIn(b, cx, cy)) return true
  return coversByArea(b, a) && coversByArea(a, b)
}

interface BeaconSet {
  index: KDBush
  xy: Float64Array
}

/** The committed beacons (row i + 1 at index i), or null when there are none. */
function loadBeacons(db: Database.Database): BeaconSet | null {
  const rows = db.prepare('SELECT longitude, latitude FROM beacon ORDER BY id').raw().all() as [number, number][]
  if (!rows.length) return null
  const xy = new Float64Array(rows.length * 2)
  const index = new KDBush(rows.length, 64, Float64Array)
  rows.forEach(([x, y], i) => {
    xy[i * 2] = x
    xy[i * 2 + 1] = y
    index.add(x, y)
  })
  index.finish()
  return { index, xy }
}

interface PlanSet {
  index: Flatbush
  geoms: MultiPolygon[]
}

/** The committed General Plans (id j + 1 at index j), or null when there are none. */
function loadPlans(db: Database.Database): PlanSet | null {
  const blobs = db.prepare('SELECT geom FROM general_plan ORDER BY id').pluck().all() as Buffer[]
  if (!blobs.length) return null
  const geoms = blobs.map((b) => decodeGeometry(b))
  const index = new Flatbush(geoms.length, 16, Float64Array)
  for (const g of geoms) {
    const b = bboxOf(g)
    index.add(b.minX, b.minY, b.maxX, b.maxY)
  }
  index.finish()
  return { index, geoms }
}

/** Beacons within 0.5 m of the parcel's exterior ring(s), with the fraction of ring length at which they sit. */
function attachBeacons(id: number, mp: MultiPolygon, b: BeaconSet, out: GrowableF64): void {
  const m = metresPerDegree(mp[0][0][0][1])
  const padX = (BEACON_SNAP_M * 2) / m.lon
  const padY = (BEACON_SNAP_M * 2) / m.lat
  // exterior rings of every polygon, measured as one path (ring_position from the first vertex)
  const rings = mp.map((p) => p[0])
  let total = 0
  for (const r of rings)
    for (let i = 0; i < r.length - 1; i++)
      total += Math.hypot((r[i + 1][0] - r[i][0]) * m.lon, (r[i + 1][1] - r[i][1]) * m.lat)
  if (total === 0) return
  let along = 0
  const seen = new Set<number>()
  for (const r of rings) {
    for (let i = 0; i < r.length - 1; i++) {
      const [ax, ay] = r[i]
      const [bx, by] = r[i + 1]
      const segLen = Math.hypot((bx - ax) * m.lon, (by - ay) * m.lat)
      const hits = b.index.range(
        Math.min(ax, bx) - padX,
        Math.min(ay, by) - padY,
        Math.max(ax, bx) + padX,
        Math.max(ay, by) + padY,
      )
      for (const h of hits) {
        if (seen.has(h)) continue
        const px = b.xy[h * 2]
        const py = b.xy[h * 2 + 1]
        const dx = (bx - ax) * m.lon
        const dy = (by - ay) * m.lat
        const qx = (px - ax) * m.lon
        const qy = (py - ay) * m.lat
        const len2 = dx * dx + dy * dy
        let t = len2 === 0 ? 0 : (qx * dx + qy * dy) / len2
        t = t < 0 ? 0 : t > 1 ? 1 : t
        if (Math.hypot(qx - t * dx, qy - t * dy) > BEACON_SNAP_M) continue
        seen.add(h)
        const pos = Math.min(1, (along + t * segLen) / total)
        out.push3(id, h + 1, Math.round(pos * 1e6) / 1e6)
      }
      along += segLen
    }
  }
}

/**
 * Opens what the pass reads (parcel geometries through `db`, the committed beacons and General
 * Plans) and returns the function computing the rows of a run of parcels.
 */
export function createRelationComputer(
  db: Database.Database,
  index: Flatbush,
): { relationsOf: (first: number, boxes: Float64Array) => RelationRows } {
  const getGeom = db.prepare('SELECT geom, lpi FROM parcel WHERE id = ?').raw()
  const beacons = loadBeacons(db)
  const plans = loadPlans(db)
  // a two-generation cache: when the young map fills it becomes the old one and the previous old
  // one is dropped. O(1) per lookup. (Evicting the oldest entry of one Map with
  // keys().next() walks the deleted slots at the front of V8's table on every miss: at national
  // scale that made the pass ~8 times slower per parcel than at sample scale.)
  type Cached = { mp: MultiPolygon; lpi: string }
  let young = new Map<number, Cached>()
  let old = new Map<number, Cached>()
  const geomOf = (id: number): Cached => {
    let g = young.get(id)
    if (g) return g
    g = old.get(id)
    if (!g) {
      const [geom, lpi] = getGeom.get(id) as [Buffer, string]
      g = { mp: decodeGeometry(geom), lpi }
    }
    if (young.size >= 100_000) {
      old = young
      young = new Map()
    }
    young.set(id, g)
    return g
  }

  function relationsOf(first: number, boxes: Float64Array): RelationRows {
    const pairs = new GrowableF64(1 << 12)
    const onBeacons = new GrowableF64(1 << 12)
    const onPlans = new GrowableF64(1 << 12)
    const count = boxes.length / 4
    for (let k = 0; k < count; k++) {
      const id = first + k
      const me = geomOf(id)
      for (const j of index.search(boxes[k * 4], boxes[k * 4 + 1], boxes[k * 4 + 2], boxes[k * 4 + 3])) {
        const other = j + 1
        if (other <= id) continue
        const them = geomOf(other)
        if (them.lpi === me.lpi) continue
        const shared = sharedBoundaryM(me.mp, them.mp)
        if (shared < MIN_SHARED_M) continue
        // a parcel never neighbours one that contains it or that it contains
        if (coversByArea(me.mp, them.mp) || coversByArea(them.mp, me.mp)) continue
        pairs.push3(id, other, round(shared, 2))
      }
      if (beacons) attachBeacons(id, me.mp, beacons, onBeacons)
      if (plans) {
        const b = bboxOf(me.mp)
        for (const j of plans.index.search(b.minX, b.minY, b.maxX, b.maxY))
          if (sharesInterior(me.mp, plans.geoms[j])) onPlans.push2(id, j + 1)
      }
    }
    return { pairs: pairs.toArray(), beacons: onBeacons.toArray(), plans: onPlans.toArray() }
  }
  return { relationsOf }
}

/** What the worker threads are given once. */
export interface RelationWorkerData {
  sqlite: string
  /** The parcel Flatbush's data (a SharedArrayBuffer: not copied per worker). */
  index: SharedArrayBuffer
}

/**
 * Fills `neighbour` (both directions, in key order), `parcel_beacon` and `parcel_general_plan`
 * for parcels 1..n, whose boxes are `boxes` (4 per parcel). `index` must be built over a
 * SharedArrayBuffer for the worker path. Returns the number of touching pairs.
 */
export async function computeRelations(
  db: Database.Database,
  sqlitePath: string,
  index: Flatbush,
  boxes: Float64Array,
  n: number,
  log: (line: string) => void,
): Promise<number> {
  const progress = createProgress('parcels/relations', n, { unit: 'parcels' })
  const script = workerScript('relation-worker')
  const { threads, forced } = buildThreads()
  const chunks: RelationRows[] = []
  if (!script || threads < 2 || !(index.data instanceof SharedArrayBuffer) || (n < WORKER_MIN_PARCELS && !forced)) {
    const computer = createRelationComputer(db, index)
    for (let first = 1; first <= n; first += CHUNK) {
      const last = Math.min(n, first + CHUNK - 1)
      chunks.push(computer.relationsOf(first, boxes.subarray((first - 1) * 4, last * 4)))
      progress.tick(last - first + 1)
    }
  } else {
    log(`parcels: relations on ${threads} worker threads`)
    chunks.push(
      ...(await runOnWorkers(script, threads, { sqlite: sqlitePath, index: index.data }, boxes, n, (count) =>
        progress.tick(count),
      )),
    )
  }

  // pairs are kept once (a < b) while the pass runs; both directions go into the keyed table in
  // key order at the end (inserting b -> a as found is a random B-tree insert per pair, which at
  // national scale, 12 M pairs, dominated the pass)
  const insNeighbour = db.prepare('INSERT INTO neighbour_pass VALUES (?, ?, ?)')
  const insBeacon = db.prepare('INSERT OR IGNORE INTO parcel_beacon VALUES (?, ?, ?)')
  const insPlan = db.prepare('INSERT OR IGNORE INTO parcel_general_plan VALUES (?, ?)')
  let pairs = 0
  db.exec('BEGIN')
  for (let c = 0; c < chunks.length; c++) {
    const r = chunks[c]
    for (let i = 0; i < r.pairs.length; i += 3) insNeighbour.run(r.pairs[i], r.pairs[i + 1], r.pairs[i + 2])
    for (let i = 0; i < r.beacons.length; i += 3) insBeacon.run(r.beacons[i], r.beacons[i + 1], r.beacons[i + 2])
    for (let i = 0; i < r.plans.length; i += 2) insPlan.run(r.plans[i], r.plans[i + 1])
    pairs += r.pairs.length / 3
    // release each chunk once inserted
    chunks[c] = { pairs: new Float64Array(0), beacons: new Float64Array(0), plans: new Float64Array(0) }
  }
  db.exec(`INSERT INTO neighbour SELECT a, b, shared_m FROM neighbour_pass UNION ALL SELECT b, a, shared_m FROM neighbour_pass ORDER BY 1, 2;
    DROP TABLE neighbour_pass;`)
  db.exec('COMMIT')
  progress.done(`${pairs} touching pairs`)
  return pairs
}

/** Sends runs of CHUNK parcels to `threads` workers; returns their rows in chunk order. */
async function runOnWorkers(
  script: string,
  threads: number,
  data: RelationWorkerData,
  boxes: Float64Array,
  n: number,
  tick: (count: number) => void,
): Promise<RelationRows[]> {
  const out: RelationRows[] = []
  await runChunksOnWorkers<{ chunk: number; rows: RelationRows; count: number }>(
    script,
    threads,
    data,
    Math.ceil(n / CHUNK),
    (k) => {
      const first = k * CHUNK + 1
      const last = Math.min(n, first + CHUNK - 1)
      return { message: { first, boxes: boxes.slice((first - 1) * 4, last * 4) } }
    },
    (m) => {
      out.push(m.rows)
      tick(m.count)
    },
  )
  return out
}
