import { describe, expect, it } from 'vitest'
import { ApiError } from './errors.js'

describe('ApiError', () => {
  it('carries its code, status, details and headers, and no stack frames', () => {
    const before = Error.stackTraceLimit
    const e = new ApiError('RateLimitExceeded', 'slow down', [{ field: 'x', message: 'y' }], { 'Retry-After': '3' })
    expect(e).toBeInstanceOf(Error)
    expect([e.code, e.status, e.message]).toEqual(['RateLimitExceeded', 429, 'slow down'])
    expect(e.details).toEqual([{ field: 'x', message: 'y' }])
    expect(e.headers).toEqual({ 'Retry-After': '3' })
    expect(e.stack ?? '').not.toMatch(/\n\s+at /)
    // the limit is restored: other errors keep their stacks
    expect(Error.stackTraceLimit).toBe(before)
    expect(new Error('x').stack).toMatch(/\n\s+at /)
  })
})
