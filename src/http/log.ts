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

/** Writes one access-log line; `enabled()` says whether the logger's level lets info lines through. */
export interface AccessLogWriter {
  (requestId: string, method: string, path: string, status: number, ms: number, keyId: string | undefined): void
  enabled(): boolean
}

const s = pino.symbols

/**
 * The access line: request id, method, path, status, duration (ms, to the µs) and key id (never
 * the key), as the line `log.info({ requestId, method, path, status, ms, keyId })` writes: same
 * level, time, bindings and ending, into the logger's own stream (so lines stay in order with
 * every other log line). Built by hand because pino's generic object walk was ~7 % of the CPU
 * of a small request. Only the path and the key id can hold characters to escape; the request
 * id is checked against a safe alphabet and the method is an HTTP token.
 */
export function accessLogWriter(log: Logger): AccessLogWriter {
  const l = log as unknown as Record<symbol, unknown>
  const write = function writeAccessLine(
    requestId: string,
    method: string,
    path: string,
    status: number,
    ms: number,
    keyId: string | undefined,
  ) {
    const line =
      (l[s.lsCacheSym] as Record<number, string>)[30] +
      (l[s.timeSym] as () => string)() +
      (l[s.chindingsSym] as string) +
      `,"requestId":"${requestId}","method":"${method}","path":${JSON.stringify(path)},"status":${status},"ms":${Math.round(ms * 1000) / 1000}` +
      (keyId === undefined ? '' : `,"keyId":${JSON.stringify(keyId)}`) +
      (l[s.endSym] as string)
    ;(l[s.streamSym] as { write(line: string): void }).write(line)
  } as AccessLogWriter
  write.enabled = () => log.isLevelEnabled('info')
  return write
}
