// decoder for geopackage geometry blobs: the "GP" header (OGC 12-128r18, 2.1.3) then standard
// wkb. z and m ordinates, as iso codes (1000/2000/3000) or ewkb high-bit flags, are dropped.
import { checkedPosition, GeometryProblem, nullIfEmpty, type GeometryResult } from './source-geometry.js'
import type { SourceGeometry, SourcePosition } from './source-row.js'

/** Envelope size in bytes by the header's envelope contents indicator (flags bits 1-3). */
const ENVELOPE_BYTES: readonly number[] = [0, 32, 48, 48, 64]
const WKB_TYPES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon'] as const
const FLAG_EXTENDED = 0x20
const FLAG_EMPTY = 0x10

/**
 * Decodes a GeoPackage geometry blob (or a bare WKB blob, which some writers store) into a
 * two-dimensional geometry. The empty flag, an empty point (NaN coordinates) and a geometry
 * without positions give null; anything unreadable gives a reason.
 */
export function decodeGpkgGeometry(blob: Uint8Array): GeometryResult {
  try {
    return { ok: true, geometry: decodeBlob(blob) }
  } catch (error) {
    if (error instanceof GeometryProblem) return { ok: false, reason: error.message }
    throw error
  }
}

function decodeBlob(blob: Uint8Array): SourceGeometry | null {
  // a byte-order byte first means bare wkb without the gpkg header
  if (blob[0] === 0 || blob[0] === 1) return readTopGeometry(new WkbReader(blob, 0))
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50) {
    throw new GeometryProblem('invalid GeoPackage geometry: no GP header')
  }
  const flags = blob[3]
  if (flags & FLAG_EXTENDED) throw new GeometryProblem('unsupported GeoPackage geometry: extended geometry type')
  if (flags & FLAG_EMPTY) return null
  const envelope = ENVELOPE_BYTES[(flags >> 1) & 7]
  if (envelope === undefined) throw new GeometryProblem('invalid GeoPackage geometry: bad envelope indicator')
  return readTopGeometry(new WkbReader(blob, 8 + envelope))
}

function readTopGeometry(reader: WkbReader): SourceGeometry | null {
  const geometry = readGeometry(reader, readHeader(reader))
  return geometry === null ? null : nullIfEmpty(geometry)
}

/** Bounds-checked little/big-endian reads over a blob. */
class WkbReader {
  private readonly view: DataView
  littleEndian = true

  constructor(
    bytes: Uint8Array,
    public offset: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  need(bytes: number): void {
    if (this.offset + bytes > this.view.byteLength) throw new GeometryProblem('invalid WKB: truncated')
  }

  byte(): number {
    this.need(1)
    return this.view.getUint8(this.offset++)
  }

  uint32(): number {
    this.need(4)
    const value = this.view.getUint32(this.offset, this.littleEndian)
    this.offset += 4
    return value
  }

  float64(): number {
    this.need(8)
    const value = this.view.getFloat64(this.offset, this.littleEndian)
    this.offset += 8
    return value
  }

  /** Reads an item count, checking first that the blob can hold that many items. */
  count(minItemBytes: number): number {
    const n = this.uint32()
    this.need(n * minItemBytes)
    return n
  }
}

interface WkbHeader {
  type: number
  dims: number
}

function readHeader(reader: WkbReader): WkbHeader {
  const order = reader.byte()
  if (order > 1) throw new GeometryProblem(`invalid WKB: bad byte order ${order}`)
  reader.littleEndian = order === 1
  const raw = reader.uint32()
  let hasZ = (raw & 0x80000000) !== 0
  let hasM = (raw & 0x40000000) !== 0
  if (raw & 0x20000000) reader.offset += 4 // ewkb srid, not needed
  let type = raw & 0x0fffffff
  if (type >= 3000) [hasZ, hasM, type] = [true, true, type - 3000]
  else if (type >= 2000) [hasM, type] = [true, type - 2000]
  else if (type >= 1000) [hasZ, type] = [true, type - 1000]
  return { type, dims: 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0) }
}

function readGeometry(reader: WkbReader, header: WkbHeader): SourceGeometry | null {
  const { type, dims } = header
  switch (type) {
    case 1:
      return readPoint(reader, dims)
    case 2:
      return { type: 'LineString', coordinates: readPositions(reader, dims) }
    case 3:
      return { type: 'Polygon', coordinates: readRings(reader, dims) }
    case 4:
      return { type: 'MultiPoint', coordinates: readParts(reader, 1, readPosition) }
    case 5:
      return { type: 'MultiLineString', coordinates: readParts(reader, 2, readPositions) }
    case 6:
      return { type: 'MultiPolygon', coordinates: readParts(reader, 3, readRings) }
    case 7:
      throw new GeometryProblem('unsupported geometry type GeometryCollection')
    default:
      throw new GeometryProblem(`unsupported geometry type code ${type}`)
  }
}

function readPoint(reader: WkbReader, dims: number): SourceGeometry | null {
  const position = readPosition(reader, dims)
  return position === null ? null : { type: 'Point', coordinates: position }
}

// an empty point is written with NaN coordinates; null lets callers drop it
function readPosition(reader: WkbReader, dims: number): SourcePosition | null {
  const x = reader.float64()
  const y = reader.float64()
  reader.need((dims - 2) * 8)
  reader.offset += (dims - 2) * 8
  if (Number.isNaN(x) && Number.isNaN(y)) return null
  return checkedPosition(x, y)
}

function readPositions(reader: WkbReader, dims: number): SourcePosition[] {
  const n = reader.count(dims * 8)
  const out = new Array<SourcePosition>(n)
  for (let i = 0; i < n; i++) {
    const position = readPosition(reader, dims)
    if (position === null) throw new GeometryProblem('invalid WKB: NaN coordinate in a line or ring')
    out[i] = position
  }
  return out
}

function readRings(reader: WkbReader, dims: number): SourcePosition[][] {
  const n = reader.count(4)
  const rings = new Array<SourcePosition[]>(n)
  for (let i = 0; i < n; i++) rings[i] = readPositions(reader, dims)
  return rings
}

/** Reads the parts of a Multi* geometry: each has its own byte order and type header. */
function readParts<T>(
  reader: WkbReader,
  partType: number,
  readPart: (reader: WkbReader, dims: number) => T | null,
): T[] {
  const n = reader.count(5)
  const parts: T[] = []
  for (let i = 0; i < n; i++) {
    const header = readHeader(reader)
    if (header.type !== partType) {
      throw new GeometryProblem(`invalid WKB: a ${WKB_TYPES[partType + 3]} holds a ${typeName(header.type)}`)
    }
    const part = readPart(reader, header.dims)
    if (part !== null) parts.push(part)
  }
  return parts
}

function typeName(type: number): string {
  return WKB_TYPES[type] || (type === 7 ? 'GeometryCollection' : `type code ${type}`)
}
