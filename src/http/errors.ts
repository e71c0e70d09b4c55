import type { IncomingMessage } from 'node:http'
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { Logger } from 'pino'
import type { AppEnv } from './env.js'
import { earlyAnswerOf } from './early-answer.js'
import { json, setHeader } from './reply.js'

/**
 * Every error code the API answers, with its HTTP status. One table, so a code can never be
 * sent with two different statuses (unkey keeps its codes the same way).
 */
export const ERROR_STATUS = {
  ValidationError: 400,
  GeometryTooComplex: 400,
  ApiKeyMissing: 401,
  ApiKeyInvalid: 401,
  ApiKeySuspended: 401,
  ApiKeyExpired: 401,
  ProductNotPermitted: 403,
  CountryNotPermitted: 403,
  CityNotPermitted: 403,
  NotFound: 404,
  ParcelNotFound: 404,
  NoParcelAtPoint: 404,
  EncumbranceNotFound: 404,
  NoJurisdictionAtPoint: 404,
  BoundaryNotFound: 404,
  CollectionNotFound: 404,
  JobNotFound: 404,
  MethodNotAllowed: 405,
  RequestTimeout: 408,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  RangeNotSatisfiable: 416,
  RateLimitExceeded: 429,
  BulkAllowanceExceeded: 429,
  TooManyJobs: 429,
  RequestHeaderFieldsTooLarge: 431,
  InternalError: 500,
  ParcelDataUnavailable: 503,
  EncumbranceDataUnavailable: 503,
  JurisdictionDataUnavailable: 503,
  PlotDataUnavailable: 503,
  RateLimitUnavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

/** One invalid field of a request. */
export interface FieldError {
  field: string
  message: string
}

/** The flat error body of the specs. */
export interface ErrorBody {
  error: ErrorCode
  message: string
  details?: FieldError[] | Record<string, unknown>
  requestId: string
}

/**
 * The only error class handlers throw; `handleError` turns it into the envelope. It is an
 * answer, not a fault, so it carries no stack trace: capturing one was a third of the CPU of a
 * 401 or 404 under load, and nothing reads it (only unexpected errors are logged with theirs).
 */
export class ApiError extends Error {
  readonly status: number
  readonly code: ErrorCode
  readonly details?: FieldError[] | Record<string, unknown>
  readonly headers?: Record<string, string>
  constructor(
    code: ErrorCode,
    message: string,
    details?: FieldError[] | Record<string, unknown>,
    headers?: Record<string, string>,
  ) {
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    try {
      super(message)
    } finally {
      Error.stackTraceLimit = limit
    }
    this.code = code
    this.details = details
    this.headers = headers
    this.status = ERROR_STATUS[code]
  }
}

/** Seconds a client is asked to wait when the shared store (Redis) is unavailable: it reconnects within a second. */
export const STORE_RETRY_AFTER_S = 2

/**
 * 503 `RateLimitUnavailable`: the store that counts requests and checks keys across instances
 * (Redis, docs/production.md "Several instances with Redis") cannot answer now; `why` is for the
 * client (never a password or a key).
 */
export function storeUnavailable(why: string): ApiError {
  return new ApiError('RateLimitUnavailable', `${why}; retry in ${STORE_RETRY_AFTER_S} s`, undefined, {
    'Retry-After': String(STORE_RETRY_AFTER_S),
  })
}

/** The envelope of `err` for the request `requestId`; answers built outside Hono use it too (node-server.ts). */
export function errorBody(err: ApiError, requestId: string): ErrorBody {
  // key order as the specs print it: error, message, details, requestId
  return {
    error: err.code,
    message: err.message,
    ...(err.details !== undefined ? { details: err.details } : {}),
    requestId,
  }
}

export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  const body = errorBody(err, c.get('requestId') ?? '')
  c.set('errorCode', err.code)
  // an error is about this one request: no cache keeps it (nor a tile's or an asset's caching)
  setHeader(c, 'Cache-Control', 'no-store')
  // nor a tag set before the route failed (etag.ts): only a success is tagged
  const gathered = c.get('headers')
  if (gathered?.ETag !== undefined) delete gathered.ETag
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) setHeader(c, k, v)
  return json(c, body, err.status)
}

/**
 * Own errors answer their envelope; Hono's HTTPExceptions (thrown by built-in middleware) are
 * mapped onto the nearest code; anything else is a bug: its stack is logged with the request id
 * and the client gets a generic 500, never the message or stack.
 */
export function handleError(log: Logger) {
  return function onError(err: Error, c: Context<AppEnv>): Response {
    if (err instanceof ApiError) return errorResponse(c, err)
    if (err instanceof HTTPException) {
      const status = err.status
      const code: ErrorCode =
        status === 413
          ? 'PayloadTooLarge'
          : status === 404
            ? 'NotFound'
            : status === 401
              ? 'ApiKeyInvalid'
              : status < 500
                ? 'ValidationError'
                : 'InternalError'
      const message = status < 500 ? err.message || 'request rejected' : 'internal server error'
      if (status >= 500) log.error({ requestId: c.get('requestId'), err }, 'unhandled HTTPException')
      // a 413: the body was not read whole, so the connection closes after the answer
      const headers = status === 413 ? { Connection: 'close' } : undefined
      return errorResponse(c, new ApiError(code, message, undefined, headers))
    }
    if (cutOff(c)) {
      // answered already by the server's clientError hook (a 408 for a body past the request
      // timeout): the log says what the client got
      const early = earlyAnswerOf((c.env as { incoming?: IncomingMessage }).incoming?.socket)
      if (early) return errorResponse(c, new ApiError(early.code as ErrorCode, early.message))
      return errorResponse(
        c,
        new ApiError('ValidationError', 'the request body was not received whole: the connection closed first', [
          { field: '(body)', message: 'incomplete body' },
        ]),
      )
    }
    log.error(
      { requestId: c.get('requestId'), err: { message: err.message, stack: err.stack, name: err.name } },
      'unhandled error',
    )
    return errorResponse(
      c,
      new ApiError(
        'InternalError',
        'The service failed to answer this request. Quote the request id when reporting it.',
      ),
    )
  }
}

/**
 * Whether the client's connection ended before its request was whole (a body cut off by the
 * request timeout, src/http/node-server.ts, or by the client leaving): reading the body then
 * fails, which is the client's doing, not a fault to log. The answer goes nowhere but the
 * access log.
 */
function cutOff(c: Context<AppEnv>): boolean {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  return incoming !== undefined && !incoming.complete && (incoming.destroyed || incoming.errored !== null)
}

export function handleNotFound(c: Context<AppEnv>): Response {
  return errorResponse(c, new ApiError('NotFound', `no route for ${c.req.method} ${c.req.path}`))
}

/** 405: the path has routes, for the methods in `allow` only (the `Allow` header). */
export function handleWrongMethod(c: Context<AppEnv>, allow: string): Response {
  return errorResponse(
    c,
    new ApiError('MethodNotAllowed', `${c.req.method} is not allowed on ${c.req.path} (allowed: ${allow})`, undefined, {
      Allow: allow,
    }),
  )
}
