/**
 * The answers of a shared store (Redis) that cannot answer, through the real app: 503
 * RateLimitUnavailable in the envelope with Retry-After (failing closed), or served without
 * RateLimit headers (failing open: the limiter answers null), a key that cannot be checked, and
 * `/readyz` naming the reason. Stores stubbed here; test/redis-scale-out.test.ts does it with a
 * real Redis.
 */
import pino from 'pino'
import { describe, expect, inject, it } from 'vitest'
import { createApp } from '../src/app.js'
import { SqliteKeyStore } from '../src/auth/key-store.js'
import type { KeyVerifier } from '../src/auth/types.js'
import { DatasetHandle, openDataset } from '../src/data/open-dataset.js'
import { RateLimitStoreError, type RateLimiter } from '../src/rate-limit/types.js'
import { buildServices } from '../src/services.js'
import { ALL_PRODUCTS, BOTH, json } from './helpers.js'

function app(limiter: RateLimiter, keys?: KeyVerifier, unavailable?: () => string | null) {
  const store = new SqliteKeyStore(':memory:')
  const { key } = store.issue({ products: ALL_PRODUCTS, countries: BOTH, ratePerMinute: 10 })
  const a = createApp({
    log: pino({ level: 'silent' }),
    keys: keys ?? store,
    limiter,
    data: new DatasetHandle(openDataset(inject('datasetDir')), buildServices),
    unavailable,
  })
  return { key, get: (path: string) => a.request(path, { headers: { 'X-API-KEY': key } }) }
}

describe('a shared store that cannot answer', () => {
  it('failing closed: 503 RateLimitUnavailable, the envelope, Retry-After, no RateLimit headers', async () => {
    const t = app({
      limit: () => Promise.reject(new RateLimitStoreError('redis: connect ECONNREFUSED 10.0.0.20:6379')),
    })
    const res = await t.get('/api/v1/cities')
    expect(res.status).toBe(503)
    expect(res.headers.get('Retry-After')).toBe('2')
    expect(res.headers.get('Cache-Control')).toBe('no-store')
    expect(res.headers.get('RateLimit')).toBeNull()
    const body = await json(res)
    expect(body).toEqual({
      error: 'RateLimitUnavailable',
      message: 'the rate-limit store is unavailable, so requests cannot be counted; retry in 2 s',
      requestId: res.headers.get('X-Request-Id'),
    })
    // the address stays in the log and /readyz, not in the client's answer
    expect(JSON.stringify(body)).not.toContain('10.0.0.20')
  })

  it('any other failure of the limiter stays a 500', async () => {
    const t = app({ limit: () => Promise.reject(new Error('bug')) })
    expect((await t.get('/api/v1/cities')).status).toBe(500)
  })

  it('failing open (the limiter answers null): served, without RateLimit headers', async () => {
    const t = app({ limit: () => Promise.resolve(null) })
    const res = await t.get('/api/v1/cities')
    expect(res.status).toBe(200)
    expect(res.headers.get('RateLimit')).toBeNull()
    expect(res.headers.get('RateLimit-Policy')).toBeNull()
  })

  it('a key that cannot be checked: 503 RateLimitUnavailable, not a 401', async () => {
    const keys: KeyVerifier = {
      verify: () =>
        Promise.resolve({ ok: false, code: 'UNAVAILABLE', reason: 'redis: key lookup: no answer within 250 ms' }),
      close: () => {},
    }
    const t = app({ limit: () => null }, keys)
    const res = await t.get('/api/v1/cities')
    expect(res.status).toBe(503)
    expect(await json(res)).toMatchObject({
      error: 'RateLimitUnavailable',
      message: 'the key store is unavailable, so this API key cannot be checked; retry in 2 s',
    })
  })

  it('/readyz answers 503 unavailable with the reason, 200 once it is gone', async () => {
    let reason: string | null = 'redis: connect ECONNREFUSED 127.0.0.1:6399'
    const t = app({ limit: () => null }, undefined, () => reason)
    const down = await t.get('/readyz')
    expect(down.status).toBe(503)
    expect(await json(down)).toMatchObject({
      status: 'unavailable',
      reason: 'redis: connect ECONNREFUSED 127.0.0.1:6399',
    })
    reason = null
    const up = await t.get('/readyz')
    expect(up.status).toBe(200)
    expect((await json(up)).status).toBe('ready')
  })
})
