import type { IncomingMessage } from 'node:http'
import type { Context } from 'hono'

/**
 * A request header by its lower-case name. Served by @hono/node-server, it is read from Node's
 * own header object: Hono's `c.req.header()` goes through the WHATWG `Headers` that the adapter
 * builds (validating every header) on first use, a few microseconds per request for the two
 * headers every API request reads. Elsewhere (`app.request` in tests, other runtimes) it falls
 * back to Hono. Repeated headers are joined with ", " either way.
 */
export function requestHeader(c: Context, lowerName: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  if (!incoming) return c.req.header(lowerName)
  const v = incoming.headers[lowerName]
  return Array.isArray(v) ? v.join(', ') : v
}
