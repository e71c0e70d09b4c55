import { closeSync, cpSync, mkdtempSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, inject, it, vi } from 'vitest'
import {
  describeIntegrity,
  type IntegrityLog,
  IntegrityError,
  type IntegrityState,
  SMALL_FILE_BYTES,
  smallFiles,
  verifyBeforeSwitch,
  verifyOnStart,
} from './integrity.js'
import { buildDigest } from './manifest.js'
import { DatasetError, readManifest } from './open-dataset.js'

// run from the sources, the background hashing takes its in-thread path (no bundled worker
// script); test/integrity.test.ts runs the bundled server and its worker thread

const SMALL_INDEX = 'parcels/parcels.flatbush'
const LARGE_FILE = 'jurisdiction/boundaries.sqlite'

function logger() {
  return { info: vi.fn(), warn: vi.fn(), error: vi.fn() } satisfies IntegrityLog
}

/** A copy of the test dataset, with 64 KiB of 0xA5 written over the end of `damage` if given. */
function copy(damage?: string): string {
  const dir = join(mkdtempSync(join(inject('workDir'), 'integrity-unit-')), 'ds')
  cpSync(inject('datasetDir'), dir, { recursive: true })
  if (damage) {
    const p = join(dir, damage)
    const fd = openSync(p, 'r+')
    writeSync(fd, Buffer.alloc(65536, 0xa5), 0, 65536, statSync(p).size - 65536)
    closeSync(fd)
  }
  return dir
}

async function settled(read: () => IntegrityState): Promise<IntegrityState> {
  for (let i = 0; i < 500 && read() === 'checking'; i++) await new Promise((r) => setTimeout(r, 10))
  return read()
}

describe('verifyOnStart', () => {
  it('quick hashes the files of at most SMALL_FILE_BYTES, and fails on one naming it', async () => {
    const manifest = readManifest(inject('datasetDir'))
    const small = smallFiles(manifest)
    expect(small.every((f) => f.size <= SMALL_FILE_BYTES)).toBe(true)
    expect(small.map((f) => f.path)).toContain(SMALL_INDEX)
    expect(small.map((f) => f.path)).not.toContain(LARGE_FILE)

    const log = logger()
    const ok = await verifyOnStart(inject('datasetDir'), manifest, 'quick', log)
    expect(ok.state).toBe('quick')
    expect(log.info.mock.calls[0][0]).toMatchObject({ mode: 'quick', build: manifest.build_digest })

    const dir = copy(SMALL_INDEX)
    const err = await verifyOnStart(dir, readManifest(dir), 'quick', logger()).catch((e: Error) => e)
    expect(err).toBeInstanceOf(IntegrityError)
    expect(err).toBeInstanceOf(DatasetError)
    expect((err as IntegrityError).path).toBe(SMALL_INDEX)
    expect((err as Error).message).toBe(
      `${SMALL_INDEX}: sha256 differs from the manifest (the file is damaged or not from this build)`,
    )
  })

  it('quick and off pass a damaged large file; full refuses it', async () => {
    const dir = copy(LARGE_FILE)
    const manifest = readManifest(dir)
    expect((await verifyOnStart(dir, manifest, 'quick', logger())).state).toBe('quick')
    expect((await verifyOnStart(dir, manifest, 'off', logger())).state).toBe('off')
    await expect(verifyOnStart(dir, manifest, 'full', logger())).rejects.toThrow(
      new RegExp(`^${LARGE_FILE}: sha256 differs from the manifest`),
    )
    expect((await verifyOnStart(inject('datasetDir'), manifest, 'full', logger())).state).toBe('ok')
  })

  it('background goes from checking to ok on an intact dataset', async () => {
    const log = logger()
    const m = await verifyOnStart(inject('datasetDir'), readManifest(inject('datasetDir')), 'background', log)
    expect(m.state).toBe('checking')
    expect(await settled(() => m.state)).toBe('ok')
    expect(log.info.mock.calls.at(-1)![1]).toBe('dataset integrity: every file matches the manifest')
    expect(log.error).not.toHaveBeenCalled()
  })

  it('background reports a damaged large file to onFailure, once, and logs it', async () => {
    const dir = copy(LARGE_FILE)
    const log = logger()
    const m = await verifyOnStart(dir, readManifest(dir), 'background', log)
    const failures: unknown[] = []
    m.onFailure((f) => failures.push(f))
    const state = await settled(() => m.state)
    expect(state).toEqual({
      failed: LARGE_FILE,
      reason: `${LARGE_FILE}: sha256 differs from the manifest (the file is damaged or not from this build)`,
    })
    expect(describeIntegrity(state)).toBe(`failed ${LARGE_FILE}`)
    expect(failures).toEqual([state])
    expect(log.error).toHaveBeenCalledTimes(1)
    expect(log.error.mock.calls[0][0]).toEqual({ file: LARGE_FILE })
    // a callback registered later hears of it at once
    const late = vi.fn()
    m.onFailure(late)
    expect(late).toHaveBeenCalledWith(state)
    // the callback replaced the default exit
    expect(process.exitCode).not.toBe(3)
  })

  it('stop() abandons the background hashing', async () => {
    const dir = copy(LARGE_FILE)
    const m = await verifyOnStart(dir, readManifest(dir), 'background', logger())
    m.onFailure(() => {})
    m.stop()
    await new Promise((r) => setTimeout(r, 300))
    expect(m.state).toBe('checking')
  })

  it('switchedTo: describes the build switched to as ok, and the start-up one no more', async () => {
    const dir = copy(LARGE_FILE)
    const log = logger()
    const m = await verifyOnStart(dir, readManifest(dir), 'background', log)
    expect(m.stateOf(dir)).toBe('checking')
    m.switchedTo(inject('datasetDir'))
    expect(m.dir).toBe(inject('datasetDir'))
    expect(m.stateOf(inject('datasetDir'))).toBe('ok')
    expect(m.stateOf(dir)).toBe('off')
    // the damaged start-up build's check stopped: no failure reported, the state stays ok
    await new Promise((r) => setTimeout(r, 500))
    expect(m.state).toBe('ok')
    expect(log.error).not.toHaveBeenCalled()
  })

  it('says so when the manifest has no build_digest (a dataset built before it) and still checks', async () => {
    const dir = copy()
    const file = join(dir, 'manifest.json')
    const raw = JSON.parse(readFileSync(file, 'utf8'))
    delete raw.build_digest
    writeFileSync(file, JSON.stringify(raw))
    const log = logger()
    const m = await verifyOnStart(dir, readManifest(dir), 'full', log)
    expect(m.state).toBe('ok')
    expect(log.warn).toHaveBeenCalledTimes(1)
    expect(log.warn.mock.calls[0][1]).toMatch(/no build_digest/)
    expect(log.info.mock.calls[0][0]).toMatchObject({ build: null })
  })
})

describe('the manifest digest', () => {
  it('is written by build-index and checked against the file list when the manifest is read', () => {
    const manifest = readManifest(inject('datasetDir'))
    expect(manifest.build_digest).toBe(buildDigest(manifest.files))
    const dir = copy()
    const file = join(dir, 'manifest.json')
    const raw = JSON.parse(readFileSync(file, 'utf8'))
    raw.files[0].sha256 = '0'.repeat(64)
    writeFileSync(file, JSON.stringify(raw))
    expect(() => readManifest(dir)).toThrow(/build_digest does not match the files it lists/)
  })
})

describe('verifyBeforeSwitch', () => {
  it('gives the manifest of an intact dataset and refuses a damaged one, naming the file', async () => {
    expect((await verifyBeforeSwitch(inject('datasetDir'))).build_digest).toMatch(/^[0-9a-f]{64}$/)
    await expect(verifyBeforeSwitch(copy(SMALL_INDEX))).rejects.toThrow(
      new RegExp(`^${SMALL_INDEX}: sha256 differs from the manifest`),
    )
  })
})
