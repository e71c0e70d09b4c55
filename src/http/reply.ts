import type { Context } from 'hono'
import { COMPRESS_MIN_BYTES, compress, negotiate } from './compress.js'
import type { AppEnv } from './env.js'
import { requestHeader } from './request-header.js'

/**
 * Every answer is built here, with the headers gathered for the request (request id, rate
 * limit, caching) kept in a plain object rather than Hono's `c.header()`.
 *
 * Why: `c.header()` keeps headers in a WHATWG `Headers` (undici validates each name and value),
 * and @hono/node-server then walks that object back into a plain one for `writeHead`: about
 * 6 µs of a small request's CPU. A plain object given to `new Response` goes to `writeHead` as
 * it is. `test/reply-only.test.ts` checks that no code answers any other way, so no answer can
 * miss the gathered headers.
 *
 * The same reason keeps `X-Content-Type-Options: nosniff` here rather than in Hono's
 * `secureHeaders` middleware: every answer passes through `reply`, and middleware would put
 * every request on Hono's chain (src/http/prefix-router.ts). Error answers add
 * `Cache-Control: no-store` (errors.ts); docs/api.md "Errors" states both.
 *
 * @module
 */

/** Sent on every answer, so no browser guesses a JSON or tile body to be HTML or script. */
const NOSNIFF = 'nosniff'

/** Sets (replaces) one response header of this request. */
export function setHeader(c: Context<AppEnv>, name: string, value: string): void {
  const h = c.get('headers')
  if (h) h[name] = value
  else c.set('headers', { [name]: value })
}

/**
 * Adds a value to a list header of this request (`Vary`), after any value already gathered; a
 * value already listed is not added twice.
 */
export function appendHeader(c: Context<AppEnv>, name: string, value: string): void {
  const prev = c.get('headers')?.[name]
  if (prev === undefined) setHeader(c, name, value)
  else if (!prev.split(',').some((v) => v.trim() === value)) setHeader(c, name, `${prev}, ${value}`)
}

/** The media types compressed on the fly when an answer is larger than COMPRESS_MIN_BYTES. */
export const COMPRESSED_TYPES: ReadonlySet<string | undefined> = new Set([
  'application/json',
  'application/geo+json',
  // vector tiles (src/http/tile-answer.ts): a parcel or plot tile shrinks to a third or less
  'application/vnd.mapbox-vector-tile',
])

/**
 * The answer: `body` with the gathered headers and, when given, its Content-Type. A body of a
 * compressed type over COMPRESS_MIN_BYTES is compressed as the request allows, unless the caller
 * already set `Content-Encoding` (the body is then sent as it is: nothing is compressed twice).
 */
export function reply(
  c: Context<AppEnv>,
  body: string | Uint8Array | null,
  status = 200,
  contentType?: string,
): Response {
  let sent = body
  let bytes = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
  if (
    body !== null &&
    bytes > COMPRESS_MIN_BYTES &&
    COMPRESSED_TYPES.has(contentType) &&
    c.get('headers')?.['Content-Encoding'] === undefined
  ) {
    const coded = encoded(c, body)
    if (coded !== null) {
      sent = coded
      bytes = coded.byteLength
    }
  }
  const gathered = c.get('headers')
  const headers: Record<string, string> = contentType
    ? { ...gathered, 'X-Content-Type-Options': NOSNIFF, 'Content-Type': contentType }
    : { ...gathered, 'X-Content-Type-Options': NOSNIFF }
  // HEAD: Hono answers it with the GET route and drops the body, and @hono/node-server counts
  // Content-Length from the body, so a HEAD would lack it (docs/api.md "HTTP conventions")
  if (body !== null && c.req.method === 'HEAD') {
    headers['Content-Length'] = String(bytes)
    c.set('bodyBytes', 0)
  } else c.set('bodyBytes', bytes)
  return new Response(sent as ConstructorParameters<typeof Response>[0], { status, headers })
}

/**
 * A large body as the request's `Accept-Encoding` allows (src/http/compress.ts), with
 * `Vary: Accept-Encoding`, `Content-Encoding`, and a strong `ETag` naming the coding (RFC 9110
 * 8.8.3: each coding is its own representation; etag.ts matches either form); null: as it is.
 */
function encoded(c: Context<AppEnv>, body: string | Uint8Array): Buffer | null {
  appendHeader(c, 'Vary', 'Accept-Encoding')
  const coding = negotiate(requestHeader(c, 'accept-encoding'))
  if (coding === null) return null
  setHeader(c, 'Content-Encoding', coding)
  const tag = c.get('headers')?.ETag
  if (tag?.endsWith('"')) setHeader(c, 'ETag', `${tag.slice(0, -1)}-${coding}"`)
  return compress(body, coding)
}

/**
 * A streamed answer (a bulk job's results, src/jobs/results.ts) with the gathered headers; any
 * coding is the caller's (it sets `Content-Encoding`).
 */
export function replyStream(c: Context<AppEnv>, body: ReadableStream, status: number, contentType: string): Response {
  c.set('bodyBytes', 0)
  const headers = { ...c.get('headers'), 'X-Content-Type-Options': NOSNIFF, 'Content-Type': contentType }
  return new Response(body, { status, headers })
}

/** A JSON answer (JSON.stringify of `value`). */
export function json(c: Context<AppEnv>, value: unknown, status = 200): Response {
  return reply(c, JSON.stringify(value), status, 'application/json')
}
