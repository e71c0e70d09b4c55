import { describe, expect, it } from 'vitest'
import { redactRedisUrl, redisUrlProblem } from './url.js'

describe('redisUrlProblem', () => {
  it('accepts redis:// and rediss:// URLs with a host, an optional port, password and database', () => {
    for (const ok of [
      'redis://127.0.0.1:6379',
      'redis://localhost',
      'rediss://cache.example:6380/2',
      'redis://:secret@10.0.0.5:6379/0',
      'redis://user:secret@[::1]:6379',
    ])
      expect(redisUrlProblem(ok), ok).toBeNull()
  })

  it('names what is wrong with anything else', () => {
    expect(redisUrlProblem('localhost:6379')).toMatch(/unsupported scheme|not a URL/)
    expect(redisUrlProblem('http://127.0.0.1:6379')).toMatch(/unsupported scheme 'http:'/)
    expect(redisUrlProblem('redis://127.0.0.1:6379/cache')).toMatch(/not a database number/)
    expect(redisUrlProblem('redis://127.0.0.1:99999')).toMatch(/not a URL/)
    expect(redisUrlProblem('redis://127.0.0.1:6379?db=1')).toMatch(/no query/)
    expect(redisUrlProblem('')).toMatch(/not a URL/)
  })
})

describe('redactRedisUrl', () => {
  it('hides the password only', () => {
    expect(redactRedisUrl('redis://:hunter2@10.0.0.5:6379/1')).toBe('redis://:***@10.0.0.5:6379/1')
    expect(redactRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379')
  })
})
