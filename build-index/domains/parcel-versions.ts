/**
 * The versions ledger of the parcel pass: every cadastre row is checked against the rows of the
 * same LPI and the same source key loaded before it (docs/decisions.md "Ingest integrity"):
 *
 * - an exact duplicate (every field and the geometry equal to an earlier row) is dropped and
 *   counted as a duplicate;
 * - a second current version of one LPI (both rows shown by the default filter and neither
 *   Proposed), or one source key (`prcl_key`) on two LPIs, is a conflict: both rows are
 *   rejected, naming the key.
 *
 * Rows are checked after their insert, while they are the last row: a dropped or rejected new row
 * is deleted again, so ids stay contiguous. An earlier row rejected by a conflict is removed at
 * the end by {@link VersionLedger.compact}, which renumbers the rows after it (rare: only an
 * export with conflicts pays for it).
 *
 * Lookups go through two open-addressing tables of row ids keyed by the LPI hashes the pass
 * already keeps per row (lpi-hash.ts) and by the same hashes of the source key, with a chain of
 * earlier rows of the same key per row: about 20 bytes a row, no string per row.
 */
import type Database from 'better-sqlite3'
import { decodeGeometry } from '../../src/data/geometry-blob.js'
import { lpiBucketHash, lpiFingerprint } from '../../src/data/lpi-hash.js'
import type { LayerStats } from '../../src/data/manifest.js'
import { PARCEL_LAYERS } from '../../src/data/parcels-format.js'
import { PREFILTER_STRIDE } from '../../src/data/parcels-prefilter.js'
import { bboxOf } from '../../src/geo/polygon.js'
import type { RejectLog } from '../reject-log.js'
import { FIX_LABEL, FIX_REORIENTED, FIX_REPAIRED } from './parcel-rows.js'

/** What the ledger decided for the row just inserted. */
export type VersionVerdict =
  | { keep: true }
  | { keep: false; duplicate: true }
  | { keep: false; duplicate: false; reason: string; earlier: { id: number; ref: string; reason: string }[] }

interface Row {
  lpi: string
  source_key: string | null
  wstatus: string | null
  hidden: number
}

/** A current version: shown by the default filter, and not a Proposed (P) work status. */
const isCurrent = (r: Row) => r.hidden === 0 && r.wstatus !== 'P'

/** An open-addressing table of the latest row id per 64-bit key, with each row's previous row of the same key. */
class KeyTable {
  private slots = new Int32Array(1 << 12)
  private bucketOf = new Uint32Array(1 << 12)
  private printOf = new Uint32Array(1 << 12)
  private prev = new Int32Array(1 << 12)
  private used = 0

  /** The latest row before `id` with this key (0 when none), then records `id` as the latest. */
  add(id: number, bucket: number, print: number): number {
    if (id >= this.prev.length) this.growRows(id)
    this.bucketOf[id] = bucket
    this.printOf[id] = print
    if ((this.used + 1) * 2 > this.slots.length) this.rehash()
    const slot = this.find(bucket, print)
    const before = this.slots[slot]
    if (before === 0) this.used++
    this.slots[slot] = id
    this.prev[id] = before
    return before
  }

  /** The row before `id` with the same key, 0 at the end of the chain. */
  previous(id: number): number {
    return this.prev[id]
  }

  /**
   * Undoes the add of `id`, which must be the last add: the table is as it was before it (a slot
   * emptied again breaks no probe chain, since no key was placed after it).
   */
  undo(id: number): void {
    const slot = this.find(this.bucketOf[id], this.printOf[id])
    this.slots[slot] = this.prev[id]
    if (this.prev[id] === 0) this.used--
  }

  private find(bucket: number, print: number): number {
    const mask = this.slots.length - 1
    let s = (bucket ^ Math.imul(print, 0x9e3779b1)) & mask
    for (;;) {
      const id = this.slots[s]
      if (id === 0 || (this.bucketOf[id] === bucket && this.printOf[id] === print)) return s
      s = (s + 1) & mask
    }
  }

  private growRows(id: number): void {
    let size = this.prev.length
    while (size <= id) size *= 2
    const prev = new Int32Array(size)
    prev.set(this.prev)
    this.prev = prev
    const bucketOf = new Uint32Array(size)
    bucketOf.set(this.bucketOf)
    this.bucketOf = bucketOf
    const printOf = new Uint32Array(size)
    printOf.set(this.printOf)
    this.printOf = printOf
  }

  private rehash(): void {
    const old = this.slots
    this.slots = new Int32Array(old.length * 2)
    for (const id of old) if (id !== 0) this.slots[this.find(this.bucketOf[id], this.printOf[id])] = id
  }
}

/** Per row, where it came from, kept compactly: the reference's prefix (file) and its trailing number. */
class RefStore {
  private prefixes: string[] = []
  private prefixIndex = new Map<string, number>()
  private prefixOf = new Uint16Array(1 << 12)
  private numberOf = new Uint32Array(1 << 12)
  private odd = new Map<number, string>()

  set(id: number, ref: string): void {
    if (id >= this.numberOf.length) {
      const p = new Uint16Array(this.numberOf.length * 2)
      p.set(this.prefixOf)
      this.prefixOf = p
      const q = new Uint32Array(this.numberOf.length * 2)
      q.set(this.numberOf)
      this.numberOf = q
    }
    const m = /^(.*[:#])(\d{1,9})$/.exec(ref)
    let k = m ? this.prefixIndex.get(m[1]) : undefined
    if (m && k === undefined && this.prefixes.length < 0xffff) {
      k = this.prefixes.push(m[1]) - 1
      this.prefixIndex.set(m[1], k)
    }
    if (!m || k === undefined) {
      this.odd.set(id, ref)
      return
    }
    this.prefixOf[id] = k
    this.numberOf[id] = Number(m[2])
  }

  get(id: number): string {
    return this.odd.get(id) ?? `${this.prefixes[this.prefixOf[id]]}${this.numberOf[id]}`
  }
}

/** The fields of a row the ledger judges by. */
export interface VersionFields {
  lpi: string
  sourceKey: string | null
  wstatus: string | null
  hidden: boolean
}

/** The ledger of one parcel pass over the scratch database. */
export class VersionLedger {
  private readonly byLpi = new KeyTable()
  private readonly byKey = new KeyTable()
  private readonly refs = new RefStore()
  private readonly readRow: Database.Statement
  private readonly readRaw: Database.Statement
  private readonly readGeom: Database.Statement
  private readonly deleteRow: Database.Statement
  /** Earlier rows rejected by a conflict, removed by {@link compact}. */
  readonly removed = new Set<number>()

  constructor(private readonly db: Database.Database) {
    this.readRow = db.prepare('SELECT lpi, source_key, wstatus, hidden FROM parcel WHERE id = ?')
    this.readRaw = db.prepare('SELECT * FROM parcel WHERE id = ?').raw()
    this.readGeom = db.prepare('SELECT geom FROM parcel WHERE id = ?').pluck()
    this.deleteRow = db.prepare('DELETE FROM parcel WHERE id = ?')
  }

  /**
   * Checks row `id`, just inserted as the last row, against the rows before it (`lpiBucket` and
   * `lpiPrint` are its LPI's hashes). When the verdict is not `keep`, the row has been deleted
   * again and `id` is free for the next row.
   */
  check(id: number, ref: string, row: VersionFields, lpiBucket: number, lpiPrint: number): VersionVerdict {
    const current = !row.hidden && row.wstatus !== 'P'
    const conflicts: { id: number; ref: string; reason: string }[] = []
    let reason = ''
    for (let j = this.byLpi.add(id, lpiBucket, lpiPrint); j !== 0; j = this.byLpi.previous(j)) {
      const other = this.readRow.get(j) as Row
      if (other.lpi !== row.lpi) continue
      if (this.sameRow(id, j)) {
        this.byLpi.undo(id)
        this.deleteRow.run(id)
        return { keep: false, duplicate: true }
      }
      if (current && isCurrent(other)) {
        // versions of one parcel lie on each other; two parcels apart are a key collision in
        // the export, and saying "two versions" would send the reader looking for the wrong fault
        const apart = this.apart(id, j)
        const what = (other: string) =>
          apart
            ? `key collision: this row and ${other} both use LPI ${row.lpi} for two parcels whose boundaries ` +
              'do not meet; both rejected'
            : `LPI ${row.lpi} has two current versions: this row and ${other}; both rejected`
        reason ||= what(this.refs.get(j))
        conflicts.push({ id: j, ref: this.refs.get(j), reason: what(ref) })
      }
    }
    const key = row.sourceKey
    if (key) {
      for (let j = this.byKey.add(id, lpiBucketHash(key), lpiFingerprint(key)); j !== 0; j = this.byKey.previous(j)) {
        const other = this.readRow.get(j) as Row
        if (other.source_key !== key || other.lpi === row.lpi) continue
        reason ||= `source key ${key} is on two LPIs: ${row.lpi} here and ${other.lpi} at ${this.refs.get(j)}; both rejected`
        conflicts.push({
          id: j,
          ref: this.refs.get(j),
          reason: `source key ${key} is on two LPIs: ${other.lpi} here and ${row.lpi} at ${ref}; both rejected`,
        })
      }
    }
    if (conflicts.length) {
      if (key) this.byKey.undo(id)
      this.byLpi.undo(id)
      this.deleteRow.run(id)
      const earlier = conflicts.filter((c) => !this.removed.has(c.id))
      for (const c of earlier) this.removed.add(c.id)
      return { keep: false, duplicate: false, reason, earlier }
    }
    this.refs.set(id, ref)
    return { keep: true }
  }

  /** Whether the boundaries of rows a and b are apart (their boxes do not meet): two parcels, not two versions. */
  private apart(a: number, b: number): boolean {
    const x = bboxOf(decodeGeometry(this.readGeom.get(a) as Buffer))
    const y = bboxOf(decodeGeometry(this.readGeom.get(b) as Buffer))
    return x.maxX < y.minX || y.maxX < x.minX || x.maxY < y.minY || y.maxY < x.minY
  }

  /** Every field and the geometry the same (the id aside). */
  private sameRow(a: number, b: number): boolean {
    const x = this.readRaw.get(a) as unknown[]
    const y = this.readRaw.get(b) as unknown[]
    for (let k = 1; k < x.length; k++) {
      const u = x[k]
      const v = y[k]
      if (u instanceof Uint8Array && v instanceof Uint8Array) {
        if (Buffer.compare(u, v) !== 0) return false
      } else if (u !== v) return false
    }
    return true
  }

  /**
   * Removes the earlier rows rejected by conflicts and renumbers the rows after them, so ids stay
   * 1..n in source order. Returns the removed ids, ascending, for the caller's per-row arrays.
   */
  compact(): number[] {
    const ids = [...this.removed].sort((a, b) => a - b)
    if (!ids.length) return ids
    this.db.exec('CREATE TEMP TABLE removed_parcel (id INTEGER PRIMARY KEY)')
    const add = this.db.prepare('INSERT INTO removed_parcel VALUES (?)')
    for (const id of ids) add.run(id)
    this.db.exec(`DELETE FROM parcel WHERE id IN (SELECT id FROM removed_parcel);
      UPDATE parcel SET id = id - (SELECT count(*) FROM removed_parcel r WHERE r.id < parcel.id) WHERE id > ${ids[0]};
      DROP TABLE removed_parcel;`)
    return ids
  }
}

/** Drops the entries of `removed` (ascending ids, 1-based) from a per-row array of `stride` values per row. */
export function dropRows<T extends { length: number; copyWithin(t: number, s: number, e: number): T }>(
  a: T,
  n: number,
  removed: readonly number[],
  stride = 1,
): void {
  let write = (removed[0] - 1) * stride
  for (let k = 0; k < removed.length; k++) {
    const from = removed[k] * stride
    const to = (k + 1 < removed.length ? removed[k + 1] - 1 : n) * stride
    a.copyWithin(write, from, to)
    write += to - from
  }
}

/**
 * Rejects the earlier rows of conflicts found later in the pass (each counted against its own
 * layer), removes them and closes the gaps in the per-row arrays. Returns how many were removed.
 */
export function rejectEarlierConflicts(
  db: Database.Database,
  ledger: VersionLedger,
  late: { id: number; ref: string; reason: string; layer?: string }[],
  rejects: RejectLog,
  layers: Record<string, LayerStats>,
  log: (line: string) => void,
  n: number,
  arrays: {
    boxes: Float64Array
    flags: Uint8Array
    lpiBuckets: Uint32Array
    lpiPrints: Uint32Array
    prefilter: Uint8Array
    /** per parcel, the FIX_* bits of parcel-rows.ts (not renumbered: read before the rows go) */
    fixes: Uint8Array
  },
): number {
  if (!late.length) return 0
  const where = db.prepare('SELECT province, parcel_type FROM parcel WHERE id = ?')
  const fix = db.prepare(
    'UPDATE coverage SET records = records - 1, repaired = repaired - ? WHERE province = ? AND layer = ?',
  )
  const fixRejected = db.prepare('UPDATE coverage SET rejected = ? WHERE province = ? AND layer = ?')
  for (const e of late) {
    const { province, parcel_type } = where.get(e.id) as { province: string; parcel_type: string }
    const file = PARCEL_LAYERS.find((l) => l.type === parcel_type)!.file
    const name = `parcels/${province}/${file}`
    e.layer = name
    rejects.reject(name, e.ref, e.reason)
    const stats = layers[`${province}/${file}`]
    stats.rows--
    stats.rejected = rejects.count(name)
    // the fixes were counted when the row was kept: it is not, after all
    const bits = arrays.fixes[e.id - 1]
    const repaired = bits & FIX_REPAIRED ? 1 : 0
    stats.repaired -= repaired
    if (bits & FIX_REORIENTED) stats.reoriented = stats.reoriented! - 1
    if (bits & FIX_LABEL) stats.labels_replaced = stats.labels_replaced! - 1
    fix.run(repaired, province, parcel_type)
    fixRejected.run(stats.rejected, province, parcel_type)
  }
  for (const name of new Set(late.map((e) => e.layer as string))) {
    const stats = layers[name.slice('parcels/'.length)]
    const k = late.filter((e) => e.layer === name).length
    log(
      `${name}: ${k} earlier rows rejected by conflicts found later: ${stats.rows} parcels, ${stats.rejected} rejected`,
    )
  }
  const removed = ledger.compact()
  dropRows(arrays.boxes, n, removed, 4)
  dropRows(arrays.flags, n, removed)
  dropRows(arrays.lpiBuckets, n, removed)
  dropRows(arrays.lpiPrints, n, removed)
  dropRows(arrays.prefilter, n, removed, PREFILTER_STRIDE)
  return removed.length
}
