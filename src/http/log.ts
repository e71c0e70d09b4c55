import pino, { type Logger } from 'pino'

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

/** What one access-log line says of a request besides its id and route. */
export interface AccessFields {
  status: number
  ms: number
  keyId: string | undefined
  /** the error code on a 4xx or 5xx answer */
  error: string | undefined
  /** body bytes sent */
  bytes: number
  /** the client: the socket's address, or the X-Forwarded-For client behind a trusted proxy */
  client: string | undefined
  userAgent: string | undefined
  /** the build that answered (the request's pinned snapshot), else the writer's `build` */
  build?: string
  /** the client's W3C `traceparent`, when valid (request-id.ts) */
  traceparent?: string | null
}

/** Writes one access-log line; `enabled()` says whether the logger's level lets info lines through. */
export interface AccessLogWriter {
  (requestId: string, method: string, path: string, f: AccessFields): void
  enabled(): boolean
}

const s = pino.symbols

/** `,"name":"value"` for a text field that may hold anything (escaped), or nothing when absent. */
const text = (name: string, v: string | undefined) => (v === undefined ? '' : `,"${name}":${JSON.stringify(v)}`)

/**
 * The access line: request id, method, path, status, duration (ms, to the µs), key id (never
 * the key), error code, bytes sent, the served build, client address, user agent and the
 * client's W3C `traceparent` when it sent a valid one (hex and dashes only), as the
 * line `log.info({ requestId, method, path, status, ms, keyId, error, bytes, build, client,
 * userAgent })` writes: same level, time, bindings and ending, into the logger's own stream (so
 * lines stay in order with every other log line). Built by hand because pino's generic object
 * walk was ~7 % of the CPU of a small request. The path, key id, client and user agent can hold
 * characters to escape; the request id is checked against a safe alphabet, the method is an
 * HTTP token and the error code one of ours.
 */
export function accessLogWriter(log: Logger, build?: string): AccessLogWriter {
  const l = log as unknown as Record<symbol, unknown>
  // the field is escaped once per build, not per line: a switch changes it (DatasetHandle)
  let buildName = build
  let buildField = text('build', build)
  const write = function writeAccessLine(requestId: string, method: string, path: string, f: AccessFields) {
    if (f.build !== undefined && f.build !== buildName) {
      buildName = f.build
      buildField = text('build', f.build)
    }
    const line =
      (l[s.lsCacheSym] as Record<number, string>)[30] +
      (l[s.timeSym] as () => string)() +
      (l[s.chindingsSym] as string) +
      `,"requestId":"${requestId}","method":"${method}","path":${JSON.stringify(path)},"status":${f.status},"ms":${Math.round(f.ms * 1000) / 1000}` +
      text('keyId', f.keyId) +
      (f.error === undefined ? '' : `,"error":"${f.error}"`) +
      `,"bytes":${f.bytes}` +
      buildField +
      text('client', f.client) +
      text('userAgent', f.userAgent) +
      (f.traceparent ? `,"traceparent":"${f.traceparent}"` : '') +
      (l[s.endSym] as string)
    ;(l[s.streamSym] as { write(line: string): void }).write(line)
  } as AccessLogWriter
  write.enabled = () => log.isLevelEnabled('info')
  return write
}
