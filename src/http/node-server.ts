/**
 * The Node HTTP server around the app: how long a client may take to send its request, and the
 * answers given where the app cannot answer, each in the error envelope with a request id
 * (docs/api.md "Errors", docs/operations.md "Configuration"):
 *
 * - a request Node's parser refuses (a malformed request line or header, an unknown method,
 *   headers over Node's 16 KB) or a client too slow to send its request: answered on the raw
 *   socket by the `clientError` hook, then the connection is closed;
 * - a request line whose target or Host header @hono/node-server cannot make a URL of (`GET *`,
 *   a backslash in the path, a bad Host): answered by the adapter's `errorHandler`, which would
 *   otherwise send a bare 400 with no body.
 */
import { randomUUID } from 'node:crypto'
import { createServer, maxHeaderSize, type Server, type ServerResponse, STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import type { Logger } from 'pino'
import { ApiError, errorBody } from './errors.js'
import { earlyAnswerOf, markEarlyAnswer } from './early-answer.js'
import { REQUEST_ID_HEADER } from './request-id.js'
import { guardSends, type SendLimits } from './send-guard.js'

export interface ServerLimits {
  /** ms a client has from connecting (or its previous request) to the end of its headers */
  headersTimeoutMs: number
  /** ms a client has to send one whole request, body included */
  requestTimeoutMs: number
  /** ms an idle keep-alive connection stays open (above the load balancer's idle timeout); Node's default 5 s when absent */
  keepAliveTimeoutMs?: number
  /** the bounds on clients that do not read their answers (src/http/send-guard.ts); none when absent */
  send?: SendLimits
}

/**
 * How often Node looks for requests past their timeout: every second, or a quarter of the
 * shorter timeout when that is under 4 s, so a slow client is closed at most that much late.
 * Node's default is 30 s, which would let a 10 s timeout run to 40 s.
 */
export function checkingIntervalMs(limits: ServerLimits): number {
  const shorter = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs)
  return Math.max(25, Math.min(1000, Math.floor(shorter / 4)))
}

/** The server, not yet listening: the app's `fetch` behind the timeouts and the two hooks above. */
export function createHttpServer(
  fetch: (request: Request, env: never) => unknown,
  log: Logger,
  limits: ServerLimits,
  hostname?: string,
): Server {
  const listener = getRequestListener(fetch as Parameters<typeof getRequestListener>[0], {
    hostname,
    errorHandler: (err) => requestErrorAnswer(err, log),
  })
  // the answers in flight: a drain tells those not yet begun to close their connection, and the
  // send guard sweeps those written whole that their client has not taken
  const live = new Set<ServerResponse>()
  const server: Server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: checkingIntervalMs(limits),
    },
    (req, res) => {
      // closing (server.close() was called: a drain): the answer says `Connection: close` and
      // the connection closes after it, so no client sends another request on a socket about
      // to close
      if (!server.listening) res.shouldKeepAlive = false
      live.add(res)
      res.once('close', forget)
      listener(req, res)
    },
  )
  function forget(this: ServerResponse) {
    live.delete(this)
  }
  // the requests already in flight when server.close() is called are told here (its 'close'
  // event comes only once every connection has ended)
  const close = server.close.bind(server)
  server.close = ((cb?: (err?: Error) => void) => {
    for (const res of live) if (!res.headersSent) res.shouldKeepAlive = false
    return close(cb)
  }) as Server['close']
  if (limits.send) {
    const guard = guardSends(live, limits.send, log)
    server.once('close', () => guard.stop())
  }
  if (limits.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = limits.keepAliveTimeoutMs
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket, log, limits))
  return server
}

/** The status, code and message of a parser or timeout error; null for a socket error (no answer). */
function classify(err: NodeJS.ErrnoException & { reason?: unknown }, limits: ServerLimits): ApiError | null {
  const code = err.code ?? ''
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new ApiError(
      'RequestTimeout',
      `the request was not received in time: headers within ${limits.headersTimeoutMs} ms, the whole ` +
        `request within ${limits.requestTimeoutMs} ms`,
    )
  if (code === 'HPE_HEADER_OVERFLOW')
    return new ApiError(
      'RequestHeaderFieldsTooLarge',
      `the request line and headers are larger than ${maxHeaderSize} bytes`,
    )
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW')
    return new ApiError('PayloadTooLarge', 'the chunk extensions of the request body are too large')
  if (!code.startsWith('HPE_')) return null
  // llhttp's reason is a fixed text ("Invalid method encountered"); never the client's bytes
  const reason = typeof err.reason === 'string' && /^[ -~]{1,120}$/.test(err.reason) ? err.reason : code
  return new ApiError('ValidationError', 'the request is not valid HTTP/1.1', [{ field: '(request)', message: reason }])
}

/**
 * Node's `clientError` hook: the listener must close the socket. As Node's own default, it
 * answers only on a socket still writable whose current response (if any) has sent nothing, and
 * otherwise destroys it; a socket is answered once (a parser that failed can fail again on the
 * next bytes). The answer is a whole HTTP/1.1 response with `Connection: close`; the socket is
 * destroyed once it is written, or after a second if the client does not take it.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket, log: Logger, limits: ServerLimits): void {
  const s = socket as Socket & { _httpMessage?: { headersSent?: boolean } | null }
  if (earlyAnswerOf(socket)) return
  const answer = err.code === 'ECONNRESET' ? null : classify(err, limits)
  if (answer === null || !socket.writable || s._httpMessage?.headersSent) {
    socket.destroy()
    return
  }
  markEarlyAnswer(socket, answer)
  const requestId = randomUUID()
  const body = JSON.stringify(errorBody(answer, requestId))
  socket.write(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
      `Date: ${new Date().toUTCString()}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n' +
      'Cache-Control: no-store\r\n' +
      'X-Content-Type-Options: nosniff\r\n' +
      `${REQUEST_ID_HEADER}: ${requestId}\r\n` +
      `\r\n${body}`,
  )
  socket.destroySoon()
  setTimeout(() => socket.destroy(), 1000).unref()
  log.info({ requestId, status: answer.status, error: answer.code, cause: err.code }, 'request refused before routing')
}

/**
 * The adapter's `errorHandler`: a request whose URL could not be built (`err` is its
 * RequestError, a fixed text such as "Invalid URL") answers 400; anything else that escaped the
 * app answers 500 with the error logged, as the app's own 500s.
 */
function requestErrorAnswer(err: unknown, log: Logger): Response {
  const requestId = randomUUID()
  const e = err instanceof Error ? err : new Error(String(err))
  let answer: ApiError
  if (e.name === 'RequestError') {
    answer = new ApiError('ValidationError', 'the request target or Host header is not valid', [
      { field: '(request)', message: e.message.slice(0, 120) },
    ])
    log.info({ requestId, status: 400, error: answer.code, cause: e.message }, 'request refused before routing')
  } else {
    answer = new ApiError(
      'InternalError',
      'The service failed to answer this request. Quote the request id when reporting it.',
    )
    log.error({ requestId, err: { message: e.message, stack: e.stack, name: e.name } }, 'unhandled error')
  }
  return new Response(JSON.stringify(errorBody(answer, requestId)), {
    status: answer.status,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      [REQUEST_ID_HEADER]: requestId,
    },
  })
}
