/**
 * One object's download into a partial file, resumed from what the partial file already holds
 * and retried with exponential back-off on transient failures (source.ts), then checked: its
 * bytes, uncompressed, must have the published SHA-256 and size before it takes its place.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { createGunzip, createZstdDecompress } from 'node:zlib'
import type { ObjectRef } from './layout.js'
import { type Source, TransientError } from './source.js'

export interface RetryPolicy {
  /** attempts after the first, counted since the last one that made progress */
  retries: number
  /** the first wait; each next one doubles, up to maxMs */
  baseMs: number
  maxMs: number
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 6, baseMs: 500, maxMs: 30_000 }

/** The wait before retry number `n` (1, 2, …): baseMs, doubled each time, at most maxMs. */
export const backoffMs = (n: number, p: RetryPolicy): number => Math.min(p.maxMs, p.baseMs * 2 ** (n - 1))

/**
 * Where to resume a partial file of `have` bytes of an object stored in `size` bytes: at its end,
 * or from 0 when it is longer than the object (not a prefix of it).
 */
export const resumeOffset = (have: number, size: number): number => (have > size ? 0 : have)

/**
 * `task()`, tried again after a TransientError as `retry` says (a small file: no partial
 * progress to keep); the last error says how many retries were made.
 */
export async function retrying<T>(task: () => Promise<T>, retry: RetryPolicy, on: DownloadEvents = {}): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await task()
    } catch (err) {
      if (!(err instanceof TransientError)) throw err
      if (n > retry.retries) throw new TransientError(`${err.message} (gave up after ${retry.retries} retries)`)
      const wait = backoffMs(n, retry)
      on.retry?.(err, wait)
      await sleep(wait)
    }
  }
}

/** A failure that says so and is not worth retrying: the published bytes are wrong. */
export class IntegrityError extends Error {
  override name = 'IntegrityError'
}

export interface DownloadEvents {
  /** bytes received (stored bytes) */
  bytes?(n: number): void
  /** a transient failure, and the wait before the next attempt */
  retry?(err: Error, waitMs: number): void
}

const sizeOf = (p: string): number => (existsSync(p) ? statSync(p).size : 0)

/**
 * Fetches `rel` (stored in `stored` bytes) into `part`, appending to what it holds; returns the
 * offset it resumed from (0 for a fresh start).
 */
export async function fetchToPart(
  source: Source,
  rel: string,
  part: string,
  stored: number,
  retry: RetryPolicy,
  on: DownloadEvents = {},
): Promise<number> {
  const resumedAt = resumeOffset(sizeOf(part), stored)
  let failures = 0
  for (;;) {
    const before = resumeOffset(sizeOf(part), stored)
    if (before === stored) return resumedAt
    try {
      const { start, body } = await source.open(rel, before)
      await appendBody(body, part, start, stored, rel, on)
      const got = sizeOf(part)
      if (got < stored) throw new TransientError(`${rel}: the connection closed at ${got} of ${stored} bytes`)
      return resumedAt
    } catch (err) {
      if (!(err instanceof TransientError)) throw err
      // progress since the last failure starts the count again: a link that drops now and then still finishes
      failures = sizeOf(part) > before ? 1 : failures + 1
      if (failures > retry.retries) throw new TransientError(`${err.message} (gave up after ${retry.retries} retries)`)
      const wait = backoffMs(failures, retry)
      on.retry?.(err, wait)
      await sleep(wait)
    }
  }
}

/**
 * Writes `body` into `part` from `start` (0: the file is started again), each chunk on disk
 * before the next is read, so what arrived before a dropped connection is kept for the resume.
 * More bytes than the object's stored size is the published size being wrong.
 */
async function appendBody(
  body: AsyncIterable<Uint8Array>,
  part: string,
  start: number,
  stored: number,
  rel: string,
  on: DownloadEvents,
): Promise<void> {
  const fh = await open(part, start === 0 ? 'w' : 'a')
  try {
    let seen = start
    for await (const chunk of body) {
      seen += chunk.length
      if (seen > stored)
        throw new IntegrityError(`${rel}: the server sent more bytes than were published (a replaced object)`)
      await fh.write(chunk)
      on.bytes?.(chunk.length)
    }
  } finally {
    await fh.close()
  }
}

/**
 * Checks a complete partial file against `ref` and moves its uncompressed bytes to `dest`; a
 * mismatch removes the partial file (a later pull fetches it again) and throws IntegrityError.
 */
export async function placeVerified(part: string, ref: ObjectRef, dest: string, label: string): Promise<void> {
  const h = createHash('sha256')
  let size = 0
  const tmp = `${dest}.verify`
  try {
    if (ref.compression === 'none') {
      for await (const chunk of createReadStream(part, { highWaterMark: 1 << 20 })) {
        h.update(chunk as Buffer)
        size += (chunk as Buffer).length
      }
    } else {
      const unzip = ref.compression === 'gzip' ? createGunzip() : createZstdDecompress()
      const count = new Transform({
        transform(chunk: Buffer, _enc, done) {
          h.update(chunk)
          size += chunk.length
          if (size > ref.size)
            return done(new IntegrityError(`${label}: uncompresses to more than its ${ref.size} bytes`))
          done(null, chunk)
        },
      })
      await pipeline(createReadStream(part), unzip, count, createWriteStream(tmp)).catch((err: Error) => {
        throw err instanceof IntegrityError ? err : new IntegrityError(`${label}: does not uncompress (${err.message})`)
      })
    }
    const sha = h.digest('hex')
    if (size !== ref.size || sha !== ref.sha256) {
      rmSync(part, { force: true })
      throw new IntegrityError(
        size !== ref.size
          ? `${label}: ${size} bytes, published as ${ref.size} (a truncated or replaced object): nothing installed`
          : `${label}: sha256 differs from the published digest (the object is damaged): nothing installed`,
      )
    }
    if (ref.compression === 'none') renameSync(part, dest)
    else {
      renameSync(tmp, dest)
      rmSync(part, { force: true })
    }
  } catch (err) {
    if (err instanceof IntegrityError) rmSync(part, { force: true })
    throw err
  } finally {
    rmSync(tmp, { force: true })
  }
}
