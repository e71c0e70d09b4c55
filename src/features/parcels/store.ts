/**
 * What the parcel queries open once per dataset: the SQLite file and its prepared statements,
 * the Flatbush index, the flags, the prefilter, the LPI reader and the row cache.
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import type Flatbush from 'flatbush'
import type { OpenDataset } from '../../data/open-dataset.js'
import type { LayerStats } from '../../data/manifest.js'
import { FLAG_LAYER_MASK, PARCEL_FILES, layerCode } from '../../data/parcels-format.js'
import { lpiRowReader, sharedParcelFlags, sharedParcelIndex } from '../../data/parcel-readers.js'
import { decodeGeometry, type MultiPolygon } from '../../data/geometry-blob.js'
import { PARCEL_TILE_ROW_SQL, PARCEL_TILES_FILE } from '../../data/parcel-tiles.js'
import { TileStore } from '../../data/tile-store.js'
import { PREFILTER_STRIDE, createPrefilter } from '../../data/parcels-prefilter.js'
import { bySpecificityOf } from './order.js'
import { PointSearch, type Prefilter } from './point-search.js'
import { COLUMNS, ROW_COLUMNS, rowOfColumns, type Row } from './records.js'

/** Rows per generation of the shared-parcel row cache. */
const ROW_CACHE = 50_000

const ERF = layerCode('ERF')

/** The statements of the parcel queries, prepared once. */
function prepare(db: Database.Database) {
  return {
    // raw arrays: better-sqlite3 builds row objects property by property, slower than the
    // literal in rowOfColumns (3.8 vs 6.5 us a row at national scale)
    row: db.prepare(`SELECT ${ROW_COLUMNS} FROM parcel WHERE id = ?`).raw(true),
    geom: db.prepare('SELECT geom FROM parcel WHERE id = ?').pluck(),
    // a vector tile's feature, for the tiles made when asked (tiles.ts)
    tile: db.prepare(PARCEL_TILE_ROW_SQL).raw(true),
    byKey: db.prepare(`SELECT ${COLUMNS} FROM parcel WHERE source_key = ?`),
    touching: db.prepare('SELECT neighbour_id, shared_m FROM neighbour WHERE parcel_id = ? ORDER BY neighbour_id'),
    // beacons and plans come unsorted and are sorted in JS (ring position, then beacon id; SG
    // number): an ORDER BY here made SQLite build a temporary B-tree per request
    beacons: db.prepare(
      `SELECT b.beacon_id, b.name, b.description, b.date_stamp, b.latitude, b.longitude, pb.ring_position
       FROM parcel_beacon pb JOIN beacon b ON b.id = pb.beacon_row WHERE pb.parcel_id = ?`,
    ),
    plans: db.prepare(
      `SELECT g.sg_number, g.description, g.date_stamp FROM parcel_general_plan pg JOIN general_plan g ON g.id = pg.plan_id
       WHERE pg.parcel_id = ?`,
    ),
    coverage: db.prepare('SELECT province, layer, records, repaired, rejected FROM coverage'),
  }
}

/** The parcel domain of one open dataset, opened once: every query reads through it. */
export class ParcelStore {
  readonly version: string
  /** The manifest's load counts per `<province>/<layer file>` (re-oriented and duplicate rows are counted there only). */
  readonly layers: Record<string, LayerStats>
  /** the dataset version as JSON, as every record's bytes carry it */
  readonly versionJson: string
  readonly asOf: string
  /**
   * When this build was written: its manifest's modification time (build-index writes the
   * manifest last; a build reused or switched to keeps its own), not when this server started
   */
  readonly loadedAt: string
  readonly index: Flatbush
  readonly flags: Uint8Array
  readonly st: ReturnType<typeof prepare>
  /** the tiles made at build time (src/data/tile-store.ts), or null for a dataset built without them */
  readonly tiles: TileStore | null
  /** every version of an LPI, unsorted (see byVersion) */
  readonly rowsOfLpi: (lpi: string) => Row[]
  /** the point search over the index and the prefilter */
  readonly points: PointSearch
  /** index items by specificity, then item */
  readonly bySpecificity: (a: number, b: number) => number
  // rows of the large shared parcels (farms, portions, holdings, streets, public places) are read
  // again and again: every /at in a township returns its farm and portion. A two-generation cache
  // of them (O(1), at most 2 x ROW_CACHE rows, a few tens of MB) skips that read; erven, the
  // bulk of the cadastre and rarely repeated, are not cached
  private youngRows = new Map<number, Row>()
  private oldRows = new Map<number, Row>()

  constructor(ds: OpenDataset) {
    const manifest = ds.domain('parcels')!
    this.version = manifest.dataset_version
    this.versionJson = JSON.stringify(this.version)
    this.asOf = manifest.as_of
    this.layers = manifest.layers
    this.loadedAt = builtAt(ds.dir)
    const db: Database.Database = ds.sqlite(PARCEL_FILES.sqlite)
    this.index = sharedParcelIndex(ds)
    this.flags = sharedParcelFlags(ds)
    // absent from datasets built before it: every candidate's geometry is then read
    const prefilter = ds.has(PARCEL_FILES.prefilter)
      ? loadPrefilter(new Uint8Array(ds.arrayBuffer(PARCEL_FILES.prefilter)), this.index.numItems)
      : null
    this.st = prepare(db)
    this.tiles = ds.has(PARCEL_TILES_FILE) ? new TileStore(ds.sqlite(PARCEL_TILES_FILE)) : null
    this.rowsOfLpi = lpiRowReader<Row>(ds, db, COLUMNS, false)
    this.points = new PointSearch(this.index, this.flags, prefilter)
    this.bySpecificity = bySpecificityOf(this.flags)
  }

  /** The row of parcel `id`, through the row cache for the shared parcels. */
  rowOf(id: number): Row {
    if ((this.flags[id - 1] & FLAG_LAYER_MASK) === ERF) return this.readRow(id)
    let r = this.youngRows.get(id) ?? this.oldRows.get(id)
    if (!r) {
      r = this.readRow(id)
      r.cached = true
    }
    if (this.youngRows.size >= ROW_CACHE) {
      this.oldRows = this.youngRows
      this.youngRows = new Map()
    }
    this.youngRows.set(id, r)
    return r
  }

  private readRow(id: number): Row {
    const a = this.st.row.get(id) as unknown[] | undefined
    if (!a) throw new Error(`parcel ${id} is in the index but not in ${PARCEL_FILES.sqlite}`)
    return rowOfColumns(id, this.flags[id - 1], a)
  }

  /** The stored boundary of parcel `id`. */
  geomOf(id: number): MultiPolygon {
    return decodeGeometry(this.st.geom.get(id) as Buffer)
  }
}

/** The prefilter over the index's items; its size must match (one entry per parcel). */
function loadPrefilter(bytes: Uint8Array, items: number): Prefilter {
  if (bytes.length !== items * PREFILTER_STRIDE) {
    throw new Error(
      `${PARCEL_FILES.prefilter} holds ${bytes.length} bytes, expected ${items * PREFILTER_STRIDE} for ${items} parcels`,
    )
  }
  return createPrefilter(bytes)
}

/** The modification time of a build's manifest (ISO 8601), or now where it cannot be read. */
function builtAt(dir: string): string {
  const st = statSync(join(dir, 'manifest.json'), { throwIfNoEntry: false })
  return (st?.mtime ?? new Date()).toISOString()
}
