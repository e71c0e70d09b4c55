import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ApiKeyRecord } from '../auth/types.js'
import { inputFile, resultsFile } from './files.js'
import { JobRunner, type RowExecutor } from './runner.js'
import { SqliteJobStore } from './sqlite-store.js'

const KEY = { id: 'k1' } as ApiKeyRecord
const stores: SqliteJobStore[] = []

/** A store and JOBS_DIR holding one queued job of `rows` rows `{"x":"<n>"}`. */
function setup(rows: number) {
  const dir = mkdtempSync(join(tmpdir(), 'jobs-'))
  const store = new SqliteJobStore(join(dir, 'jobs.db'))
  stores.push(store)
  const lines = Array.from({ length: rows }, (_, i) => `${JSON.stringify({ x: String(i + 1) })}\n`)
  writeFileSync(inputFile(dir, 'j1'), lines.join(''))
  store.create({ id: 'j1', keyId: 'k1', key: KEY, operation: 'op', format: 'csv', columns: ['x'], rows, createdAt: 1 })
  return { dir, store }
}

/**
 * Answers 200 with `{"x":n}`, or 404 for multiples of 7; `onRow` runs before each answer;
 * `batchRows` rows at a time, the size of each batch kept in `batches`.
 */
function executor(onRow: (n: number) => void = () => {}, batchRows?: number): RowExecutor & { batches: number[] } {
  const batches: number[] = []
  return {
    build: 'b1',
    batchRows,
    batches,
    answer: async (rows) => {
      batches.push(rows.length)
      return rows.map((row) => {
        const n = Number(row.x)
        onRow(n)
        return n % 7 === 0 ? { status: 404, body: '{"error":"NotFound"}' } : { status: 200, body: `{"x":${n}}` }
      })
    },
    close: () => {},
  }
}

const rowsOf = (dir: string) =>
  readFileSync(resultsFile(dir, 'j1'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { row: number; input: { x: string }; status: number; result?: { x: number } })

afterEach(() => {
  for (const s of stores.splice(0)) s.close()
})

describe('JobRunner', () => {
  it('answers every row in order, a failed row with its error, and finishes done', async () => {
    const { dir, store } = setup(50)
    const runner = new JobRunner({ store, dir, open: () => executor(), paced: false, checkpointRows: 8 })
    await runner.wake()
    await runner.idle()
    const job = store.get('j1')!
    expect([job.status, job.rowsDone, job.rowsFailed, job.build]).toEqual(['done', 50, 7, 'b1'])
    const rows = rowsOf(dir)
    expect(rows.map((r) => r.row)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    expect(rows[6]).toEqual({ row: 7, input: { x: '7' }, status: 404, error: { error: 'NotFound' } })
    expect(rows[0]).toEqual({ row: 1, input: { x: '1' }, status: 200, result: { x: 1 } })
    expect(job.resultsOffset).toBe(readFileSync(resultsFile(dir, 'j1')).length)
  })

  it('hands the executor its rows in batches of its size, in order, the last one short', async () => {
    const { dir, store } = setup(50)
    const exec = executor(undefined, 16)
    const runner = new JobRunner({ store, dir, open: () => exec, paced: false, checkpointRows: 5 })
    await runner.wake()
    await runner.idle()
    expect(exec.batches).toEqual([16, 16, 16, 2])
    expect(store.get('j1')).toMatchObject({ status: 'done', rowsDone: 50, rowsFailed: 7 })
    expect(rowsOf(dir).map((r) => r.row)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    expect(rowsOf(dir).map((r) => r.result?.x ?? null)).toEqual(
      Array.from({ length: 50 }, (_, i) => ((i + 1) % 7 === 0 ? null : i + 1)),
    )
  })

  it('fails a job whose executor fails a batch (a thread that died), keeping the rows checkpointed', async () => {
    const { dir, store } = setup(50)
    const exec = executor(undefined, 10)
    const answer = exec.answer
    exec.answer = (rows) =>
      rows[0]!.x === '31' ? Promise.reject(new Error('the jobs thread stopped (exit code 1)')) : answer(rows)
    const runner = new JobRunner({ store, dir, open: () => exec, paced: false, checkpointRows: 10 })
    await runner.wake()
    await runner.idle()
    expect(store.get('j1')).toMatchObject({
      status: 'failed',
      rowsDone: 30,
      error: 'the jobs thread stopped (exit code 1)',
    })
    expect(rowsOf(dir).map((r) => r.row)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
  })

  it('resumes a job stopped between checkpoints: results cut back, no row lost or repeated', async () => {
    const { dir, store } = setup(100)
    let first: JobRunner | null = null
    let stopped: Promise<void> | null = null
    // stops the first runner at row 43: rows 41-43 were read after the checkpoint at 40
    first = new JobRunner({
      store,
      dir,
      paced: false,
      checkpointRows: 10,
      checkpointMs: 1e9,
      open: () => executor((n) => n === 43 && (stopped = first!.stop())),
    })
    await first.wake()
    await first.idle()
    await stopped
    const left = store.get('j1')!
    expect([left.status, left.rowsDone]).toEqual(['running', 40])
    // what a process that died mid-write leaves past the checkpoint
    appendFileSync(resultsFile(dir, 'j1'), '{"row":41,"inp')
    const seen: number[] = []
    const second = new JobRunner({
      store,
      dir,
      paced: false,
      checkpointRows: 10,
      open: () => executor((n) => seen.push(n)),
    })
    await second.wake()
    await second.idle()
    expect(seen[0]).toBe(41)
    expect(store.get('j1')!.status).toBe('done')
    expect(rowsOf(dir).map((r) => r.row)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
    expect(rowsOf(dir).map((r) => r.input.x)).toEqual(Array.from({ length: 100 }, (_, i) => String(i + 1)))
  })

  it('stops a job cancelled while it runs at its next checkpoint', async () => {
    const { dir, store } = setup(100)
    const runner = new JobRunner({
      store,
      dir,
      paced: false,
      checkpointRows: 5,
      open: () => executor((n) => n === 12 && store.cancel('j1', 2, 3)),
    })
    await runner.wake()
    await runner.idle()
    const job = store.get('j1')!
    expect(job.status).toBe('cancelled')
    expect(job.rowsDone).toBe(10)
  })

  it('fails a job its executor cannot open, saying why', async () => {
    const { dir, store } = setup(3)
    const runner = new JobRunner({ store, dir, open: () => 'the build b0 is no longer served' })
    await runner.wake()
    await runner.idle()
    expect(store.get('j1')).toMatchObject({ status: 'failed', error: 'the build b0 is no longer served' })
  })

  it('sweeps finished jobs past their expiry: files deleted, status expired', async () => {
    const { dir, store } = setup(3)
    let now = 1000
    const runner = new JobRunner({ store, dir, open: () => executor(), clock: () => now, retentionMs: 500 })
    await runner.wake()
    await runner.idle()
    expect(store.get('j1')!.expiresAt).toBe(1500)
    now = 1400
    expect(await runner.sweep()).toBe(0)
    now = 1501
    expect(await runner.sweep()).toBe(1)
    expect(store.get('j1')!.status).toBe('expired')
    expect(existsSync(resultsFile(dir, 'j1'))).toBe(false)
    expect(existsSync(inputFile(dir, 'j1'))).toBe(false)
  })

  it('runs nothing while another live process holds the lease', async () => {
    const { dir, store } = setup(3)
    store.lease(`other:${process.pid}:x`, Date.now(), 60_000, () => true)
    const runner = new JobRunner({ store, dir, open: () => executor() })
    await runner.wake()
    await runner.idle()
    expect(store.get('j1')!.status).toBe('queued')
  })

  it('a store that fails (Redis away) fails the look for work, logged once, never the process', async () => {
    const { dir, store } = setup(3)
    const lease = store.lease.bind(store)
    let away = true
    store.lease = (...a) => {
      if (away) throw new Error('redis: connection closed')
      return lease(...a)
    }
    const errors: object[] = []
    const log = { info: () => {}, error: (o: object) => errors.push(o) }
    const runner = new JobRunner({ store, dir, open: () => executor(), paced: false, log })
    await expect(runner.wake()).resolves.toBeUndefined()
    await expect(runner.wake()).resolves.toBeUndefined()
    expect(errors).toEqual([{ err: 'redis: connection closed' }])
    away = false
    await runner.wake()
    await runner.idle()
    expect(store.get('j1')!.status).toBe('done')
  })
})
