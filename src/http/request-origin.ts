/**
 * The origin (`scheme://host[:port]`) a client used to reach the API, for the absolute URLs an
 * answer names (the TileJSON `tiles` template). It is the request's own URL (the `Host` header,
 * and https when the socket is TLS), unless the socket's peer is a trusted proxy
 * (TRUSTED_PROXIES, as for the access log's client, client-address.ts): then that proxy's
 * `X-Forwarded-Proto` and `X-Forwarded-Host` name what the client used. A client that is not a
 * trusted proxy cannot change the origin by sending those headers itself.
 *
 * Of a comma list the first value counts (the proxy nearest the client writes it, as Express
 * reads them); a value that is not a plain scheme or host is ignored.
 */
import type { IncomingMessage } from 'node:http'
import type { Context } from 'hono'
import { requestHeader } from './request-header.js'

/** A host name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/

const first = (v: string | undefined): string | undefined => v?.split(',')[0].trim()

/** `::ffff:10.0.0.1` is 10.0.0.1 (as client-address.ts reads TRUSTED_PROXIES). */
const plain = (a: string): string => (a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a)

export function requestOrigin(c: Context, trusted: ReadonlySet<string>): string {
  const own = new URL(c.req.url)
  let proto = own.protocol.slice(0, -1)
  let host = own.host
  const remote = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress
  if (remote !== undefined && trusted.has(plain(remote))) {
    const p = first(requestHeader(c, 'x-forwarded-proto'))?.toLowerCase()
    if (p === 'http' || p === 'https') proto = p
    const h = first(requestHeader(c, 'x-forwarded-host'))
    if (h && HOST.test(h)) host = h
  }
  return `${proto}://${host}`
}
