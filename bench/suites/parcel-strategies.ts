/**
 * Index strategies for the parcel cadastre, in process (issue 7 item 2, polygon part): the same
 * seeded probes answered by
 *
 *   flatbush (production)   the served index's structure: a Flatbush over every parcel's box
 *                           (rebuilt here from the served boxes, byte-identical to
 *                           parcels.flatbush), candidates -> exact test. The reference.
 *   service at() / within() createParcelQueries exactly as the routes call it, include_status=all
 *                           (geometry and row from SQLite per candidate): for reference
 *   sqlite r*tree           SQLite's built-in R*Tree of the boxes in a temp file (read-only,
 *                           locking_mode=EXCLUSIVE like the dataset)
 *   kdbush over box centres a point index cannot answer containment by itself; over the boxes'
 *                           centres it is exact with a window widened by the largest box's
 *                           half-extent, then a box check (so the largest parcel sets the cost)
 *   brute force             a scan of every box (sample scale and below only)
 *
 * Every strategy reads the same boxes (the served Flatbush's own doubles) and the same geometry
 * blobs, loaded once up front, and shares one exact step: point in polygon is
 * `containsPointEncoded` (closed set, as `/parcels/at`), box is `intersectsBox` on the decoded
 * geometry (as `/parcels/within`). Answers are id sets over all statuses; any strategy whose set
 * differs from the reference's for any probe fails the run.
 *
 * @module
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import KDBush from 'kdbush'
import { openDataset, type OpenDataset } from '../../src/data/open-dataset.js'
import { PARCEL_FILES } from '../../src/data/parcels-format.js'
import { containsPointEncoded, decodeGeometry, type MultiPolygon } from '../../src/data/geometry-blob.js'
import { createParcelQueries } from '../../src/features/parcels/queries.js'
import { metresPerDegree } from '../../src/geo/geodesic.js'
import { intersectsBox, type BBox } from '../../src/geo/polygon.js'
import { Random } from '../lib/prng.js'
import { fmt, mib, Samples, type Summary } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'

/** Brute force runs only on cadastres up to this many parcels. */
const BRUTE_MAX_PARCELS = 200_000
/**
 * Above this many vertices the geometries are decoded per candidate (in the timed path, alike for all) instead of once
 * up front.
 */
const DECODE_UP_FRONT_MAX_VERTICES = 20_000_000
/** Probes are timed in chunks, each strategy in turn (order rotating), so machine noise hits all alike. */
const CHUNK = 250
/** Near probes land within this distance of a random published parcel's label point. */
const NEAR_MAX_M = 30
const NEAR_SHARE = 0.8
/** Sides of the bbox probes, degrees (each side drawn on its own). */
const BOX_SIDE_MIN = 0.001
const BOX_SIDE_MAX = 0.01
/** Widening of the KDBush window beyond the largest half-extent, degrees (the box check then makes it exact). */
const KD_SLACK = 1e-9

/** Every parcel as the strategies see it: item i is parcel id i + 1. */
interface Parcels {
  n: number
  vertices: number
  /** minX, minY, maxX, maxY per item, the served Flatbush's own doubles */
  boxes: Float64Array
  /** encoded geometry per item (views into one buffer) */
  blobs: Uint8Array[]
  /** geometry per item for the box test; null = decoded per candidate */
  geoms: MultiPolygon[] | null
  extent: BBox
  served: Flatbush
  servedBytes: number
  flagsBytes: number
}

interface Strategy {
  name: string
  buildMs: number
  sizeBytes: number
  sizeNote: string
  /** ids of the parcels whose closed polygon holds the point */
  at(lon: number, lat: number): number[]
  /** ids of the parcels whose geometry shares a point with the box */
  within(b: BBox): number[]
  close(): void
}

interface StrategyRow {
  strategy: string
  buildMs: number
  sizeBytes: number
  sizeNote: string
  pip: Summary
  box: Summary
  pipMeanResults: number
  boxMeanResults: number
  pipAgree: number
  boxAgree: number
  pipProbes: number
  boxProbes: number
}

export interface ParcelStrategiesData {
  parcels: number
  vertices: number
  pipProbes: number
  boxProbes: number
  /** the rebuilt Flatbush is byte-identical to the served parcels.flatbush */
  identicalToServed: boolean
  /** largest box half-extent in degrees (what the KDBush window is widened by) */
  maxHalfExtentDeg: [number, number]
  geometriesUpFront: boolean
  rows: StrategyRow[]
  skipped: string[]
  /** why nothing was measured */
  notMeasured?: string
}

interface Probes {
  lon: Float64Array
  lat: Float64Array
  length: number
}

interface BoxProbes {
  boxes: BBox[]
  length: number
}

function time<T>(f: () => T): { value: T; ms: number } {
  const t0 = performance.now()
  const value = f()
  return { value, ms: performance.now() - t0 }
}

/** The served Flatbush's boxes in item order, and every geometry blob (one SQLite pass, untimed). */
function loadParcels(ds: OpenDataset, log: (l: string) => void): Parcels {
  const servedAb = ds.arrayBuffer(PARCEL_FILES.flatbush)
  const served = Flatbush.from(servedAb)
  const n = served.numItems
  const boxes = new Float64Array(n * 4)
  for (let pos = 0; pos < n; pos++) {
    const i = served._indices[pos]
    for (let c = 0; c < 4; c++) boxes[i * 4 + c] = served._boxes[pos * 4 + c]
  }
  const extent: BBox = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity }
  for (let i = 0; i < n; i++) {
    extent.minX = Math.min(extent.minX, boxes[i * 4])
    extent.minY = Math.min(extent.minY, boxes[i * 4 + 1])
    extent.maxX = Math.max(extent.maxX, boxes[i * 4 + 2])
    extent.maxY = Math.max(extent.maxY, boxes[i * 4 + 3])
  }
  const db = ds.sqlite(PARCEL_FILES.sqlite)
  const count = db.prepare('SELECT count(*) FROM parcel').pluck().get() as number
  const maxId = db.prepare('SELECT max(id) FROM parcel').pluck().get() as number
  if (count !== n || maxId !== n)
    throw new Error(
      `parcel-strategies: parcels.sqlite has ${count} rows (max id ${maxId}), parcels.flatbush ${n} items`,
    )
  // one buffer for all blobs, 4-byte aligned per blob, so containsPointEncoded reads them in place
  const chunks: Buffer[] = new Array(n)
  let total = 0
  for (const [id, geom] of db.prepare('SELECT id, geom FROM parcel ORDER BY id').raw().iterate() as Iterable<
    [number, Buffer]
  >) {
    chunks[id - 1] = geom
    total += geom.byteLength
  }
  const all = new Uint8Array(total)
  const blobs: Uint8Array[] = new Array(n)
  let vertices = 0
  for (let i = 0, off = 0; i < n; i++) {
    const g = chunks[i]
    all.set(g, off)
    blobs[i] = all.subarray(off, off + g.byteLength)
    off += g.byteLength
    // words: polygon count, per polygon a ring count, per ring a length + 2 per vertex
    vertices += g.byteLength >> 3 // upper bound, for the memory decision only
  }
  let geoms: MultiPolygon[] | null = null
  if (vertices <= DECODE_UP_FRONT_MAX_VERTICES) {
    geoms = blobs.map((b) => decodeGeometry(b))
    vertices = 0
    for (const mp of geoms) for (const poly of mp) for (const ring of poly) vertices += ring.length
  } else log(`parcel-strategies: ~${vertices.toLocaleString('en-US')} vertices: geometries decoded per candidate`)
  const flags = ds.arrayBuffer(PARCEL_FILES.flags)
  return {
    n,
    vertices,
    boxes,
    blobs,
    geoms,
    extent,
    served,
    servedBytes: servedAb.byteLength,
    flagsBytes: flags.byteLength,
  }
}

/** The exact steps every strategy shares (item indices in, parcel ids out). */
function exact(P: Parcels) {
  const { blobs, geoms } = P
  const geomOf = geoms ? (i: number) => geoms[i] : (i: number) => decodeGeometry(P.blobs[i])
  return {
    pip(cand: ArrayLike<number>, lon: number, lat: number): number[] {
      const out: number[] = []
      for (let k = 0; k < cand.length; k++) if (containsPointEncoded(blobs[cand[k]], lon, lat)) out.push(cand[k] + 1)
      return out
    },
    box(cand: ArrayLike<number>, b: BBox): number[] {
      const out: number[] = []
      for (let k = 0; k < cand.length; k++) if (intersectsBox(geomOf(cand[k]), b)) out.push(cand[k] + 1)
      return out
    },
  }
}

function flatbushStrategy(P: Parcels): { s: Strategy; identical: boolean } {
  const { boxes, n } = P
  const { value: fb, ms } = time(() => {
    const fb = new Flatbush(n, 16, Float64Array)
    for (let i = 0; i < n; i++) fb.add(boxes[i * 4], boxes[i * 4 + 1], boxes[i * 4 + 2], boxes[i * 4 + 3])
    fb.finish()
    return fb
  })
  const a = new Uint8Array(fb.data)
  const b = new Uint8Array(P.served.data)
  const identical = a.length === b.length && Buffer.compare(a, b) === 0
  const ex = exact(P)
  return {
    identical,
    s: {
      name: 'flatbush (production)',
      buildMs: ms,
      sizeBytes: fb.data.byteLength,
      sizeNote: identical ? 'byte-identical to the served file' : 'differs from the served file',
      at: (lon, lat) => ex.pip(fb.search(lon, lat, lon, lat), lon, lat),
      within: (q) => ex.box(fb.search(q.minX, q.minY, q.maxX, q.maxY), q),
      close() {},
    },
  }
}

function serviceStrategy(P: Parcels, ds: OpenDataset): Strategy {
  const { value: q, ms } = time(() => createParcelQueries(ds))
  const all = { all: true }
  return {
    name: 'service at() / within()',
    buildMs: ms,
    sizeBytes: P.servedBytes + P.flagsBytes,
    sizeNote: 'served Flatbush + flags; opened, not built; geometry and row from SQLite per hit',
    at: (lon, lat) => q.at(lon, lat, all).map((p) => p.id),
    within: (b) => q.within(b, 0, Number.MAX_SAFE_INTEGER, all).parcels.map((p) => p.id),
    close() {},
  }
}

function rtreeStrategy(P: Parcels, dir: string, log: (l: string) => void): Strategy {
  const file = join(dir, 'parcels-rtree.sqlite')
  const { boxes, n } = P
  const { ms } = time(() => {
    const w = new Database(file)
    w.pragma('journal_mode = OFF')
    w.pragma('synchronous = OFF')
    w.exec('CREATE VIRTUAL TABLE pb USING rtree(id, min_lon, max_lon, min_lat, max_lat)')
    const ins = w.prepare('INSERT INTO pb VALUES (?, ?, ?, ?, ?)')
    w.exec('BEGIN')
    const step = Math.max(1, Math.floor(n / 10))
    for (let i = 0; i < n; i++) {
      ins.run(i, boxes[i * 4], boxes[i * 4 + 2], boxes[i * 4 + 1], boxes[i * 4 + 3])
      if (n > 500_000 && i % step === step - 1) log(`parcel-strategies: R*Tree ${Math.round(((i + 1) / n) * 100)}%`)
    }
    w.exec('COMMIT')
    w.close()
  })
  const db = new Database(file, { readonly: true, fileMustExist: true })
  db.pragma('mmap_size = 2147483647')
  db.pragma('locking_mode = EXCLUSIVE')
  // R*Tree keeps 32-bit floats rounded outwards: candidates are a superset, the exact step settles them
  const stmt = db
    .prepare('SELECT id FROM pb WHERE min_lon <= ? AND max_lon >= ? AND min_lat <= ? AND max_lat >= ?')
    .pluck()
  const ex = exact(P)
  return {
    name: 'sqlite r*tree',
    buildMs: ms,
    sizeBytes: statSync(file).size,
    sizeNote: 'file; 32-bit float boxes rounded outwards',
    at: (lon, lat) => ex.pip(stmt.all(lon, lon, lat, lat) as number[], lon, lat),
    within: (q) => ex.box(stmt.all(q.maxX, q.minX, q.maxY, q.minY) as number[], q),
    close() {
      db.close()
    },
  }
}

function kdbushStrategy(P: Parcels): { s: Strategy; half: [number, number] } {
  const { boxes, n } = P
  let hx = 0
  let hy = 0
  const { value: kd, ms } = time(() => {
    const kd = new KDBush(n, 64, Float64Array)
    for (let i = 0; i < n; i++) {
      kd.add((boxes[i * 4] + boxes[i * 4 + 2]) / 2, (boxes[i * 4 + 1] + boxes[i * 4 + 3]) / 2)
      hx = Math.max(hx, (boxes[i * 4 + 2] - boxes[i * 4]) / 2)
      hy = Math.max(hy, (boxes[i * 4 + 3] - boxes[i * 4 + 1]) / 2)
    }
    kd.finish()
    return kd
  })
  const wx = hx + KD_SLACK
  const wy = hy + KD_SLACK
  const ex = exact(P)
  /** centres in the widened window whose own box overlaps the query box */
  const candidates = (x0: number, y0: number, x1: number, y1: number) => {
    const out: number[] = []
    for (const i of kd.range(x0 - wx, y0 - wy, x1 + wx, y1 + wy)) {
      if (boxes[i * 4] <= x1 && boxes[i * 4 + 2] >= x0 && boxes[i * 4 + 1] <= y1 && boxes[i * 4 + 3] >= y0) out.push(i)
    }
    return out
  }
  return {
    half: [hx, hy],
    s: {
      name: 'kdbush over box centres',
      buildMs: ms,
      sizeBytes: kd.data.byteLength,
      sizeNote: `+ the ${mib(n * 32)} box array for the box check`,
      at: (lon, lat) => ex.pip(candidates(lon, lat, lon, lat), lon, lat),
      within: (q) => ex.box(candidates(q.minX, q.minY, q.maxX, q.maxY), q),
      close() {},
    },
  }
}

function bruteStrategy(P: Parcels): Strategy {
  const { boxes, n } = P
  const ex = exact(P)
  const scan = (x0: number, y0: number, x1: number, y1: number) => {
    const out: number[] = []
    for (let i = 0; i < n; i++)
      if (boxes[i * 4] <= x1 && boxes[i * 4 + 2] >= x0 && boxes[i * 4 + 1] <= y1 && boxes[i * 4 + 3] >= y0) out.push(i)
    return out
  }
  return {
    name: 'brute force',
    buildMs: 0,
    sizeBytes: n * 32,
    sizeNote: 'the box array itself',
    at: (lon, lat) => ex.pip(scan(lon, lat, lon, lat), lon, lat),
    within: (q) => ex.box(scan(q.minX, q.minY, q.maxX, q.maxY), q),
    close() {},
  }
}

/**
 * Random published parcels' label points jittered by up to 30 m (80 %), the rest uniform over the cadastre's extent.
 */
function makePipProbes(ds: OpenDataset, P: Parcels, count: number, seed: number): Probes {
  const db = ds.sqlite(PARCEL_FILES.sqlite)
  const labels = db.prepare('SELECT label_lon, label_lat FROM parcel WHERE hidden = 0 ORDER BY id').raw().all() as [
    number,
    number,
  ][]
  const rnd = new Random(seed >>> 0, 'bench/parcel-strategies/pip')
  const lon = new Float64Array(count)
  const lat = new Float64Array(count)
  for (let k = 0; k < count; k++) {
    if (labels.length && rnd.float() < NEAR_SHARE) {
      const [x, y] = jitter(rnd, labels[rnd.int(0, labels.length - 1)])
      lon[k] = x
      lat[k] = y
    } else {
      lon[k] = rnd.range(P.extent.minX, P.extent.maxX)
      lat[k] = rnd.range(P.extent.minY, P.extent.maxY)
    }
  }
  return { lon, lat, length: count }
}

function jitter(rnd: Random, [x, y]: [number, number]): [number, number] {
  const d = NEAR_MAX_M * Math.sqrt(rnd.float())
  const a = rnd.range(0, 2 * Math.PI)
  const m = metresPerDegree(y)
  return [x + (d * Math.cos(a)) / m.lon, y + (d * Math.sin(a)) / m.lat]
}

/** Boxes of 0.001–0.01° sides centred within 30 m of random published parcels' label points. */
function makeBoxProbes(ds: OpenDataset, count: number, seed: number): BoxProbes {
  const db = ds.sqlite(PARCEL_FILES.sqlite)
  const labels = db.prepare('SELECT label_lon, label_lat FROM parcel WHERE hidden = 0 ORDER BY id').raw().all() as [
    number,
    number,
  ][]
  const src = labels.length
    ? labels
    : (db.prepare('SELECT label_lon, label_lat FROM parcel ORDER BY id').raw().all() as [number, number][])
  const rnd = new Random(seed >>> 0, 'bench/parcel-strategies/bbox')
  const boxes: BBox[] = []
  for (let k = 0; k < count; k++) {
    const [x, y] = jitter(rnd, src[rnd.int(0, src.length - 1)])
    const w = rnd.range(BOX_SIDE_MIN, BOX_SIDE_MAX) / 2
    const h = rnd.range(BOX_SIDE_MIN, BOX_SIDE_MAX) / 2
    boxes.push({ minX: x - w, minY: y - h, maxX: x + w, maxY: y + h })
  }
  return { boxes, length: count }
}

const sortedIds = (ids: number[]) => Int32Array.from(ids).sort()
function sameSet(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false
  return true
}
function diff(a: Int32Array, ref: Int32Array): string {
  const r = new Set(ref)
  const s = new Set(a)
  const extra = [...a].filter((v) => !r.has(v))
  const missing = [...ref].filter((v) => !s.has(v))
  const few = (xs: number[]) => `${xs.slice(0, 5).join(',')}${xs.length > 5 ? ` (+${xs.length - 5})` : ''}`
  return `${a.length} ids vs ${ref.length}${extra.length ? `, extra ${few(extra)}` : ''}${missing.length ? `, missing ${few(missing)}` : ''}`
}

interface OpResult {
  t: Summary[]
  agree: number[]
  mean: number[]
}

/**
 * Times one operation over every strategy, chunk by chunk with the strategies taking turns
 * (order rotating); strategy 0 is the reference for agreement.
 */
function runOp(
  ctx: SuiteContext,
  op: string,
  strategies: Strategy[],
  count: number,
  call: (s: Strategy, k: number) => number[],
  where: (k: number) => string,
): OpResult {
  const S = strategies.length
  const T = strategies.map(() => new Samples(count))
  const agree = new Array<number>(S).fill(0)
  const results = new Array<number>(S).fill(0)
  // warm-up on the first chunk (not timed, not counted)
  for (const s of strategies) for (let k = 0; k < Math.min(CHUNK, count); k++) call(s, k)
  let failures = 0
  for (let start = 0, chunk = 0; start < count; start += CHUNK, chunk++) {
    const end = Math.min(count, start + CHUNK)
    const out: number[][][] = strategies.map(() => [])
    for (let o = 0; o < S; o++) {
      const s = (o + chunk) % S
      const st = strategies[s]
      for (let k = start; k < end; k++) {
        const t0 = performance.now()
        const ids = call(st, k)
        T[s].push(performance.now() - t0)
        out[s].push(ids)
      }
    }
    for (let k = 0; k < end - start; k++) {
      const ref = sortedIds(out[0][k])
      for (let s = 0; s < S; s++) {
        const mine = sortedIds(out[s][k])
        results[s] += mine.length
        if (sameSet(mine, ref)) agree[s]++
        else if (failures++ < 5)
          ctx.fail(
            `parcel-strategies: ${op} disagreement at probe ${start + k} ${where(start + k)}: ${strategies[s].name} ${diff(mine, ref)} of ${strategies[0].name}`,
          )
      }
    }
  }
  if (failures > 5) ctx.fail(`parcel-strategies: ${op} ${failures - 5} more disagreements not listed`)
  return { t: T.map((x) => x.summary()), agree, mean: results.map((r) => r / count) }
}

export const parcelStrategiesSuite: Suite<ParcelStrategiesData> = {
  name: 'parcel-strategies',
  title: 'Index strategies for parcels (point in polygon, bbox), in process',
  summary:
    'Flatbush vs SQLite R*Tree vs KDBush over box centres vs brute force over the parcel boxes: point-in-polygon ' +
    'and bbox, build, size, agreement',

  async run(ctx) {
    const ds = openDataset(ctx.dataset.dir)
    const strategies: Strategy[] = []
    const dir = mkdtempSync(join(tmpdir(), 'landdata-bench-parcel-rtree-'))
    try {
      const layers = ds.domain('parcels')?.layers
      const total = layers ? Object.values(layers).reduce((s, l) => s + l.rows, 0) : 0
      if (!total || !ds.has(PARCEL_FILES.flatbush)) {
        return {
          parcels: 0,
          vertices: 0,
          pipProbes: 0,
          boxProbes: 0,
          identicalToServed: false,
          maxHalfExtentDeg: [0, 0],
          geometriesUpFront: false,
          rows: [],
          skipped: [],
          notMeasured: 'the dataset has no cadastre',
        }
      }
      const log = ctx.log
      const { value: P, ms: loadMs } = time(() => loadParcels(ds, log))
      log(
        `parcel-strategies: ${P.n.toLocaleString('en-US')} parcels, ${P.vertices.toLocaleString('en-US')} vertices loaded in ${fmt(loadMs / 1000, 2)} s`,
      )
      const fb = flatbushStrategy(P)
      if (!fb.identical)
        ctx.fail('parcel-strategies: the Flatbush rebuilt from the served boxes differs from parcels.flatbush')
      strategies.push(fb.s)
      log(
        `parcel-strategies: flatbush built in ${fmt(fb.s.buildMs)} ms${
          fb.identical ? ', byte-identical to the ' + 'served file' : ''
        }`,
      )
      strategies.push(serviceStrategy(P, ds))
      strategies.push(rtreeStrategy(P, dir, log))
      log(`parcel-strategies: R*Tree built in ${fmt(strategies.at(-1)!.buildMs / 1000, 2)} s`)
      const kd = kdbushStrategy(P)
      strategies.push(kd.s)
      log(
        `parcel-strategies: kdbush over box centres built in ${fmt(kd.s.buildMs)} ms, window ± ${kd.half[0].toFixed(4)}° × ${kd.half[1].toFixed(4)}°`,
      )
      const skipped: string[] = []
      if (P.n <= BRUTE_MAX_PARCELS) strategies.push(bruteStrategy(P))
      else
        skipped.push(
          `brute force (${P.n.toLocaleString('en-US')} parcels > ${BRUTE_MAX_PARCELS.toLocaleString('en-US')}; sample scale and ` +
            `below only)`,
        )

      const quick = ctx.opts.quick
      const pipCount = quick ? 300 : 10_000
      const boxCount = quick ? 200 : 2_000
      const pp = makePipProbes(ds, P, pipCount, ctx.opts.seed)
      const bp = makeBoxProbes(ds, boxCount, ctx.opts.seed)
      const pip = runOp(
        ctx,
        'point-in-polygon',
        strategies,
        pipCount,
        (s, k) => s.at(pp.lon[k], pp.lat[k]),
        (k) => `(${pp.lon[k]}, ${pp.lat[k]})`,
      )
      log(
        `parcel-strategies: point in polygon p50 ${strategies.map((s, k) => `${s.name} ${fmt(pip.t[k].p50Us)} us`).join(', ')}`,
      )
      const box = runOp(
        ctx,
        'bbox',
        strategies,
        boxCount,
        (s, k) => s.within(bp.boxes[k]),
        (k) => JSON.stringify(bp.boxes[k]),
      )
      log(`parcel-strategies: bbox p50 ${strategies.map((s, k) => `${s.name} ${fmt(box.t[k].p50Us)} us`).join(', ')}`)
      const rows: StrategyRow[] = strategies.map((s, k) => ({
        strategy: s.name,
        buildMs: s.buildMs,
        sizeBytes: s.sizeBytes,
        sizeNote: s.sizeNote,
        pip: pip.t[k],
        box: box.t[k],
        pipMeanResults: pip.mean[k],
        boxMeanResults: box.mean[k],
        pipAgree: pip.agree[k],
        boxAgree: box.agree[k],
        pipProbes: pipCount,
        boxProbes: boxCount,
      }))
      return {
        parcels: P.n,
        vertices: P.vertices,
        pipProbes: pipCount,
        boxProbes: boxCount,
        identicalToServed: fb.identical,
        maxHalfExtentDeg: kd.half,
        geometriesUpFront: P.geoms !== null,
        rows,
        skipped,
      }
    } finally {
      for (const s of strategies) s.close()
      ds.close()
      rmSync(dir, { recursive: true, force: true })
    }
  },

  render(r: SuiteRecord<ParcelStrategiesData>) {
    const d = r.data
    if (d.notMeasured) return `_Not measured: ${d.notMeasured}._`
    const lines = [
      `${d.parcels.toLocaleString('en-US')} parcels (${d.vertices.toLocaleString('en-US')} vertices), all statuses. ` +
        `Point in polygon: ${d.pipProbes.toLocaleString('en-US')} seeded probes (${NEAR_SHARE * 100} % within ${NEAR_MAX_M} m of a random ` +
        `published parcel's label point, ${100 - NEAR_SHARE * 100} % uniform over the ` +
        `cadastre's extent). ` +
        `Bbox: ${d.boxProbes.toLocaleString('en-US')} seeded boxes with sides of ${BOX_SIDE_MIN}–${BOX_SIDE_MAX}° centred within ${NEAR_MAX_M} m of a label point. ` +
        `Timed in chunks of ${CHUNK} with the strategies taking turns. Every strategy filters the same boxes (the ` +
        `served Flatbush's) and shares the exact step: ` +
        '`containsPointEncoded` (closed set, as `/parcels/at`) and `intersectsBox` (as `/parcels/within`)' +
        `${d.geometriesUpFront ? ', on geometries decoded once up front' : ', decoding each candidate geometry'}. ` +
        `Agreement is the same id set as \`flatbush (production)\`${
          d.identicalToServed ? ' (rebuilt here, ' + 'byte-identical to the served parcels.flatbush)' : ''
        }; ` +
        '`service at() / within()` is `createParcelQueries` as the routes call it (include_status=all, every hit ' +
        'read back from SQLite), for reference.',
      '',
      '| strategy | build | size | PIP p50 / p99 µs | PIP mean results | bbox p50 / p99 µs | bbox mean results | ' +
        'PIP agree | bbox agree |',
      '|---|--:|--:|--:|--:|--:|--:|--:|--:|',
    ]
    for (const row of d.rows) {
      const build =
        row.strategy === 'brute force'
          ? '–'
          : row.buildMs >= 1000
            ? `${fmt(row.buildMs / 1000, 2)} s`
            : `${fmt(row.buildMs)} ms`
      lines.push(
        `| ${row.strategy} | ${build} | ${mib(row.sizeBytes)}${row.sizeNote ? ` (${row.sizeNote})` : ''} | ${fmt(row.pip.p50Us)} / ${fmt(row.pip.p99Us)} | ${fmt(row.pipMeanResults, 2)} | ` +
          `${fmt(row.box.p50Us)} / ${fmt(row.box.p99Us)} | ${fmt(row.boxMeanResults, 1)} | ${row.pipAgree}/${row.pipProbes} | ${row.boxAgree}/${row.boxProbes} |`,
      )
    }
    const [hx, hy] = d.maxHalfExtentDeg
    lines.push(
      '',
      "KDBush as such is not applicable: it indexes points, and a point index over the parcels' label points " +
        'cannot say which polygons contain a probe (a parcel can hold the probe while its label point is far ' +
        'away). ' +
        `The \`kdbush over box centres\` row makes it exact by widening every search window by the largest box's ` +
        `half-extent (here ± ${hx.toFixed(4)}° × ${hy.toFixed(4)}°) and then checking ` +
        `each candidate's own box, ` +
        'so its cost is set by the single largest parcel, not by the query.',
    )
    if (d.skipped.length) lines.push('', `Skipped: ${d.skipped.join('; ')}.`)
    return lines.join('\n')
  },
}
