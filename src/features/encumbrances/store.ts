/**
 * What the encumbrance queries open once per dataset (src/data/encumbrance-format.ts): the
 * SQLite file and its prepared statements, the record flags, the per-class Flatbush indexes
 * with their id lists, the `/at` search over them (with the prefilter where the dataset has
 * one), the class of every record, and the parcel files when the dataset holds the parcel
 * domain.
 *
 * @module
 */
import type Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import { ENCUMBRANCE_CLASSES, ENCUMBRANCE_FILES, type EncumbranceClass } from '../../data/encumbrance-format.js'
import { PREFILTER_STRIDE, createPrefilter } from '../../data/parcels-prefilter.js'
import type { LayerStats } from '../../data/manifest.js'
import type { OpenDataset } from '../../data/open-dataset.js'
import type { MultiPolygon } from '../../data/geometry-blob.js'
import { AtGeometries } from './at-geometry.js'
import { ParcelStore } from './parcels.js'
import { AtSearch } from './point-search.js'
import { COLUMNS } from './records.js'

/** One class's spatial index: Flatbush over its records' boxes, and the record id of each item. */
export interface ClassIndex {
  cls: EncumbranceClass
  index: Flatbush
  ids: Uint32Array
}

/** The statements of the encumbrance file, prepared once (raw ones read whole rows, see toRow). */
function prepareStatements(db: Database.Database) {
  return {
    byId: db.prepare(`SELECT ${COLUMNS} FROM encumbrance WHERE id = ?`).raw(true),
    byUid: db.prepare(`SELECT ${COLUMNS} FROM encumbrance WHERE uid = ?`).raw(true),
    // the geometry /at measures, alone (at-geometry.ts): a strip where the record has one, so an
    // area's read is one blob, a line's the blob and whether it is the strip
    geomOfArea: db.prepare('SELECT coalesce(area_geom, geom) FROM encumbrance WHERE id = ?').pluck(),
    geomOfLine: db
      .prepare('SELECT coalesce(area_geom, geom), area_geom IS NULL FROM encumbrance WHERE id = ?')
      .raw(true),
    overlapsOfParcel: db
      .prepare(
        `SELECT o.relationship, o.overlap_sqm, o.overlap_m, o.pct, o.geom AS clip, o.clip_is_line, ${COLUMNS.replace(/(\w+)/g, 'e.$1')}
       FROM parcel_overlap o JOIN encumbrance e ON e.id = o.encumbrance_id WHERE o.parcel_id = ?`,
      )
      .raw(true),
    overlapClasses: db.prepare('SELECT encumbrance_id, pct FROM parcel_overlap WHERE parcel_id = ?').raw(true),
    summaryOfParcel: db.prepare(
      `SELECT e.class AS class, count(*) AS n, max(o.pct) AS pct FROM parcel_overlap o JOIN encumbrance e ON e.id = o.encumbrance_id
       WHERE o.parcel_id = ? GROUP BY e.class`,
    ),
    affected: db.prepare(
      'SELECT parcel_id, relationship, overlap_sqm, overlap_m, pct FROM parcel_overlap WHERE encumbrance_id = ? ' +
        'ORDER BY parcel_id',
    ),
    coverage: db.prepare(
      'SELECT province, class, records, current, unspecified, unlisted, repaired, rejected FROM coverage ORDER BY ' +
        'province, class',
    ),
    heatCells: db.prepare(
      'SELECT cx, cy, n FROM heat_cell WHERE class = ? AND cy BETWEEN ? AND ? AND cx BETWEEN ? AND ?',
    ),
  }
}

export type EncumbranceStatements = ReturnType<typeof prepareStatements>

/** The per-class indexes the dataset holds, in ENCUMBRANCE_CLASSES order. */
function classIndexes(ds: OpenDataset): ClassIndex[] {
  return ENCUMBRANCE_CLASSES.flatMap((cls) =>
    ds.has(ENCUMBRANCE_FILES.flatbush(cls))
      ? [
          {
            cls,
            index: Flatbush.from(ds.arrayBuffer(ENCUMBRANCE_FILES.flatbush(cls))),
            ids: new Uint32Array(ds.arrayBuffer(ENCUMBRANCE_FILES.ids(cls))),
          },
        ]
      : [],
  )
}

/**
 * The class of every record (index id - 1: 1 + its place in ENCUMBRANCE_CLASSES; 0 unknown),
 * from the per-class id lists, so a parcel's summary counts its overlaps by class without
 * reading each overlapping record's row (one random row read each, about half the summary).
 */
function classOfIdTable(indexes: readonly ClassIndex[], records: number): Uint8Array {
  const classOfId = new Uint8Array(records)
  for (const { cls, ids } of indexes) {
    const c = ENCUMBRANCE_CLASSES.indexOf(cls) + 1
    for (let k = 0; k < ids.length; k++) if (ids[k] >= 1 && ids[k] <= classOfId.length) classOfId[ids[k] - 1] = c
  }
  return classOfId
}

/** The `/at` prefilter of the dataset's records (one entry per record), or null for a dataset built before it. */
function prefilterOf(ds: OpenDataset, records: number): ReturnType<typeof createPrefilter> | null {
  if (!ds.has(ENCUMBRANCE_FILES.prefilter)) return null
  const bytes = new Uint8Array(ds.arrayBuffer(ENCUMBRANCE_FILES.prefilter))
  if (bytes.length !== records * PREFILTER_STRIDE)
    throw new Error(
      `${ENCUMBRANCE_FILES.prefilter} holds ${bytes.length} bytes, expected ${records * PREFILTER_STRIDE} for ${records} records`,
    )
  return createPrefilter(bytes)
}

/** The encumbrance domain of one open dataset, opened once. */
export class EncumbranceStore {
  readonly version: string
  readonly asOf: string
  /** The manifest's load counts per `<province>/<class>`. */
  readonly layers: Record<string, LayerStats>
  readonly db: Database.Database
  readonly st: EncumbranceStatements
  /** Per record (id - 1): FLAG_NOT_CURRENT, FLAG_LINE. */
  readonly flags: Uint8Array
  readonly indexes: ClassIndex[]
  /** The `/at` search over the indexes (point-search.ts). */
  readonly at: AtSearch
  readonly classOfId: Uint8Array
  /** The highest record id (where a windowed /search ends). */
  readonly maxId: number
  /** The parcel files, or null when the dataset has no parcel domain. */
  readonly parcels: ParcelStore | null
  /** The geometry `/at` tests records on, the large ones kept (at-geometry.ts). */
  readonly atGeometries: AtGeometries
  /** Strips of dimensioned lines built at full precision, most recent last (see strip.ts). */
  readonly strips = new Map<number, MultiPolygon>()

  constructor(ds: OpenDataset) {
    const manifest = ds.domain('encumbrances')!
    this.version = manifest.dataset_version
    this.asOf = manifest.as_of
    this.layers = manifest.layers
    this.db = ds.sqlite(ENCUMBRANCE_FILES.sqlite)
    this.flags = new Uint8Array(ds.arrayBuffer(ENCUMBRANCE_FILES.flags))
    this.indexes = classIndexes(ds)
    this.at = new AtSearch(this.indexes, this.flags, prefilterOf(ds, this.flags.length))
    this.classOfId = classOfIdTable(this.indexes, this.flags.length)
    this.st = prepareStatements(this.db)
    this.atGeometries = new AtGeometries(this.st, this.flags)
    this.maxId = (this.db.prepare('SELECT max(id) FROM encumbrance').pluck().get() as number | null) ?? 0
    this.parcels = ds.domain('parcels') !== null ? new ParcelStore(ds) : null
  }
}
