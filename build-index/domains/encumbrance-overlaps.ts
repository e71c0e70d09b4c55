/**
 * The overlap pass of the encumbrance build: every current encumbrance against the current
 * parcels its search cells hold (docs/decisions.md "Encumbrances"), one `parcel_overlap` row per pair
 * that meets.
 *
 * National exports hold half a million encumbrances, so the pass runs on worker threads when the
 * bundled worker (`dist/overlap-worker.js`, next to the running bundle) exists and the export is
 * large: the main thread reads records in chunks, workers compute, and rows are inserted in chunk
 * order, so the database is the same whichever way it was computed. Under the test runner (no
 * bundle) and for small exports it runs in the thread.
 *
 * @module
 */
import { readFileSync } from 'node:fs'
import type Database from 'better-sqlite3'
import DatabaseCtor from 'better-sqlite3'
import Flatbush from 'flatbush'
import {
  FLAG_NOT_CURRENT,
  LINE_CLASSES,
  RELATIONSHIPS,
  linesAsPolygons,
  polygonsAsLines,
  type EncumbranceClass,
} from '../../src/data/encumbrance-format.js'
import { FLAG_HIDDEN } from '../../src/data/parcels-format.js'
import { decodeGeometry, encodeGeometry, type MultiPolygon } from '../../src/data/geometry-blob.js'
import { cellsAlongLines, cellsOverPolygon } from '../../src/geo/cells.js'
import { fallbacks } from '../../src/geo/clip.js'
import { lineOverlap } from '../../src/geo/overlay/line-overlap.js'
import { areaSqm } from '../../src/geo/overlay/measure.js'
import { polygonOverlap } from '../../src/geo/overlay/polygon-overlap.js'
import { PreparedLines, PreparedPolygon } from '../../src/geo/overlay/prepared.js'
import { bufferLines } from '../../src/geo/overlay/buffer.js'
import { NEAR_BOX_M } from '../../src/geo/overlay/tolerance.js'
import type { MultiLineString } from '../../src/geo/overlay/types.js'
import { createProgress } from '../progress.js'
import { buildThreads, runChunksOnWorkers, workerScript } from '../threads.js'
import { round } from '../../src/geo/round.js'

/** Polygons with more vertices than this are prepared (edge index) before meeting many parcels. */
const PREPARE_VERTICES = 48
/** Records per message to a worker. */
const CHUNK = 256
/** Below this many current records the pass stays in the thread (workers cost a parcel index each). */
const WORKER_MIN_RECORDS = 20_000

const round2 = (v: number) => round(v, 2)
const REL = (r: (typeof RELATIONSHIPS)[number]) => RELATIONSHIPS.indexOf(r)

function vertexCount(mp: MultiPolygon): number {
  let n = 0
  for (const p of mp) for (const r of p) n += r.length
  return n
}

/** An aligned ArrayBuffer copy of a file (Flatbush.from needs one). */
function readArrayBuffer(path: string): ArrayBuffer {
  const buf = readFileSync(path)
  const ab = new ArrayBuffer(buf.byteLength)
  new Uint8Array(ab).set(buf)
  return ab
}

/** One encumbrance against one parcel: the `parcel_overlap` row, or null when they do not meet. */
export interface OverlapRow {
  relationship: (typeof RELATIONSHIPS)[number]
  overlapSqm: number | null
  overlapM: number | null
  pct: number | null
  /** The clipped piece on `crosses` (areas as polygons, lines as lines), else null. */
  geom: { mp: MultiPolygon } | { lines: MultiLineString } | null
}

/**
 * How an encumbrance meets a parcel (docs/decisions.md "Encumbrances", "Geometry tolerances"):
 * - areas: the polygon overlap; `pct` of the parcel's computed area;
 * - dimensioned lines are their strip: relationship, `overlap_sqm`, `pct` and the clip come from
 *   the strip (a strip covering the whole parcel `contains` it); `overlap_m` is the length of the
 *   centreline inside the parcel (or along its boundary when none is inside);
 * - undimensioned lines: the relationship of the surveyed line itself (along the boundary only =
 *   touches, `overlap_sqm` 0); inside, `overlap_sqm` null.
 */
export function overlapOf(
  enc: {
    mp: MultiPolygon | PreparedPolygon | null
    lines: MultiLineString | PreparedLines | null
    strip: MultiPolygon | PreparedPolygon | null
  },
  parcel: MultiPolygon,
  parcelArea: () => number,
): OverlapRow | null {
  const pctOf = (sqm: number) => {
    const area = parcelArea()
    return area > 0 ? round2(Math.min(100, (sqm / area) * 100)) : 0
  }
  const area = enc.strip ?? enc.mp
  if (area) {
    const o = polygonOverlap(area, parcel)
    if (!o) return null
    const sqm = o.relationship === 'touches' ? 0 : round2(o.overlapSqm)
    let overlapM: number | null = null
    if (enc.strip) {
      const lo = lineOverlap(enc.lines!, parcel)
      overlapM = round2(!lo ? 0 : lo.relationship === 'touches' ? lo.boundaryM : lo.overlapM)
    }
    return {
      relationship: o.relationship,
      overlapSqm: sqm,
      overlapM,
      pct: pctOf(sqm),
      geom: o.relationship === 'crosses' ? { mp: o.geometry } : null,
    }
  }
  const lo = lineOverlap(enc.lines!, parcel)
  if (!lo) return null
  if (lo.relationship === 'touches')
    return { relationship: 'touches', overlapSqm: 0, overlapM: round2(lo.boundaryM), pct: 0, geom: null }
  return {
    relationship: lo.relationship,
    overlapSqm: null,
    overlapM: round2(lo.overlapM),
    pct: null,
    geom: lo.relationship === 'crosses' ? { lines: lo.geometry } : null,
  }
}

/** The built parcel files the pass reads. */
export interface ParcelPaths {
  sqlite: string
  flatbush: string
  flags: string
}

/** An encumbrance as the pass needs it. */
export interface EncumbranceInput {
  id: number
  cls: EncumbranceClass
  geom: Uint8Array
  /** A dimensioned line's width: its strip is built here from the stored centreline. */
  widthM: number | null
}

/** A `parcel_overlap` row: parcel id, encumbrance id, relationship code, m², m, %, clip blob, clip is lines. */
export type OverlapInsert = [
  number,
  number,
  number,
  number | null,
  number | null,
  number | null,
  Uint8Array | null,
  number,
]

/** Opens the parcel files and returns the function computing one encumbrance's rows. */
export function createOverlapComputer(paths: ParcelPaths): {
  rowsOf: (e: EncumbranceInput) => OverlapInsert[]
  close: () => void
} {
  const parcels = new DatabaseCtor(paths.sqlite, { readonly: true })
  parcels.pragma('mmap_size = 2147483647')
  const parcelGeom = parcels.prepare('SELECT geom FROM parcel WHERE id = ?').pluck()
  const index = Flatbush.from(readArrayBuffer(paths.flatbush))
  const parcelFlags = new Uint8Array(readFileSync(paths.flags))
  // parcels met by several encumbrances (farms under corridors) are decoded once while hot; their
  // area is computed only for those an encumbrance really meets
  let young = new Map<number, { mp: MultiPolygon; area: number }>()
  let old = new Map<number, { mp: MultiPolygon; area: number }>()
  const parcelOf = (id: number) => {
    let p = young.get(id) ?? old.get(id)
    if (!p) {
      p = { mp: decodeGeometry(parcelGeom.get(id) as Buffer), area: -1 }
      if (young.size >= 50_000) {
        old = young
        young = new Map()
      }
      young.set(id, p)
    }
    return p
  }
  const areaOf = (p: { mp: MultiPolygon; area: number }) => (p.area >= 0 ? p.area : (p.area = areaSqm(p.mp)))
  const visible = (i: number) => !(parcelFlags[i] & FLAG_HIDDEN)

  function rowsOf(e: EncumbranceInput): OverlapInsert[] {
    const isLine = LINE_CLASSES.has(e.cls)
    const decoded = decodeGeometry(e.geom)
    const lines = isLine ? polygonsAsLines(decoded) : null
    // full precision, as the server's /intersect builds it (src/features/encumbrances/strip.ts)
    const strip = lines && e.widthM ? bufferLines(lines, e.widthM / 2) : null
    const mp = isLine ? null : decoded
    const boxes = strip ? cellsOverPolygon(strip) : mp ? cellsOverPolygon(mp) : cellsAlongLines(lines!)
    // a parcel whose box the encumbrance (its strip, when it has one) does not come within
    // NEAR_BOX_M of cannot meet it: most parcels in the search cells are passed over unread
    const probe = strip ? new PreparedPolygon(strip) : mp ? new PreparedPolygon(mp) : new PreparedLines(lines!)
    const cands = new Set<number>()
    const near = (i: number, minX: number, minY: number, maxX: number, maxY: number) =>
      visible(i) && !cands.has(i + 1) && probe.nearBox(minX, minY, maxX, maxY, NEAR_BOX_M)
    for (const b of boxes) for (const i of index.search(b.minX, b.minY, b.maxX, b.maxY, near)) cands.add(i + 1)
    if (!cands.size) return []
    const many = cands.size > 8
    const prepared = (g: MultiPolygon) => (g === probe.geometry ? (probe as PreparedPolygon) : new PreparedPolygon(g))
    const enc = {
      mp: mp && many && vertexCount(mp) > PREPARE_VERTICES ? prepared(mp) : mp,
      lines: lines && many ? (probe instanceof PreparedLines ? probe : new PreparedLines(lines)) : lines,
      strip: strip && many && vertexCount(strip) > PREPARE_VERTICES ? prepared(strip) : strip,
    }
    const out: OverlapInsert[] = []
    for (const pid of [...cands].sort((a, b) => a - b)) {
      const p = parcelOf(pid)
      const o = overlapOf(enc, p.mp, () => areaOf(p))
      if (!o) continue
      const geom = o.geom ? encodeGeometry('mp' in o.geom ? o.geom.mp : linesAsPolygons(o.geom.lines)) : null
      out.push([
        pid,
        e.id,
        REL(o.relationship),
        o.overlapSqm,
        o.overlapM,
        o.pct,
        geom,
        o.geom && 'lines' in o.geom ? 1 : 0,
      ])
    }
    return out
  }
  return { rowsOf, close: () => parcels.close() }
}

/**
 * Fills `parcel_overlap` for the current records among ids 1..n. Rows go in by encumbrance id,
 * then parcel id, whether computed here or on workers.
 */
export async function computeOverlaps(
  db: Database.Database,
  paths: ParcelPaths,
  n: number,
  flags: Uint8Array,
  log: (line: string) => void,
): Promise<void> {
  const read = db.prepare('SELECT id, class, geom, width_m FROM encumbrance WHERE id = ?')
  const insert = db.prepare('INSERT INTO parcel_overlap VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
  const current: number[] = []
  for (let id = 1; id <= n; id++) if (!(flags[id - 1] & FLAG_NOT_CURRENT)) current.push(id)
  const inputOf = (id: number): EncumbranceInput => {
    const r = read.get(id) as { id: number; class: EncumbranceClass; geom: Buffer; width_m: number | null }
    return { id: r.id, cls: r.class, geom: new Uint8Array(r.geom), widthM: r.width_m }
  }
  const progress = createProgress('encumbrances/overlaps', current.length, { unit: 'encumbrances' })
  let pairs = 0
  const insertAll = (rows: OverlapInsert[]) => {
    for (const r of rows) insert.run(...r)
    pairs += rows.length
  }
  const script = workerScript('overlap-worker')
  const { threads, forced } = buildThreads()
  const big = current.length >= WORKER_MIN_RECORDS || forced
  db.exec('BEGIN')
  let exactClips = 0
  if (!script || threads < 2 || !big) {
    const computer = createOverlapComputer(paths)
    const before = fallbacks()
    try {
      for (const id of current) {
        progress.tick()
        insertAll(computer.rowsOf(inputOf(id)))
      }
    } finally {
      computer.close()
    }
    exactClips = fallbacks() - before
  } else {
    log(`encumbrances: overlaps on ${threads} worker threads`)
    exactClips = await runOnWorkers(script, threads, paths, current, inputOf, (rows, count) => {
      insertAll(rows)
      progress.tick(count)
    })
  }
  db.exec('COMMIT')
  progress.done(
    `${pairs} parcel overlaps${exactClips ? ` (${exactClips} clips by the exact clipper, see src/geo/clip.ts)` : ''}`,
  )
}

/**
 * Sends chunks of records to `threads` workers and hands results back in chunk order. Returns
 * how many clips the workers handed to the exact clipper.
 */
async function runOnWorkers(
  script: string,
  threads: number,
  paths: ParcelPaths,
  ids: number[],
  inputOf: (id: number) => EncumbranceInput,
  done: (rows: OverlapInsert[], count: number) => void,
): Promise<number> {
  // each worker reports its own running count; the last report of each is its total
  const exactClips = new Map<number, number>()
  await runChunksOnWorkers<{ chunk: number; rows: OverlapInsert[]; count: number; fallbacks: number; thread: number }>(
    script,
    threads,
    paths,
    Math.ceil(ids.length / CHUNK),
    (k) => {
      const recs = ids.slice(k * CHUNK, (k + 1) * CHUNK).map(inputOf)
      return {
        message: { recs },
        transfer: recs.map((r) => r.geom.buffer) as ArrayBuffer[],
      }
    },
    (m) => {
      exactClips.set(m.thread, Math.max(exactClips.get(m.thread) ?? 0, m.fallbacks))
      done(m.rows, m.count)
    },
  )
  return [...exactClips.values()].reduce((a, b) => a + b, 0)
}
