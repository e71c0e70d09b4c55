/**
 * REDIS_URL: what the server and the keys CLI accept, checked before anything connects, so a
 * typo stops the start with one line (src/config.ts) rather than a server that retries forever.
 */

/**
 * `redis://[[user]:password@]host[:port][/db]` or `rediss://…` (TLS), as ioredis reads it. Returns
 * the problem in words, or null when the URL is usable.
 */
export function redisUrlProblem(raw: string): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'not a URL (expected redis://host:port or rediss://host:port)'
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    return `unsupported scheme '${url.protocol}' (expected redis:// or rediss://)`
  if (url.hostname === '') return 'no host (expected redis://host:port)'
  const db = url.pathname.replace(/^\//, '')
  if (db !== '' && !/^\d{1,2}$/.test(db)) return `'/${db}' is not a database number (0..99)`
  if (url.search !== '' || url.hash !== '') return 'no query or fragment is read; remove it'
  return null
}

/** The URL without its password, for logs and messages. */
export function redactRedisUrl(raw: string): string {
  try {
    const url = new URL(raw)
    if (url.password) url.password = '***'
    return url.toString()
  } catch {
    return '(invalid REDIS_URL)'
  }
}
