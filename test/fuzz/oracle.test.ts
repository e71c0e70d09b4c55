import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { type Answer, answerProblems, MVT } from './oracle.js'

const CODES = new Set(['ValidationError', 'NotFound', 'InternalError', 'ApiKeyMissing'])
const GET = { method: 'GET', tile: false, boundMs: 2000 }

function answer(status: number, body: unknown, headers: Record<string, string> = {}, ms = 5): Answer {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : (body as Uint8Array)
  return { status, headers: new Headers(headers), body: bytes, ms }
}
const envelope = (error: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ error, message: 'm', requestId: 'r1', ...extra })
const errorHeaders = { 'Content-Type': 'application/json', 'X-Request-Id': 'r1', 'Cache-Control': 'no-store' }

describe('the fuzz oracle', () => {
  it('accepts JSON answers, a well-formed error envelope, tiles from tile routes and empty 304s', () => {
    expect(answerProblems(GET, answer(200, '{"a":1}', { 'Content-Type': 'application/json' }), CODES)).toEqual([])
    const details = { details: [{ field: 'latitude', message: 'x' }] }
    expect(answerProblems(GET, answer(400, envelope('ValidationError', details), errorHeaders), CODES)).toEqual([])
    const zipped = answer(404, gzipSync(envelope('NotFound')), { ...errorHeaders, 'Content-Encoding': 'gzip' })
    expect(answerProblems(GET, zipped, CODES)).toEqual([])
    const tile = { ...GET, tile: true }
    expect(answerProblems(tile, answer(200, new Uint8Array([1]), { 'Content-Type': MVT }), CODES)).toEqual([])
    expect(answerProblems(tile, answer(204, ''), CODES)).toEqual([])
    expect(answerProblems(GET, answer(304, ''), CODES)).toEqual([])
    expect(answerProblems({ ...GET, method: 'HEAD' }, answer(401, '', errorHeaders), CODES)).toEqual([])
  })

  it('flags a 5xx, even in the envelope', () => {
    const p = answerProblems(GET, answer(500, envelope('InternalError'), errorHeaders), CODES)
    expect(p).toContain('status 500')
  })

  it('flags an error that is not the envelope, or whose code is not PascalCase, unknown or sent with another status', () => {
    const cases: [Answer, RegExp][] = [
      [answer(400, 'oops', { ...errorHeaders, 'Content-Type': 'text/plain' }), /not JSON/],
      [answer(400, '{"error":"ValidationError"', errorHeaders), /not JSON/],
      [answer(400, envelope('validation_error'), errorHeaders), /not PascalCase/],
      [answer(400, envelope('Teapot'), errorHeaders), /not in the OpenAPI document's list/],
      [answer(400, envelope('NotFound'), errorHeaders), /sent with 400, its status is 404/],
      [answer(400, envelope('ValidationError', { stack: 'at x' }), errorHeaders), /unknown member stack/],
      [answer(400, envelope('ValidationError', { requestId: '' }), errorHeaders), /without a requestId/],
      [
        answer(400, envelope('ValidationError'), { ...errorHeaders, 'X-Request-Id': 'r2' }),
        /differs from X-Request-Id/,
      ],
      [answer(400, envelope('ValidationError', { details: 'x' }), errorHeaders), /details neither/],
      [answer(400, envelope('ValidationError'), { ...errorHeaders, 'Cache-Control': 'max-age=60' }), /no-store/],
    ]
    for (const [a, why] of cases) expect(answerProblems(GET, a, CODES).join('; ')).toMatch(why)
  })

  it('flags a tile or a 204 from a route that is not a tile route, and a success that is not JSON', () => {
    expect(answerProblems(GET, answer(200, new Uint8Array([1]), { 'Content-Type': MVT }), CODES).join()).toMatch(
      /not a tile route/,
    )
    expect(answerProblems(GET, answer(204, ''), CODES).join()).toMatch(/not a tile route/)
    expect(answerProblems(GET, answer(200, '<html>', { 'Content-Type': 'text/html' }), CODES).join()).toMatch(
      /Content-Type "text\/html"/,
    )
    expect(answerProblems(GET, answer(200, '{', { 'Content-Type': 'application/json' }), CODES).join()).toMatch(
      /not JSON/,
    )
    expect(answerProblems(GET, answer(302, ''), CODES).join()).toMatch(/unexpected status 302/)
  })

  it('flags an answer over its time bound', () => {
    const slow = answer(200, '{}', { 'Content-Type': 'application/json' }, 2500)
    expect(answerProblems(GET, slow, CODES).join()).toMatch(/2500 ms, over its bound of 2000 ms/)
  })
})
