import pino, { type Logger } from 'pino'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './env.js'

/**
 * JSON logs on stdout. The X-API-KEY header is never logged: only the key id is.
 *
 * Asynchronous writes: a synchronous write per access-log line cost ~6 % of a small request's
 * CPU (one write(2) each). Lines written while a write is in flight are joined into the next
 * one, so under load one syscall carries many lines, and when idle each line still goes out at
 * once (no minimum length to wait for). pino flushes the buffer synchronously on exit, on
 * SIGINT/SIGTERM and on an uncaught exception; only a SIGKILL can lose the lines in flight.
 */
export function createLogger(level: string): Logger {
  return pino(
    { level, base: { pid: process.pid }, redact: ['req.headers["x-api-key"]', 'headers["x-api-key"]'] },
    pino.destination({ dest: 1, sync: false }),
  )
}

/** One line per request: id, method, path, status, duration and key id (never the key). */
export function accessLog(log: Logger): MiddlewareHandler<AppEnv> {
  return async function accessLogMiddleware(c, next) {
    if (!log.isLevelEnabled('info')) return next()
    const start = performance.now()
    await next()
    log.info({
      requestId: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - start) * 1000) / 1000,
      keyId: c.get('apiKey')?.id,
    })
  }
}
