/**
 * Where `dataset pull` reads a published target from: an `http(s)://` URL (node's global
 * `fetch`, undici) or a directory. Both answer a file from a byte offset, so an interrupted
 * download resumes (HTTP `Range`), and sort failures into three kinds: not found (never
 * retried), transient (a network error, a 5xx, a connection cut short: retried with back-off)
 * and the rest (refused at once).
 *
 * @module
 */
import { createReadStream, existsSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'

/** The file is not there (HTTP 404 or 410, or no such file): the build is not published as asked. */
export class NotFoundError extends Error {
  override name = 'NotFoundError'
}

/** Worth trying again: a network error, a 5xx, 408 or 429, a body cut short. */
export class TransientError extends Error {
  override name = 'TransientError'
}

/** A file's bytes from `start` on (0 when the server ignored the offset asked for). */
export interface Opened {
  start: number
  body: AsyncIterable<Uint8Array>
}

export interface Source {
  /** the URL or directory, for messages */
  readonly where: string
  /** A small file (`latest.json`, a build description) whole, as text. */
  text(rel: string): Promise<string>
  /** `rel` from byte `offset` on. */
  open(rel: string, offset: number): Promise<Opened>
}

/**
 * Where an answer to `Range: bytes=<offset>-` starts: `offset` for a 206 whose `Content-Range`
 * starts there, 0 for a 200 (the whole file: the server ignores ranges), 'restart' for anything
 * else (a 416, or a range that is not the one asked for: the partial file is not to be trusted).
 */
export function rangeStart(offset: number, status: number, contentRange: string | null): number | 'restart' {
  if (status === 200) return 0
  if (status !== 206) return 'restart'
  const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(contentRange ?? '')
  return m && Number(m[1]) === offset ? offset : 'restart'
}

/** The kind of failure an HTTP status is (for a status that is not 200 or 206). */
export function statusError(url: string, status: number, statusText: string): Error {
  const line = `${url}: HTTP ${status}${statusText ? ` ${statusText}` : ''}`
  if (status === 404 || status === 410) return new NotFoundError(line)
  if (status >= 500 || status === 408 || status === 429) return new TransientError(line)
  if (status === 401 || status === 403)
    return new Error(
      `${line} (a private target: give --header 'Authorization: …', or a URL whose query string carries a token)`,
    )
  return new Error(line)
}

/** Body chunks, a failure while reading them turned into a TransientError (the connection dropped). */
async function* transientBody(url: string, body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  try {
    yield* body
  } catch (err) {
    throw new TransientError(`${url}: the connection dropped (${describeCause(err)})`)
  }
}

function describeCause(err: unknown): string {
  const e = err as Error & { cause?: Error & { code?: string } }
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err)
}

/**
 * The URL of `rel` under `base`. A query string on `base` (a token that covers the whole prefix:
 * an Azure SAS, a Backblaze B2 authorization) is carried over to every file's URL.
 */
export function fileUrl(base: string, rel: string): string {
  const b = new URL(base)
  if (!b.pathname.endsWith('/')) b.pathname += '/'
  const u = new URL(rel, b)
  u.search = b.search
  return u.toString()
}

/** A target served over HTTP(S) at `base`, every request carrying `headers`. */
export function httpSource(base: string, headers: Record<string, string> = {}, timeoutMs = 30_000): Source {
  const get = async (rel: string, offset: number): Promise<Response> => {
    const url = fileUrl(base, rel)
    let res: Response
    try {
      res = await fetch(url, {
        headers: { ...headers, ...(offset > 0 ? { Range: `bytes=${offset}-` } : {}) },
        // ends the wait for headers; a stalled body ends through the socket's own errors
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'follow',
      })
    } catch (err) {
      throw new TransientError(`${url}: ${describeCause(err)}`)
    }
    if (res.status !== 200 && res.status !== 206 && !(res.status === 416 && offset > 0)) {
      await res.body?.cancel()
      throw statusError(url, res.status, res.statusText)
    }
    return res
  }
  return {
    where: base,
    async text(rel) {
      const res = await get(rel, 0)
      try {
        return await res.text()
      } catch (err) {
        throw new TransientError(`${fileUrl(base, rel)}: the connection dropped (${describeCause(err)})`)
      }
    },
    async open(rel, offset) {
      const url = fileUrl(base, rel)
      let res = await get(rel, offset)
      let start = rangeStart(offset, res.status, res.headers.get('content-range'))
      if (start === 'restart') {
        await res.body?.cancel()
        res = await get(rel, 0)
        start = 0
      }
      if (!res.body) throw new TransientError(`${url}: no body`)
      return { start, body: transientBody(url, res.body) }
    },
  }
}

/** A target on a filesystem (a mounted bucket, a copied artifact, a local publish). */
export function dirSource(dir: string): Source {
  const path = (rel: string) => {
    const p = join(dir, rel)
    if (!existsSync(p)) throw new NotFoundError(`${p}: no such file`)
    return p
  }
  return {
    where: resolve(dir),
    text: async (rel) => readFile(path(rel), 'utf8'),
    async open(rel, offset) {
      const p = path(rel)
      const start = offset <= statSync(p).size ? offset : 0
      return { start, body: createReadStream(p, { start, highWaterMark: 1 << 20 }) }
    },
  }
}

/** The source SOURCE names: a URL when it starts with http:// or https://, else a directory. */
export function openSource(source: string, headers: Record<string, string> = {}): Source {
  if (/^https?:\/\//i.test(source)) return httpSource(source, headers)
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source))
    throw new Error(`${source}: only http://, https:// and directories are read (sync s3:// and the like to one first)`)
  if (!existsSync(source)) throw new NotFoundError(`${source}: no such directory`)
  return dirSource(source)
}

/** Parses `--header 'Name: value'`. */
export function parseHeader(line: string): Record<string, string> {
  const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):\s*(.*)$/.exec(line)
  if (!m) throw new Error(`--header '${line.replace(/:.*/, ': …')}' is not 'Name: value'`)
  return { [m[1]]: m[2] }
}
