/**
 * Hashing dataset files against their manifest entries in fixed chunks, so memory stays flat
 * whatever the file's size: shared by the start-up checks (src/data/integrity.ts), on the main
 * thread, by their background worker thread (src/data/integrity-worker.ts), by build-index and
 * by `dataset publish`/`pull` (src/ship/).
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { closeSync, createReadStream, openSync, readSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises'
import type { ManifestFile } from './manifest.js'

/** Bytes read and hashed at a time (SHA-256 runs at ~1.6 GB/s here: ~0.6 ms a chunk). */
export const HASH_CHUNK = 2 ** 20

/** The SHA-256 of a whole file, in lowercase hex, read 1 MiB at a time. */
export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256')
  for await (const chunk of createReadStream(path, { highWaterMark: HASH_CHUNK })) h.update(chunk as Buffer)
  return h.digest('hex')
}

/** The one line that names a file whose bytes are not the manifest's. */
export function digestMismatch(path: string): string {
  return `${path}: sha256 differs from the manifest (the file is damaged or not from this build)`
}

/**
 * Keeps background work to a share of one core (about half by default): after every `slice` ms
 * of work it asks for a rest long enough that work is `share` of the time (as long a rest at
 * 0.5), so the requests on the same cores are not starved (docs/operations.md "Dataset
 * integrity", "Bulk jobs").
 */
export class Pacer {
  private busySince = performance.now()
  /** ms worked before `busySince` not rested for yet */
  private owed = 0
  private pausedAt = 0
  /** ms of rest per ms of work */
  private readonly ratio: number

  constructor(
    private readonly slice = 10,
    share = 0.5,
  ) {
    if (!(share > 0 && share <= 1)) throw new RangeError(`a pacer's share must be in (0, 1], not ${share}`)
    this.ratio = (1 - share) / share
  }

  /** ms to rest now (0: carry on). */
  rest(): number {
    const busy = this.owed + performance.now() - this.busySince
    return busy < this.slice ? 0 : busy * this.ratio
  }

  /** Call after resting. */
  resume(): void {
    this.owed = 0
    this.busySince = performance.now()
  }

  /** The work stops for a while (it waits for more): that wait counts as rest. */
  pause(): void {
    this.pausedAt = performance.now()
    this.owed += this.pausedAt - this.busySince
  }

  /** The work goes on after `pause`: what the wait did not rest for is still owed. */
  unpause(): void {
    const waited = performance.now() - this.pausedAt
    this.owed = this.ratio === 0 ? 0 : Math.max(0, this.owed - waited / this.ratio)
    this.busySince = performance.now()
  }
}

function checkLength(f: ManifestFile, read: number): string | null {
  return read === f.size ? null : `${f.path}: ${read} bytes read, the manifest says ${f.size} (the file changed)`
}

/**
 * Hashes one listed file on this thread, `buf` at a time; `pace` (if any) runs after each chunk.
 * Returns null when it matches the manifest, else the line that says why not.
 */
export function checkFileDigestSync(dir: string, f: ManifestFile, buf: Buffer, pace?: () => void): string | null {
  const h = createHash('sha256')
  let read = 0
  let fd: number
  try {
    fd = openSync(join(dir, f.path), 'r')
  } catch (err) {
    return `${f.path}: cannot read: ${(err as Error).message}`
  }
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, read)
      if (n === 0) break
      h.update(buf.subarray(0, n))
      read += n
      pace?.()
    }
  } catch (err) {
    return `${f.path}: cannot read: ${(err as Error).message}`
  } finally {
    closeSync(fd)
  }
  return checkLength(f, read) ?? (h.digest('hex') === f.sha256 ? null : digestMismatch(f.path))
}

/**
 * The same, without blocking this thread for longer than one chunk: it yields to the event loop
 * after each one and rests as `pacer` says (used where no worker thread is at hand).
 */
export async function checkFileDigest(
  dir: string,
  f: ManifestFile,
  buf: Buffer,
  pacer: Pacer,
  stopped: () => boolean,
): Promise<string | null> {
  const h = createHash('sha256')
  let read = 0
  const fh = await open(join(dir, f.path), 'r').catch((err: Error) => err)
  if (fh instanceof Error) return `${f.path}: cannot read: ${fh.message}`
  try {
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, read)
      if (bytesRead === 0) break
      h.update(buf.subarray(0, bytesRead))
      read += bytesRead
      const rest = pacer.rest()
      if (rest > 0) {
        await sleep(rest)
        pacer.resume()
      } else await yieldToLoop()
      if (stopped()) return null
    }
  } catch (err) {
    return `${f.path}: cannot read: ${(err as Error).message}`
  } finally {
    await fh.close()
  }
  return checkLength(f, read) ?? (h.digest('hex') === f.sha256 ? null : digestMismatch(f.path))
}
