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
 * Keeps a background hash to about half of one core: after every `slice` ms of work it asks for
 * as long a rest, so the requests on the same cores are not starved (docs/operations.md
 * "Dataset integrity").
 */
export class Pacer {
  private busySince = performance.now()

  constructor(private readonly slice = 10) {}

  /** ms to rest now (0: carry on). */
  rest(): number {
    const busy = performance.now() - this.busySince
    return busy < this.slice ? 0 : busy
  }

  /** Call after resting. */
  resume(): void {
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
