// test-only shapefile writer following the ESRI Shapefile Technical Description (1998) and the
// dBASE III table layout: .shp and .shx with a 100-byte header whose file code and length are
// big-endian while everything else is little-endian, and a .dbf.
import { writeFileSync } from 'node:fs'

/** A shape record: a point, a polygon given as rings of `[x, y]`, or a null shape. */
export type TestShape = { type: 'Point'; x: number; y: number } | { type: 'Polygon'; rings: number[][][] } | null

/** A dBASE field; C is left-aligned text, N right-aligned numbers, D `YYYYMMDD`. */
export interface TestField {
  name: string
  type: 'C' | 'N' | 'D'
  length: number
  decimals?: number
}

export interface ShapefileOptions {
  /** how .dbf text is encoded: utf-8, or latin1 (the windows-1252 bytes of Latin-1 text) */
  encoding?: 'utf-8' | 'latin1'
  /** content of a .cpg file to write beside it */
  cpg?: string
  /** extension case, e.g. 'SHP' for ERF.SHP, ERF.SHX, ERF.DBF */
  upperCase?: boolean
}

const SHAPE_TYPES = { Point: 1, Polygon: 5 } as const

/**
 * Writes `<base>.shp`, `.shx` and `.dbf` (and `.cpg` when asked). `rows[i]` holds the field
 * values of `shapes[i]`; null is written as blanks.
 */
export function writeShapefile(
  base: string,
  shapeType: 'Point' | 'Polygon',
  shapes: TestShape[],
  fields: TestField[],
  rows: (string | number | null)[][],
  opts: ShapefileOptions = {},
): void {
  const ext = (e: string) => `${base}.${opts.upperCase ? e.toUpperCase() : e}`
  const contents = shapes.map(shapeContent)
  const bbox = boundingBox(shapes)
  const shpRecords = contents.map((content, i) => Buffer.concat([recordHeader(i + 1, content.length), content]))
  const shpLength = 100 + shpRecords.reduce((sum, r) => sum + r.length, 0)
  writeFileSync(ext('shp'), Buffer.concat([fileHeader(SHAPE_TYPES[shapeType], shpLength, bbox), ...shpRecords]))
  let offset = 100
  const index = contents.map((content) => {
    const entry = recordHeader(offset / 2, content.length)
    offset += 8 + content.length
    return entry
  })
  writeFileSync(
    ext('shx'),
    Buffer.concat([fileHeader(SHAPE_TYPES[shapeType], 100 + 8 * shapes.length, bbox), ...index]),
  )
  writeFileSync(ext('dbf'), dbfBytes(fields, rows, opts.encoding ?? 'utf-8'))
  if (opts.cpg !== undefined) writeFileSync(ext('cpg'), opts.cpg)
}

function fileHeader(shapeType: number, byteLength: number, bbox: number[]): Buffer {
  const b = Buffer.alloc(100)
  b.writeInt32BE(9994, 0)
  b.writeInt32BE(byteLength / 2, 24) // in 16-bit words
  b.writeInt32LE(1000, 28)
  b.writeInt32LE(shapeType, 32)
  bbox.forEach((v, i) => {
    b.writeDoubleLE(v, 36 + 8 * i)
  })
  return b
}

// record number and content length (16-bit words), both big-endian
function recordHeader(numberOrOffset: number, contentBytes: number): Buffer {
  const b = Buffer.alloc(8)
  b.writeInt32BE(numberOrOffset, 0)
  b.writeInt32BE(contentBytes / 2, 4)
  return b
}

function shapeContent(shape: TestShape): Buffer {
  if (shape === null) {
    const b = Buffer.alloc(4)
    b.writeInt32LE(0, 0)
    return b
  }
  if (shape.type === 'Point') {
    const b = Buffer.alloc(20)
    b.writeInt32LE(1, 0)
    b.writeDoubleLE(shape.x, 4)
    b.writeDoubleLE(shape.y, 12)
    return b
  }
  const points = shape.rings.flat()
  const b = Buffer.alloc(44 + 4 * shape.rings.length + 16 * points.length)
  b.writeInt32LE(5, 0)
  boundingBox([shape]).forEach((v, i) => {
    b.writeDoubleLE(v, 4 + 8 * i)
  })
  b.writeInt32LE(shape.rings.length, 36)
  b.writeInt32LE(points.length, 40)
  let start = 0
  shape.rings.forEach((ring, i) => {
    b.writeInt32LE(start, 44 + 4 * i)
    start += ring.length
  })
  const at = 44 + 4 * shape.rings.length
  points.forEach(([x, y], i) => {
    b.writeDoubleLE(x, at + 16 * i)
    b.writeDoubleLE(y, at + 16 * i + 8)
  })
  return b
}

function boundingBox(shapes: TestShape[]): number[] {
  const points = shapes.flatMap((s) => (s === null ? [] : s.type === 'Point' ? [[s.x, s.y]] : s.rings.flat()))
  if (points.length === 0) return [0, 0, 0, 0]
  const xs = points.map((p) => p[0])
  const ys = points.map((p) => p[1])
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]
}

function dbfBytes(fields: TestField[], rows: (string | number | null)[][], encoding: 'utf-8' | 'latin1'): Buffer {
  const headerLength = 32 + 32 * fields.length + 1
  const recordLength = 1 + fields.reduce((sum, f) => sum + f.length, 0)
  const header = Buffer.alloc(headerLength)
  header.writeUInt8(0x03, 0)
  header.writeUInt8(126, 1) // 2026
  header.writeUInt8(1, 2)
  header.writeUInt8(1, 3)
  header.writeUInt32LE(rows.length, 4)
  header.writeUInt16LE(headerLength, 8)
  header.writeUInt16LE(recordLength, 10)
  fields.forEach((f, i) => {
    const at = 32 + 32 * i
    header.write(f.name, at, 11, 'latin1')
    header.write(f.type, at + 11, 1, 'latin1')
    header.writeUInt8(f.length, at + 16)
    header.writeUInt8(f.decimals ?? 0, at + 17)
  })
  header.writeUInt8(0x0d, headerLength - 1)
  const records = rows.map((row) => {
    const record = Buffer.alloc(recordLength, 0x20) // ' ' = not deleted, fields space-padded
    let at = 1
    fields.forEach((f, i) => {
      const bytes = Buffer.from(cellText(f, row[i]), encoding)
      if (bytes.length > f.length) throw new Error(`value too long for ${f.name}`)
      bytes.copy(record, f.type === 'N' ? at + f.length - bytes.length : at)
      at += f.length
    })
    return record
  })
  return Buffer.concat([header, ...records, Buffer.from([0x1a])])
}

function cellText(field: TestField, value: string | number | null): string {
  if (value === null) return ''
  if (typeof value === 'number') return value.toFixed(field.decimals ?? 0)
  return value
}
