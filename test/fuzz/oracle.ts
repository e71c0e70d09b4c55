/**
 * What every answer must be, whatever was asked (docs/api.md "Errors"): never a 5xx; a tile, a
 * 204 or a 304 from a tile route; JSON from every other; every error in the envelope
 * `{error, message, details?, requestId}` with a PascalCase code of the document's list, sent
 * with the status that code always has; and in time.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { ERROR_STATUS } from '../../src/http/errors.js'

export const MVT = 'application/vnd.mapbox-vector-tile'
const PASCAL = /^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)*$/
const ENVELOPE_KEYS = new Set(['error', 'message', 'details', 'requestId'])

export interface Answer {
  status: number
  headers: Headers
  body: Uint8Array
  ms: number
}

export interface Asked {
  method: string
  /** whether the operation answers vector tiles */
  tile: boolean
  /** the longest the answer may take */
  boundMs: number
}

function decoded(a: Answer): Uint8Array {
  const enc = a.headers.get('content-encoding')
  if (enc === 'br') return brotliDecompressSync(a.body)
  if (enc === 'gzip') return gunzipSync(a.body)
  return a.body
}

function parsed(a: Answer): { ok: true; value: unknown } | { ok: false; why: string } {
  try {
    return { ok: true, value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(decoded(a))) }
  } catch (err) {
    return { ok: false, why: (err as Error).message.slice(0, 120) }
  }
}

/** The envelope's problems, `codes` being the error codes the OpenAPI document lists. */
function envelopeProblems(a: Answer, codes: ReadonlySet<string>): string[] {
  const type = a.headers.get('content-type') ?? ''
  if (!/^application\/json\b/.test(type)) return [`error answer with Content-Type ${JSON.stringify(type)}, not JSON`]
  const p = parsed(a)
  if (!p.ok) return [`error answer that is not JSON: ${p.why}`]
  const body = p.value as Record<string, unknown>
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return ['error answer that is not a JSON object']
  const out: string[] = []
  for (const k of Object.keys(body)) if (!ENVELOPE_KEYS.has(k)) out.push(`error envelope with an unknown member ${k}`)
  const code = body.error
  if (typeof code !== 'string' || !PASCAL.test(code)) out.push(`error code ${JSON.stringify(code)} is not PascalCase`)
  else {
    if (!codes.has(code)) out.push(`error code ${code} is not in the OpenAPI document's list`)
    const status = (ERROR_STATUS as Record<string, number>)[code]
    if (status !== a.status) out.push(`error code ${code} sent with ${a.status}, its status is ${status}`)
  }
  if (typeof body.message !== 'string' || body.message === '') out.push('error envelope without a message')
  if (typeof body.requestId !== 'string' || body.requestId === '') out.push('error envelope without a requestId')
  else if (body.requestId !== a.headers.get('x-request-id')) out.push('requestId differs from X-Request-Id')
  const d = body.details
  if (d !== undefined) {
    const fieldList =
      Array.isArray(d) && d.every((x) => x && typeof x.field === 'string' && typeof x.message === 'string')
    if (!fieldList && (d === null || typeof d !== 'object' || Array.isArray(d)))
      out.push('error details neither a list of {field, message} nor an object')
  }
  if (a.headers.get('cache-control') !== 'no-store') out.push('error answer without Cache-Control: no-store')
  return out
}

/** Everything wrong with `a` as an answer to `q`; empty when it is right. */
export function answerProblems(q: Asked, a: Answer, codes: ReadonlySet<string>): string[] {
  const out: string[] = []
  if (a.ms > q.boundMs) out.push(`answered in ${Math.round(a.ms)} ms, over its bound of ${q.boundMs} ms`)
  if (a.status >= 500) out.push(`status ${a.status}`)
  else if (a.status < 200 || (a.status >= 300 && a.status < 400 && a.status !== 304))
    out.push(`unexpected status ${a.status}`)
  const empty = a.body.byteLength === 0
  if (q.method === 'HEAD' || a.status === 204 || a.status === 304) {
    if (!empty) out.push(`a ${q.method === 'HEAD' ? 'HEAD answer' : a.status} with a body`)
    if (a.status === 204 && !q.tile) out.push('204 from a route that is not a tile route')
    return out
  }
  if (a.status >= 400) return [...out, ...envelopeProblems(a, codes)]
  if (a.status >= 300) return out
  const type = a.headers.get('content-type') ?? ''
  if (type.startsWith(MVT)) {
    if (!q.tile) out.push('a vector tile from a route that is not a tile route')
    if (empty) out.push('an empty tile with 200 (an empty tile is a 204)')
    return out
  }
  if (!/^application\/(geo\+)?json\b/.test(type)) out.push(`${a.status} with Content-Type ${JSON.stringify(type)}`)
  else {
    const p = parsed(a)
    if (!p.ok) out.push(`${a.status} whose body is not JSON: ${p.why}`)
  }
  return out
}
