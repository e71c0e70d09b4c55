import { TILE_STORE_INDEX_SQL, TILE_STORE_SCHEMA_SQL, tmsRow } from '../../src/data/tile-store.js'
import type { DatasetWriter } from './dataset-writer.js'
import { finishDb, openScratchDb } from './sqlite-writer.js'

/**
 * Writes a domain's tile store (src/data/tile-store.ts): tiles added in any order, the metadata at
 * the end, then the file compacted (sqlite-writer.ts), so its bytes depend only on its content.
 */
export class TileStoreWriter {
  private readonly db
  private readonly insert
  private readonly scratch: string
  /** tiles added, and the bytes of their compressed data */
  count = 0
  bytes = 0

  constructor(
    private readonly ds: DatasetWriter,
    private readonly rel: string,
  ) {
    this.scratch = ds.pathOf(`${rel}.scratch`)
    this.db = openScratchDb(this.scratch)
    this.db.exec(TILE_STORE_SCHEMA_SQL)
    this.insert = this.db.prepare('INSERT INTO tiles VALUES (?, ?, ?, ?, ?)')
    this.db.exec('BEGIN')
  }

  /** Tile z/x/y (XYZ): its gzip-compressed bytes and the hash of the uncompressed ones. */
  add(z: number, x: number, y: number, gzip: Uint8Array, hash: Uint8Array): void {
    const buf = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength)
    this.insert.run(z, x, tmsRow(z, y), buf(gzip), buf(hash))
    this.count++
    this.bytes += gzip.byteLength
  }

  /** Writes the metadata (MBTiles 1.3 names), compacts the file into the dataset and lists it. */
  finish(metadata: Record<string, string>): void {
    const ins = this.db.prepare('INSERT INTO metadata VALUES (?, ?)')
    for (const name of Object.keys(metadata).sort()) ins.run(name, metadata[name])
    this.db.exec('COMMIT')
    this.db.exec(TILE_STORE_INDEX_SQL)
    finishDb(this.db, this.scratch, this.ds.pathOf(this.rel))
    this.ds.addFile(this.rel, 'sqlite')
  }
}
