import { rmSync } from 'node:fs'
import Database from 'better-sqlite3'

/** A scratch database tuned for one bulk load: no journal, no fsync. */
export function openScratchDb(path: string): Database.Database {
  rmSync(path, { force: true })
  const db = new Database(path)
  db.pragma('journal_mode = OFF')
  db.pragma('synchronous = OFF')
  db.pragma('temp_store = MEMORY')
  db.pragma('cache_size = -262144')
  db.pragma('page_size = 4096')
  return db
}

/**
 * Indexes are created after the bulk insert, statistics gathered, then `VACUUM INTO` writes a
 * compact, defragmented copy whose bytes depend only on the content, never on timing.
 */
export function finishDb(db: Database.Database, scratchPath: string, finalPath: string): void {
  db.exec('ANALYZE')
  rmSync(finalPath, { force: true })
  db.prepare('VACUUM INTO ?').run(finalPath)
  db.close()
  rmSync(scratchPath, { force: true })
}
