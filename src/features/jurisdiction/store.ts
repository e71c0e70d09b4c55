/**
 * The jurisdiction dataset opened once per dataset: every boundary record in memory with its
 * lookups by type and code and by parent, the boundary sets, the per-type box indexes and point
 * grids, the geometry statements, and the parcel reader the chain of a parcel starts from.
 */
import type Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import type { DomainManifest } from '../../data/manifest.js'
import type { OpenDataset } from '../../data/open-dataset.js'
import { BOUNDARY_TYPES, JURISDICTION_FILES, type BoundaryType } from '../../data/jurisdiction-format.js'
import { PARCEL_FILES } from '../../data/parcels-format.js'
import { lpiRowReader } from '../../data/parcel-readers.js'
import { LayerGrids, type LayerIndex } from './layer-grids.js'
import { inForce, readBoundaryRows, readBoundarySets, type BoundaryRow, type BoundarySetInfo } from './records.js'

/** A parcel's row as the chain of a parcel reads it. */
export interface ParcelRow {
  id: number
  wstatus: string | null
  lpi: string
  label_lon: number
  label_lat: number
  geom: Buffer
}

export class JurisdictionStore {
  /** The jurisdiction domain's manifest entry. */
  readonly manifest: DomainManifest
  readonly version: string
  readonly asOf: string
  /** Every record at its id (holes where no id is). */
  readonly rows: BoundaryRow[]
  /** Every record, by id. */
  readonly all: BoundaryRow[]
  readonly sets: BoundarySetInfo[]
  /** The earliest date a dated set took force; before it nothing answers (spec resolution rule 2). */
  readonly earliest: string | null
  readonly installedTypes: BoundaryType[]
  /** The box index of each type that has geometry. */
  readonly indexes = new Map<BoundaryType, LayerIndex>()
  readonly grids: LayerGrids
  /** `SELECT geom …` and `SELECT geom_lo …` (the overview) by id, plucked */
  readonly geomStmt: Database.Statement
  readonly loStmt: Database.Statement
  /**
   * Every visible version of an LPI, read from the parcel domain's files (the feature itself is
   * not imported); null without the cadastre. resolveParcel takes the published one (publishedVersion).
   */
  readonly parcelRows: ((lpi: string) => ParcelRow[]) | null
  private readonly byTypeCode = new Map<string, BoundaryRow[]>()
  private readonly children = new Map<number, BoundaryRow[]>()
  private readonly provincesByType = new Map<BoundaryType, string[]>()

  constructor(ds: OpenDataset) {
    const m = ds.domain('jurisdiction')!
    this.manifest = m
    this.version = m.dataset_version
    this.asOf = m.as_of
    const db = ds.sqlite(JURISDICTION_FILES.sqlite)

    // ---- every record in memory (tens of thousands of rows, a few MB)
    const rows = (this.rows = readBoundaryRows(db))
    const all = (this.all = rows.filter(Boolean))
    this.sets = readBoundarySets(db)
    for (const r of all) {
      const k = `${r.type}|${r.code}`
      const l = this.byTypeCode.get(k)
      if (l) l.push(r)
      else this.byTypeCode.set(k, [r])
      if (r.parentId !== null) {
        const c = this.children.get(r.parentId)
        if (c) c.push(r)
        else this.children.set(r.parentId, [r])
      }
    }
    let earliest: string | null = null
    for (const r of all) if (r.from !== null && (earliest === null || r.from < earliest)) earliest = r.from
    this.earliest = earliest
    this.installedTypes = BOUNDARY_TYPES.filter((t) => all.some((r) => r.type === t))
    for (const t of BOUNDARY_TYPES)
      this.provincesByType.set(
        t,
        [...new Set(all.filter((r) => r.type === t && r.province).map((r) => r.province!))].sort(),
      )

    // ---- spatial indexes per type
    for (const t of BOUNDARY_TYPES) {
      if (!ds.has(JURISDICTION_FILES.flatbush(t))) continue
      this.indexes.set(t, {
        index: Flatbush.from(ds.arrayBuffer(JURISDICTION_FILES.flatbush(t))),
        ids: new Uint32Array(ds.arrayBuffer(JURISDICTION_FILES.ids(t))),
      })
    }
    this.geomStmt = db.prepare('SELECT geom FROM boundary WHERE id = ?').pluck()
    this.loStmt = db.prepare('SELECT geom_lo FROM boundary WHERE id = ?').pluck()
    this.grids = new LayerGrids(rows, this.indexes, this.geomStmt)

    // ---- parcels
    const parcelDb = ds.domain('parcels') ? ds.sqlite(PARCEL_FILES.sqlite) : null
    this.parcelRows =
      parcelDb && lpiRowReader<ParcelRow>(ds, parcelDb, 'id, wstatus, lpi, label_lon, label_lat, geom', true)
  }

  byId(id: number): BoundaryRow | undefined {
    return this.rows[id]
  }

  /** The record of `type` with `code` in force on `d`. */
  byCode(type: BoundaryType, code: string, d: string): BoundaryRow | null {
    const l = this.byTypeCode.get(`${type}|${code}`)
    if (!l) return null
    for (const r of l) if (inForce(r, d)) return r
    return null
  }

  codeExists(type: BoundaryType, code: string): boolean {
    return this.byTypeCode.has(`${type}|${code}`)
  }

  /** Every version of the record of `type` with `code`. */
  versionsOf(type: BoundaryType, code: string): BoundaryRow[] {
    return this.byTypeCode.get(`${type}|${code}`) ?? []
  }

  /** The records whose parent is `id`. */
  childrenById(id: number): readonly BoundaryRow[] {
    return this.children.get(id) ?? []
  }

  ancestorsOf(r: BoundaryRow): BoundaryRow[] {
    const rows = this.rows
    const out: BoundaryRow[] = []
    for (let p = r.parentId, guard = 0; p !== null && guard < 8; p = rows[p].parentId, guard++) out.push(rows[p])
    return out
  }

  /** The provinces the records of `type` lie in, sorted. */
  provincesWith(type: BoundaryType): string[] {
    return this.provincesByType.get(type) ?? []
  }

  hasType(t: BoundaryType): boolean {
    return this.installedTypes.includes(t)
  }

  /** The full-resolution geometry blob of a record. */
  blobOf(id: number): Uint8Array {
    return this.geomStmt.get(id) as Uint8Array
  }
}
