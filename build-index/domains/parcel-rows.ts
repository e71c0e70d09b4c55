/**
 * The per-row work of the parcel layer pass (build-parcels.ts): a cadastre row checked and
 * normalised (transform/parcels.ts), its box, its encoded geometry and its prefilter entry. Pure
 * and chunked, so the pass can run it in the thread or on a worker thread (parcel-worker.ts)
 * while the main thread reads the next rows and inserts the finished ones; the records come back
 * in row order either way, so the built files do not depend on where they were computed.
 *
 * @module
 */
import type { ParcelType } from '../../src/data/parcels-format.js'
import { encodeGeometry } from '../../src/data/geometry-blob.js'
import { PREFILTER_STRIDE } from '../../src/data/parcels-prefilter.js'
import { describeParcel } from '../../src/data/parcels-prefilter-writer.js'
import type { ProvinceCode } from '../../src/data/provinces.js'
import { bboxOf } from '../../src/geo/polygon.js'
import { jsonFeatureToRow } from '../sources/geojson-feature.js'
import type { SourceGeometry, SourceProperties } from '../sources/read-layer.js'
import { normaliseParcel, type ParcelRecord } from '../transform/parcels.js'

/** A source row as the pass hands it on: read, its feature text still to parse, or already rejected by the reader. */
export type LayerItem =
  | { properties: SourceProperties; geometry: SourceGeometry | null }
  | { text: string }
  | { reason: string }

/** A record without its geometry (that travels encoded, in {@link PreparedChunk.geoms}). */
export type PreparedRecord = Omit<ParcelRecord, 'geometry'>

/** One chunk of rows, prepared: typed arrays for what is numeric, so a worker transfers them. */
export interface PreparedChunk {
  chunk: number
  /** per input item, in order: null when it became a record, else why it was rejected */
  reasons: (string | null)[]
  /** the records, in order */
  recs: PreparedRecord[]
  /** how many of them had their geometry repaired */
  repaired: number
  /** how many had a ring re-oriented (not a repair) */
  reoriented: number
  /**
   * per record, what normalising changed (FIX_* bits): the build counts them for the rows it
   * keeps, not for duplicates or rows a conflict rejects later
   */
  fixes: Uint8Array
  /** 4 per record: minX, minY, maxX, maxY of its geometry */
  boxes: Float64Array
  /** the records' encoded geometries, back to back */
  geoms: Uint8Array
  /** where each record's geometry ends in `geoms` */
  ends: Uint32Array
  /** PREFILTER_STRIDE bytes per record, described against its box */
  prefilter: Uint8Array
}

/** Bits of {@link PreparedChunk.fixes}. */
export const FIX_REPAIRED = 1
export const FIX_REORIENTED = 2
export const FIX_LABEL = 4

/** Checks and normalises `items` of layer `type` in `province`; see {@link PreparedChunk}. */
export function prepareParcels(items: LayerItem[], type: ParcelType, province: ProvinceCode, chunk = 0): PreparedChunk {
  const reasons: (string | null)[] = []
  const recs: PreparedRecord[] = []
  const blobs: Uint8Array[] = []
  const boxes: number[] = []
  let repaired = 0
  let reoriented = 0
  const fixes: number[] = []
  for (const item of items) {
    // rejected by the reader, or by the parse
    const read = 'text' in item ? jsonFeatureToRow(item.text, '') : item
    if ('reason' in read) {
      reasons.push(read.reason)
      continue
    }
    const r = normaliseParcel(read.properties, read.geometry, type, province)
    if (!r.ok) {
      reasons.push(r.reason)
      continue
    }
    reasons.push(null)
    if (r.repaired) repaired++
    if (r.reoriented) reoriented++
    fixes.push(
      (r.repaired ? FIX_REPAIRED : 0) | (r.reoriented ? FIX_REORIENTED : 0) | (r.labelReplaced ? FIX_LABEL : 0),
    )
    const { geometry, ...rec } = r.rec
    recs.push(rec)
    const b = bboxOf(geometry)
    boxes.push(b.minX, b.minY, b.maxX, b.maxY)
    blobs.push(encodeGeometry(geometry))
  }
  const ends = new Uint32Array(blobs.length)
  let size = 0
  blobs.forEach((g, k) => {
    ends[k] = size += g.length
  })
  const geoms = new Uint8Array(size)
  const prefilter = new Uint8Array(blobs.length * PREFILTER_STRIDE)
  blobs.forEach((g, k) => {
    geoms.set(g, k ? ends[k - 1] : 0)
    // described against the box the Flatbush index will hold (the same doubles)
    describeParcel(
      g,
      boxes[4 * k],
      boxes[4 * k + 1],
      boxes[4 * k + 2],
      boxes[4 * k + 3],
      prefilter,
      k * PREFILTER_STRIDE,
    )
  })
  return {
    chunk,
    reasons,
    recs,
    repaired,
    reoriented,
    fixes: Uint8Array.from(fixes),
    boxes: Float64Array.from(boxes),
    geoms,
    ends,
    prefilter,
  }
}

/** The buffers a worker hands over with a chunk instead of copying them. */
export function transferOf(c: PreparedChunk): ArrayBuffer[] {
  return [c.boxes.buffer, c.geoms.buffer, c.ends.buffer, c.prefilter.buffer] as ArrayBuffer[]
}
