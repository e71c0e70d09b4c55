/**
 * The one-VM store opened on first use: JOBS_DIR and its `jobs.db` are made by the first upload
 * (or by `npm start` on the sample), not by every start, so a server that never runs a job writes
 * nothing (docs/operations.md "Bulk jobs"). Until then reads answer as an empty store does and
 * the runner finds no lease to take.
 *
 * @module
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { SqliteJobStore } from './sqlite-store.js'
import type { Checkpoint, JobStore, NewJob } from './types.js'

export class LazyJobStore implements JobStore {
  private store: SqliteJobStore | null = null
  private readonly file: string

  constructor(private readonly dir: string) {
    this.file = join(dir, 'jobs.db')
  }

  /** The store, made now when `create` (else only when its file exists already). */
  private open(create = false): SqliteJobStore | null {
    if (this.store === null && (create || existsSync(this.file))) {
      mkdirSync(this.dir, { recursive: true })
      this.store = new SqliteJobStore(this.file)
    }
    return this.store
  }

  create(job: NewJob) {
    return this.open(true)!.create(job)
  }
  get(id: string) {
    return this.open()?.get(id) ?? null
  }
  list(keyId: string) {
    return this.open()?.list(keyId) ?? []
  }
  unfinished(keyId: string) {
    return this.open()?.unfinished(keyId) ?? 0
  }
  count(keyId: string, day: string, rows: number, limit: number) {
    return this.open(true)!.count(keyId, day, rows, limit)
  }
  next(exclude: readonly string[]) {
    return this.open()?.next(exclude) ?? null
  }
  start(id: string, build: string, now: number) {
    return this.open()?.start(id, build, now) ?? false
  }
  checkpoint(id: string, at: Checkpoint, now: number) {
    return this.open()?.checkpoint(id, at, now) ?? false
  }
  finish(id: string, status: 'done' | 'failed', at: Checkpoint, now: number, expiresAt: number, error?: string) {
    this.open()?.finish(id, status, at, now, expiresAt, error)
  }
  cancel(id: string, now: number, expiresAt: number) {
    return this.open()?.cancel(id, now, expiresAt) ?? null
  }
  remove(id: string) {
    this.open()?.remove(id)
  }
  expiring(now: number) {
    return this.open()?.expiring(now) ?? []
  }
  markExpired(id: string) {
    this.open()?.markExpired(id)
  }
  rateOf(operation: string) {
    return this.open()?.rateOf(operation) ?? null
  }
  lease(owner: string, now: number, ttlMs: number, alive: (owner: string) => boolean) {
    return this.open()?.lease(owner, now, ttlMs, alive) ?? false
  }
  releaseLease(owner: string) {
    this.open()?.releaseLease(owner)
  }
  close() {
    this.store?.close()
  }
}
