import type { Context } from 'hono'
import type { AppEnv } from './env.js'
import { ApiError, type ErrorCode } from './errors.js'

/**
 * A feature's service for one request: read from the build the request pinned (the front door's
 * `snapshot`), so every step of a request queries the same build.
 */
export type Service<T> = (c: Context<AppEnv>) => T

/**
 * The service a route needs, or a 503 in our error envelope when this deployment's dataset does
 * not hold its domain. Every feature's routes get their service through this one guard.
 */
export function requireService<T>(current: Service<T | null>, code: ErrorCode, message: string): Service<T> {
  return (c) => {
    const s = current(c)
    if (!s) throw new ApiError(code, message)
    return s
  }
}
