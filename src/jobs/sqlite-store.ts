/**
 * The one-VM job store: jobs, checkpoints and daily row counts in `JOBS_DIR/jobs.db` (SQLite,
 * WAL, so the cluster's worker processes share it), the rows and results as files beside it
 * (files.ts). See types.ts for what each method promises.
 *
 * @module
 */
import Database from 'better-sqlite3'
import type { ApiKeyRecord } from '../auth/types.js'
import type { Allowance, Checkpoint, Job, JobStatus, JobStore, NewJob } from './types.js'

const SCHEMA = `
CREATE TABLE IF NOT EXISTS job (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  key_record TEXT NOT NULL,
  operation TEXT NOT NULL,
  status TEXT NOT NULL,
  format TEXT NOT NULL,
  columns TEXT NOT NULL,
  rows INTEGER NOT NULL,
  rows_done INTEGER NOT NULL DEFAULT 0,
  rows_failed INTEGER NOT NULL DEFAULT 0,
  input_offset INTEGER NOT NULL DEFAULT 0,
  results_offset INTEGER NOT NULL DEFAULT 0,
  build TEXT NULL,
  created_at INTEGER NOT NULL,
  started_at INTEGER NULL,
  finished_at INTEGER NULL,
  expires_at INTEGER NULL,
  error TEXT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS job_key ON job (key_id, created_at);
CREATE INDEX IF NOT EXISTS job_status ON job (status, created_at);
CREATE TABLE IF NOT EXISTS bulk_usage (
  key_id TEXT NOT NULL,
  day TEXT NOT NULL,
  rows INTEGER NOT NULL,
  PRIMARY KEY (key_id, day)
);
CREATE TABLE IF NOT EXISTS runner_lease (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  owner TEXT NOT NULL,
  expires INTEGER NOT NULL
);
`

interface JobRow {
  id: string
  key_id: string
  key_record: string
  operation: string
  status: JobStatus
  format: 'csv' | 'ndjson'
  columns: string
  rows: number
  rows_done: number
  rows_failed: number
  input_offset: number
  results_offset: number
  build: string | null
  created_at: number
  started_at: number | null
  finished_at: number | null
  expires_at: number | null
  error: string | null
  updated_at: number
}

function jobOf(r: JobRow): Job {
  return {
    id: r.id,
    keyId: r.key_id,
    key: JSON.parse(r.key_record) as ApiKeyRecord,
    operation: r.operation,
    status: r.status,
    format: r.format,
    columns: JSON.parse(r.columns) as string[],
    rows: r.rows,
    rowsDone: r.rows_done,
    rowsFailed: r.rows_failed,
    inputOffset: r.input_offset,
    resultsOffset: r.results_offset,
    build: r.build,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    expiresAt: r.expires_at,
    error: r.error,
    updatedAt: r.updated_at,
  }
}

const AT =
  'rows_done = @rowsDone, rows_failed = @rowsFailed, input_offset = @inputOffset, results_offset = @resultsOffset'

export class SqliteJobStore implements JobStore {
  private readonly db: Database.Database
  private readonly stmt

  constructor(file: string) {
    this.db = new Database(file)
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('busy_timeout = 5000')
    this.db.exec(SCHEMA)
    const db = this.db
    this.stmt = {
      insert: db.prepare(
        `INSERT INTO job (id, key_id, key_record, operation, status, format, columns, rows, created_at, updated_at)
         VALUES (@id, @keyId, @key, @operation, 'queued', @format, @columns, @rows, @createdAt, @createdAt)`,
      ),
      get: db.prepare<[string], JobRow>('SELECT * FROM job WHERE id = ?'),
      list: db.prepare<[string], JobRow>('SELECT * FROM job WHERE key_id = ? ORDER BY created_at DESC, id'),
      unfinished: db.prepare<[string], { n: number }>(
        "SELECT count(*) AS n FROM job WHERE key_id = ? AND status IN ('queued', 'running')",
      ),
      used: db.prepare<[string, string], { rows: number }>('SELECT rows FROM bulk_usage WHERE key_id = ? AND day = ?'),
      use: db.prepare(
        `INSERT INTO bulk_usage (key_id, day, rows) VALUES (?, ?, ?)
         ON CONFLICT (key_id, day) DO UPDATE SET rows = rows + excluded.rows`,
      ),
      oldUsage: db.prepare('DELETE FROM bulk_usage WHERE day < ?'),
      next: db.prepare<[string], JobRow>(
        "SELECT * FROM job WHERE status IN ('running', 'queued') AND id NOT IN (SELECT value FROM json_each(?)) " +
          "ORDER BY status = 'queued', created_at, id LIMIT 1",
      ),
      start: db.prepare(
        "UPDATE job SET status = 'running', build = coalesce(build, @build), started_at = coalesce(started_at, @now), " +
          "updated_at = @now WHERE id = @id AND status IN ('queued', 'running')",
      ),
      checkpoint: db.prepare(`UPDATE job SET ${AT}, updated_at = @now WHERE id = @id AND status = 'running'`),
      finish: db.prepare(
        `UPDATE job SET ${AT}, status = @status, finished_at = @now, updated_at = @now, expires_at = @expiresAt,
         error = @error WHERE id = @id AND status = 'running'`,
      ),
      cancel: db.prepare(
        "UPDATE job SET status = 'cancelled', finished_at = @now, updated_at = @now, expires_at = @expiresAt, " +
          "error = 'cancelled by its owner' WHERE id = @id AND status IN ('queued', 'running')",
      ),
      remove: db.prepare('DELETE FROM job WHERE id = ?'),
      expiring: db.prepare<[number], JobRow>(
        "SELECT * FROM job WHERE status IN ('done', 'failed', 'cancelled') AND expires_at < ?",
      ),
      markExpired: db.prepare("UPDATE job SET status = 'expired' WHERE id = ?"),
      rate: db.prepare<[string], { rows: number | null; ms: number | null }>(
        "SELECT sum(rows_done) AS rows, sum(finished_at - started_at) AS ms FROM (SELECT * FROM job WHERE operation = ? AND status = 'done' ORDER BY finished_at DESC LIMIT 20)",
      ),
      lease: db.prepare<[], { owner: string; expires: number }>('SELECT owner, expires FROM runner_lease WHERE id = 1'),
      setLease: db.prepare(
        'INSERT INTO runner_lease (id, owner, expires) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, expires = excluded.expires',
      ),
      dropLease: db.prepare('DELETE FROM runner_lease WHERE id = 1 AND owner = ?'),
    }
  }

  create(job: NewJob): Job {
    this.stmt.insert.run({ ...job, key: JSON.stringify(job.key), columns: JSON.stringify(job.columns) })
    return this.get(job.id)!
  }

  get(id: string): Job | null {
    const r = this.stmt.get.get(id)
    return r ? jobOf(r) : null
  }

  list(keyId: string): Job[] {
    return this.stmt.list.all(keyId).map(jobOf)
  }

  unfinished(keyId: string): number {
    return this.stmt.unfinished.get(keyId)!.n
  }

  count(keyId: string, day: string, rows: number, limit: number): Allowance {
    return this.db
      .transaction((): Allowance => {
        const used = this.stmt.used.get(keyId, day)?.rows ?? 0
        if (used + rows > limit) return { ok: false, limit, remaining: Math.max(0, limit - used), day }
        // yesterday's counts are done with
        this.stmt.oldUsage.run(day)
        this.stmt.use.run(keyId, day, rows)
        return { ok: true, limit, remaining: limit - used - rows, day }
      })
      .immediate()
  }

  next(exclude: readonly string[]): Job | null {
    const r = this.stmt.next.get(JSON.stringify(exclude))
    return r ? jobOf(r) : null
  }

  start(id: string, build: string, now: number): boolean {
    return this.stmt.start.run({ id, build, now }).changes === 1
  }

  checkpoint(id: string, at: Checkpoint, now: number): boolean {
    return this.stmt.checkpoint.run({ id, now, ...at }).changes === 1
  }

  finish(id: string, status: 'done' | 'failed', at: Checkpoint, now: number, expiresAt: number, error?: string): void {
    this.stmt.finish.run({ id, status, now, expiresAt, error: error ?? null, ...at })
  }

  cancel(id: string, now: number, expiresAt: number): Job | null {
    this.stmt.cancel.run({ id, now, expiresAt })
    return this.get(id)
  }

  remove(id: string): void {
    this.stmt.remove.run(id)
  }

  expiring(now: number): Job[] {
    return this.stmt.expiring.all(now).map(jobOf)
  }

  markExpired(id: string): void {
    this.stmt.markExpired.run(id)
  }

  rateOf(operation: string): number | null {
    const r = this.stmt.rate.get(operation)
    return r?.rows && r.ms ? (r.rows * 1000) / Math.max(r.ms, 1) : null
  }

  lease(owner: string, now: number, ttlMs: number, alive: (owner: string) => boolean): boolean {
    return this.db
      .transaction(() => {
        const held = this.stmt.lease.get()
        if (held && held.owner !== owner && held.expires > now && alive(held.owner)) return false
        this.stmt.setLease.run(owner, now + ttlMs)
        return true
      })
      .immediate()
  }

  releaseLease(owner: string): void {
    this.stmt.dropLease.run(owner)
  }

  close(): void {
    if (this.db.open) this.db.close()
  }
}
