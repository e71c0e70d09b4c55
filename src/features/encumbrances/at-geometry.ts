/**
 * The geometry `/encumbrances/at` tests a record on, read alone (point-search.ts): the strip of
 * a dimensioned line or an area's polygons, or an undimensioned line's lines, as the encoded
 * blob. The large ones are kept: a corridor servitude (a road, a pipeline, a railway buffered
 * for kilometres) or a mineral right has a box over whole townships, so nearly every point there
 * finds it among its candidates, and the prefilter's one inner box cannot settle a corridor.
 *
 * @module
 */
import { FLAG_LINE } from '../../data/encumbrance-format.js'
import type { EncumbranceStatements } from './store.js'

/** A record's geometry as `/at` measures it. */
export interface AtGeometry {
  blob: Buffer
  /** the blob holds an undimensioned line's lines, not polygons */
  line: boolean
}

/** Blobs from this size (about 60 positions) are kept; smaller records are rarely asked twice. */
export const KEEP_FROM_BYTES = 512
/** Bytes of blobs per generation: at most twice this kept per store. */
export const GENERATION_BYTES = 4 << 20

/**
 * Reads, with a two-generation cache of the large blobs (O(1); a generation that fills becomes
 * the old one, and the old one is dropped), so those asked again and again stay.
 */
export class AtGeometries {
  private young = new Map<number, AtGeometry>()
  private old = new Map<number, AtGeometry>()
  private youngBytes = 0

  constructor(
    private readonly st: EncumbranceStatements,
    private readonly flags: Uint8Array,
  ) {}

  of(id: number): AtGeometry {
    const kept = this.young.get(id)
    if (kept) return kept
    const g = this.old.get(id) ?? this.read(id)
    if (g.blob.length >= KEEP_FROM_BYTES) this.keep(id, g)
    return g
  }

  /** The geometry from SQLite (one blob; for a line, also whether it is the strip). */
  read(id: number): AtGeometry {
    if (!(this.flags[id - 1] & FLAG_LINE)) return { blob: this.st.geomOfArea.get(id) as Buffer, line: false }
    const [blob, isLine] = this.st.geomOfLine.get(id) as [Buffer, number]
    return { blob, line: isLine === 1 }
  }

  private keep(id: number, g: AtGeometry): void {
    if (this.youngBytes + g.blob.length > GENERATION_BYTES) {
      this.old = this.young
      this.young = new Map()
      this.youngBytes = 0
    }
    this.young.set(id, g)
    this.youngBytes += g.blob.length
  }
}
