/**
 * The client a request came from, for the access log: the socket's address, or, when that is a
 * trusted proxy (TRUSTED_PROXIES), the address its `X-Forwarded-For` names. The header is read
 * from the right, skipping the trusted proxies, so a client cannot pose as another address by
 * sending its own `X-Forwarded-For`: only what trusted proxies appended counts.
 */

/** `::ffff:10.0.0.1` is 10.0.0.1. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address
}

/** Reads a comma-separated list of addresses (TRUSTED_PROXIES) into the set the lookup uses. */
export function trustedProxies(list: string | undefined): ReadonlySet<string> {
  return new Set(
    (list ?? '')
      .split(',')
      .map((a) => plain(a.trim()))
      .filter(Boolean),
  )
}

export function clientAddress(
  remote: string | undefined,
  forwardedFor: string | undefined,
  trusted: ReadonlySet<string>,
): string | undefined {
  if (remote === undefined) return undefined
  const socket = plain(remote)
  if (!forwardedFor || !trusted.has(socket)) return socket
  const hops = forwardedFor.split(',').map((h) => plain(h.trim()))
  for (let i = hops.length - 1; i >= 0; i--) if (hops[i] && !trusted.has(hops[i])) return hops[i]
  return hops[0] || socket
}
