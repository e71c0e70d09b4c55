import { ApiError, type ErrorCode } from './errors.js'

/**
 * The service a route needs, or a 503 in our error envelope when this deployment's dataset does
 * not hold its domain. Every feature's routes get their service through this one guard.
 */
export function requireService<T>(current: () => T | null, code: ErrorCode, message: string): () => T {
  return () => {
    const s = current()
    if (!s) throw new ApiError(code, message)
    return s
  }
}
