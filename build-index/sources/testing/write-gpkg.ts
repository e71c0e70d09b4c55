// test-only geopackage writer: just enough of OGC 12-128 for the reader tests, with control over
// byte order, envelopes and z/m encodings so that every decoder branch can be exercised.
import Database from 'better-sqlite3'

/** A geometry to encode; positions may carry 2 to 4 ordinates. */
export interface TestGeometry {
  type: 'Point' | 'LineString' | 'Polygon' | 'MultiPoint' | 'MultiLineString' | 'MultiPolygon' | 'GeometryCollection'
  coordinates: unknown
}

/** How to write the WKB. */
export interface WkbOptions {
  bigEndian?: boolean
  /** ordinates per position; missing ones are written as 0 */
  dims?: 'xy' | 'xyz' | 'xym' | 'xyzm'
  /** iso adds 1000/2000/3000 to the type code; ewkb sets the high bits */
  extraStyle?: 'iso' | 'ewkb'
}

/** How to write the GeoPackage header. */
export interface GpkgBlobOptions extends WkbOptions {
  /** envelope contents indicator: 0 none, 1 xy, 2 xyz */
  envelope?: 0 | 1 | 2
  headerBigEndian?: boolean
  srsId?: number
}

const TYPE_CODES: Record<TestGeometry['type'], number> = {
  Point: 1,
  LineString: 2,
  Polygon: 3,
  MultiPoint: 4,
  MultiLineString: 5,
  MultiPolygon: 6,
  GeometryCollection: 7,
}
const PART_TYPES: Partial<Record<TestGeometry['type'], TestGeometry['type']>> = {
  MultiPoint: 'Point',
  MultiLineString: 'LineString',
  MultiPolygon: 'Polygon',
}

class ByteWriter {
  private readonly chunks: Buffer[] = []
  constructor(private readonly bigEndian: boolean) {}
  u8(value: number): void {
    this.chunks.push(Buffer.from([value]))
  }
  u32(value: number): void {
    const b = Buffer.alloc(4)
    if (this.bigEndian) b.writeUInt32BE(value >>> 0)
    else b.writeUInt32LE(value >>> 0)
    this.chunks.push(b)
  }
  i32(value: number): void {
    const b = Buffer.alloc(4)
    if (this.bigEndian) b.writeInt32BE(value)
    else b.writeInt32LE(value)
    this.chunks.push(b)
  }
  f64(value: number): void {
    const b = Buffer.alloc(8)
    if (this.bigEndian) b.writeDoubleBE(value)
    else b.writeDoubleLE(value)
    this.chunks.push(b)
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks)
  }
}

function typeCode(type: TestGeometry['type'], opts: WkbOptions): number {
  const base = TYPE_CODES[type]
  const dims = opts.dims ?? 'xy'
  const z = dims === 'xyz' || dims === 'xyzm'
  const m = dims === 'xym' || dims === 'xyzm'
  if (opts.extraStyle === 'ewkb') return (base | (z ? 0x80000000 : 0) | (m ? 0x40000000 : 0)) >>> 0
  return base + (z && m ? 3000 : z ? 1000 : m ? 2000 : 0)
}

function ordinateCount(opts: WkbOptions): number {
  return (opts.dims ?? 'xy').length
}

/** Encodes a geometry as WKB. */
export function wkb(geometry: TestGeometry, opts: WkbOptions = {}): Buffer {
  const w = new ByteWriter(opts.bigEndian ?? false)
  writeGeometry(w, geometry.type, geometry.coordinates, opts)
  return w.bytes()
}

function writeGeometry(w: ByteWriter, type: TestGeometry['type'], coordinates: unknown, opts: WkbOptions): void {
  w.u8(opts.bigEndian ? 0 : 1)
  w.u32(typeCode(type, opts))
  const n = ordinateCount(opts)
  const position = (p: number[]) => {
    for (let i = 0; i < n; i++) w.f64(p[i] ?? 0)
  }
  const positions = (list: number[][]) => {
    w.u32(list.length)
    list.forEach(position)
  }
  switch (type) {
    case 'Point':
      return position(coordinates as number[])
    case 'LineString':
      return positions(coordinates as number[][])
    case 'Polygon':
      w.u32((coordinates as number[][][]).length)
      return (coordinates as number[][][]).forEach(positions)
    case 'GeometryCollection':
      return w.u32(0)
    default: {
      const parts = coordinates as unknown[]
      w.u32(parts.length)
      for (const part of parts) writeGeometry(w, PART_TYPES[type] as TestGeometry['type'], part, opts)
    }
  }
}

function allPositions(coordinates: unknown): number[][] {
  if (Array.isArray(coordinates) && typeof coordinates[0] === 'number') return [coordinates as number[]]
  return Array.isArray(coordinates) ? coordinates.flatMap(allPositions) : []
}

/** Encodes a GeoPackage geometry blob; a null geometry gives a blob with the empty flag set. */
export function gpkgBlob(geometry: TestGeometry | null, opts: GpkgBlobOptions = {}): Buffer {
  const envelope = geometry === null ? 0 : (opts.envelope ?? 0)
  const header = new ByteWriter(opts.headerBigEndian ?? false)
  header.u8(0x47)
  header.u8(0x50)
  header.u8(0)
  header.u8((geometry === null ? 0x10 : 0) | (envelope << 1) | (opts.headerBigEndian ? 0 : 1))
  header.i32(opts.srsId ?? 4326)
  if (geometry !== null && envelope > 0) {
    const ps = allPositions(geometry.coordinates)
    const axis = (i: number) => ps.map((p) => p[i] ?? 0)
    for (let i = 0; i < (envelope === 1 ? 2 : 3); i++) {
      header.f64(Math.min(...axis(i)))
      header.f64(Math.max(...axis(i)))
    }
  }
  const body = geometry === null ? wkb({ type: 'Point', coordinates: [NaN, NaN] }) : wkb(geometry, opts)
  return Buffer.concat([header.bytes(), body])
}

/** One table of a test GeoPackage. */
export interface TestTable {
  name: string
  dataType?: 'features' | 'attributes'
  geometryColumn?: string
  /** column name -> sqlite type, in order */
  columns: Record<string, string>
  rows: Record<string, unknown>[]
}

/** Writes a GeoPackage with the given tables, listed in gpkg_contents in that order. */
export function writeGpkg(file: string, tables: TestTable[]): void {
  const db = new Database(file)
  try {
    db.pragma('application_id = 0x47504B47')
    db.exec(`
      CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY,
        organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL,
        description TEXT);
      INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, 'GEOGCS["WGS 84"]', NULL);
      CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL,
        identifier TEXT UNIQUE, description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT
        (strftime('%Y-%m-%dT%H:%M:%fZ','now')), min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE,
        srs_id INTEGER);
      CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
        geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
        CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name));
    `)
    for (const table of tables) writeTable(db, table)
  } finally {
    db.close()
  }
}

function writeTable(db: Database.Database, table: TestTable): void {
  const dataType = table.dataType ?? 'features'
  const geometryColumn = table.geometryColumn ?? 'geom'
  const columns = Object.entries(table.columns).map(([name, type]) => `"${name}" ${type}`)
  if (dataType === 'features') columns.unshift(`"${geometryColumn}" BLOB`)
  db.exec(`CREATE TABLE "${table.name}" (fid INTEGER PRIMARY KEY AUTOINCREMENT, ${columns.join(', ')})`)
  db.prepare('INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (?, ?, ?, 4326)').run(
    table.name,
    dataType,
    table.name,
  )
  if (dataType === 'features') {
    db.prepare('INSERT INTO gpkg_geometry_columns VALUES (?, ?, ?, 4326, 0, 0)').run(
      table.name,
      geometryColumn,
      'GEOMETRY',
    )
  }
  for (const row of table.rows) {
    const names = Object.keys(row)
    const sql = `INSERT INTO "${table.name}" (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`
    db.prepare(sql).run(...names.map((n) => row[n]))
  }
}
