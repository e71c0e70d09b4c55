/**
 * VERIFY_ON_START against the real server process (dist/server.js): a copy of the test dataset
 * with 64 KiB of garbage written into one file without changing its size (the size and header
 * checks pass) is refused at start, or served and then given up, as each mode says
 * (docs/operations.md "Dataset integrity").
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { closeSync, cpSync, mkdtempSync, openSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { SqliteKeyStore } from '../src/auth/key-store.js'
import { SMALL_FILE_BYTES } from '../src/data/integrity.js'
import { readManifest } from '../src/data/open-dataset.js'

const SERVER = 'dist/server.js'
// a small index (hashed by quick) and a large SQLite file (left to the background)
const SMALL_INDEX = 'parcels/parcels.flatbush'
const LARGE_FILE = 'jurisdiction/boundaries.sqlite'
const GARBAGE = 64 * 1024

/** Seeded bytes, the same on every run. */
function garbage(n: number): Buffer {
  const b = Buffer.alloc(n)
  let x = 0x9e3779b9
  for (let i = 0; i < n; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    b[i] = x & 0xff
  }
  return b
}

/** A copy of the test dataset with GARBAGE bytes written over `file` at `at` (default: its end). */
function damagedCopy(file: string, at?: number): string {
  const dir = join(mkdtempSync(join(inject('workDir'), 'integrity-')), 'ds')
  cpSync(inject('datasetDir'), dir, { recursive: true })
  const p = join(dir, file)
  const size = statSync(p).size
  expect(size).toBeGreaterThan(GARBAGE * 2)
  const fd = openSync(p, 'r+')
  writeSync(fd, garbage(GARBAGE), 0, GARBAGE, at ?? size - GARBAGE)
  closeSync(fd)
  expect(statSync(p).size).toBe(size)
  return dir
}

function env(dataset: string, mode: string): NodeJS.ProcessEnv {
  // the server refuses to start without a key store (`keys init`)
  const keysDb = join(dataset, '..', 'keys.db')
  new SqliteKeyStore(keysDb).close()
  return {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATASET_DIR: dataset,
    KEYS_DB: keysDb,
    LOG_LEVEL: 'info',
    VERIFY_ON_START: mode,
  }
}

/** A start that must fail: its exit code and stderr. */
function refusedStart(dataset: string, mode: string) {
  const r = spawnSync(process.execPath, [SERVER], { env: env(dataset, mode), encoding: 'utf8', timeout: 30_000 })
  return { status: r.status, stderr: r.stderr, stdout: r.stdout }
}

/** A start that must listen: the child, its port and its output so far. */
async function listening(dataset: string, mode: string) {
  const child = spawn(process.execPath, [SERVER], { env: env(dataset, mode), stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()))
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()))
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)))
  const port = await new Promise<number>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`the server did not listen:\n${out}`)), 30_000)
    const check = () => {
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'))
      if (line) {
        clearTimeout(timer)
        res(JSON.parse(line).port)
      }
    }
    child.stdout!.on('data', check)
    void exited.then((code) => rej(new Error(`the server exited with ${code}:\n${out}`)))
  })
  return { child, port, exited, output: () => out }
}

function stop(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
}

describe('VERIFY_ON_START', () => {
  it('the damaged files are a small index and a file too large for quick', () => {
    const manifest = readManifest(inject('datasetDir'))
    const files = new Map(manifest.files.map((f) => [f.path, f.size]))
    expect(files.get(SMALL_INDEX)).toBeLessThanOrEqual(SMALL_FILE_BYTES)
    expect(files.get(LARGE_FILE)).toBeGreaterThan(SMALL_FILE_BYTES)
  })

  it('quick refuses a damaged small index with one line naming it', () => {
    const ds = damagedCopy(SMALL_INDEX, 40_000)
    const r = refusedStart(ds, 'quick')
    expect(r.status).toBe(1)
    expect(r.stderr.trim()).toBe(
      `cannot start: ${SMALL_INDEX}: sha256 differs from the manifest (the file is damaged or not from this build)`,
    )
    expect(r.stdout).not.toContain('"listening"')
  })

  it('quick starts with a damaged large file (left to background or full); full refuses it', async () => {
    const ds = damagedCopy(LARGE_FILE)
    const s = await listening(ds, 'quick')
    try {
      const ready = await fetch(`http://127.0.0.1:${s.port}/readyz`)
      expect(ready.status).toBe(200)
      expect(((await ready.json()) as { integrity: string }).integrity).toBe('quick')
    } finally {
      stop(s.child)
    }
    const r = refusedStart(ds, 'full')
    expect(r.status).toBe(1)
    // one line, no stack trace
    expect(r.stderr.trim().split('\n')).toEqual([
      `cannot start: ${LARGE_FILE}: sha256 differs from the manifest (the file is damaged or not from this build)`,
    ])
  }, 60_000)

  it('background starts, then /readyz answers 503 naming the file and the process exits non-zero', async () => {
    const ds = damagedCopy(LARGE_FILE)
    const s = await listening(ds, 'background')
    try {
      let body: { status: string; integrity: string; reason: string } | null = null
      const deadline = Date.now() + 20_000
      while (Date.now() < deadline) {
        const res = await fetch(`http://127.0.0.1:${s.port}/readyz`)
        if (res.status === 503) {
          body = (await res.json()) as typeof body
          break
        }
        expect(res.status).toBe(200)
        await new Promise((r) => setTimeout(r, 50))
      }
      expect(body).toMatchObject({ status: 'failed', integrity: `failed ${LARGE_FILE}` })
      expect(body!.reason).toContain(`${LARGE_FILE}: sha256 differs from the manifest`)
      const code = await Promise.race([s.exited, new Promise((r) => setTimeout(() => r('still running'), 20_000))])
      expect(code).toBe(3)
      expect(s.output()).toMatch(new RegExp(`"file":"${LARGE_FILE}".*dataset integrity: ${LARGE_FILE}: sha256 differs`))
    } finally {
      stop(s.child)
    }
  }, 60_000)

  it('background on an intact dataset: /readyz says checking, then ok, and the server stays up', async () => {
    const s = await listening(inject('datasetDir'), 'background')
    try {
      let integrity = ''
      const deadline = Date.now() + 20_000
      while (Date.now() < deadline && integrity !== 'ok') {
        const res = await fetch(`http://127.0.0.1:${s.port}/readyz`)
        expect(res.status).toBe(200)
        integrity = ((await res.json()) as { integrity: string }).integrity
        expect(['checking', 'ok']).toContain(integrity)
        if (integrity !== 'ok') await new Promise((r) => setTimeout(r, 50))
      }
      expect(integrity).toBe('ok')
      // the log line may reach the pipe a moment after /readyz says ok
      const logged = Date.now() + 5_000
      while (Date.now() < logged && !s.output().includes('dataset integrity: every file matches the manifest'))
        await new Promise((r) => setTimeout(r, 50))
      expect(s.output()).toContain('dataset integrity: every file matches the manifest')
      expect(s.child.exitCode).toBe(null)
    } finally {
      stop(s.child)
    }
  }, 60_000)
})
