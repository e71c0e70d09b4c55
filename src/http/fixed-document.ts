import { createHash } from 'node:crypto'
import type { Context } from 'hono'
import { type Coding, compress, negotiate } from './compress.js'
import type { AppEnv } from './env.js'
import { noneMatch } from './etag.js'
import type { Answerer } from './front-door.js'
import { reply, setHeader } from './reply.js'
import { requestHeader } from './request-header.js'

/** `Cache-Control` of a document fixed for the process's life: anyone may keep it, and check it after 5 minutes. */
export const FIXED_CACHE_CONTROL = 'public, max-age=300'

/**
 * The answer of a JSON document that does not change while the process runs (`openapi.json`):
 * made once, on its first request, with a strong `ETag` from its bytes; `If-None-Match` naming
 * it answers 304. Each coding the clients ask for is compressed once, not per request (the
 * OpenAPI document is some hundred KB: brotli would cost milliseconds each time). `Vary:
 * Accept-Encoding` on every answer, the 304 included.
 */
export function fixedJson(make: () => unknown): Answerer {
  let text: string | null = null
  let etag = ''
  const coded = new Map<Coding, Buffer>()
  return (c: Context<AppEnv>) => {
    if (text === null) {
      text = JSON.stringify(make())
      etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 22)}"`
    }
    setHeader(c, 'Cache-Control', FIXED_CACHE_CONTROL)
    setHeader(c, 'Vary', 'Accept-Encoding')
    const coding = negotiate(requestHeader(c, 'accept-encoding'))
    const tag = coding === null ? etag : `${etag.slice(0, -1)}-${coding}"`
    const inm = requestHeader(c, 'if-none-match')
    const held = inm === undefined ? null : noneMatch(inm, etag)
    if (held !== null) {
      setHeader(c, 'ETag', held)
      return reply(c, null, 304)
    }
    setHeader(c, 'ETag', tag)
    if (coding === null) return reply(c, text, 200, 'application/json')
    let body = coded.get(coding)
    if (body === undefined) coded.set(coding, (body = compress(text, coding)))
    setHeader(c, 'Content-Encoding', coding)
    return reply(c, body, 200, 'application/json')
  }
}
