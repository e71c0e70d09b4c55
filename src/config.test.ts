import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { loadConfig } from './config.js'

describe('loadConfig', () => {
  it('defaults SQLITE_MMAP_MB to as much as SQLite maps, and takes 0 (no mapping)', () => {
    expect(loadConfig({}).SQLITE_MMAP_MB).toBe(2048)
    expect(loadConfig({ SQLITE_MMAP_MB: '0' }).SQLITE_MMAP_MB).toBe(0)
    expect(loadConfig({ SQLITE_MMAP_MB: '' }).SQLITE_MMAP_MB).toBe(2048)
  })

  it('maps the index files unless INDEX_MMAP is 0', () => {
    expect(loadConfig({}).INDEX_MMAP).toBe(true)
    expect(loadConfig({ INDEX_MMAP: '1' }).INDEX_MMAP).toBe(true)
    expect(loadConfig({ INDEX_MMAP: '0' }).INDEX_MMAP).toBe(false)
    expect(() => loadConfig({ INDEX_MMAP: 'yes' })).toThrow(/invalid configuration: INDEX_MMAP: /)
  })

  it('reads CORS_ORIGINS as a list of bare origins, none by default', () => {
    expect(loadConfig({}).CORS_ORIGINS).toEqual([])
    expect(loadConfig({ CORS_ORIGINS: ' https://app.example , http://localhost:3000,' }).CORS_ORIGINS).toEqual([
      'https://app.example',
      'http://localhost:3000',
    ])
    for (const bad of ['https://app.example/', '*', 'app.example', 'https://app.example/x'])
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(
        /invalid configuration: CORS_ORIGINS: .* is not an origin/,
      )
  })

  it('stops the start on a bad value, naming every bad setting', () => {
    expect(() => loadConfig({ SQLITE_MMAP_MB: '4096' })).toThrow(/invalid configuration: SQLITE_MMAP_MB: /)
    expect(() => loadConfig({ SQLITE_MMAP_MB: 'lots', WORKERS: '0' })).toThrow(
      /WORKERS: .*; SQLITE_MMAP_MB: |SQLITE_MMAP_MB: .*; WORKERS: /,
    )
    expect(() => loadConfig({ SQLITE_MMAP_MB: '-1' })).toThrow(/SQLITE_MMAP_MB/)
  })

  it('gives slow clients seconds, not minutes: headers 10 s, the whole request 30 s', () => {
    expect(loadConfig({})).toMatchObject({ HEADERS_TIMEOUT_MS: 10_000, REQUEST_TIMEOUT_MS: 30_000 })
    expect(loadConfig({ HEADERS_TIMEOUT_MS: '500', REQUEST_TIMEOUT_MS: '1000' })).toMatchObject({
      HEADERS_TIMEOUT_MS: 500,
      REQUEST_TIMEOUT_MS: 1000,
    })
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' })).toThrow(/REQUEST_TIMEOUT_MS: /)
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: 'soon' })).toThrow(/HEADERS_TIMEOUT_MS: /)
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '5000' })).toThrow(
      /HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS \(5000\)/,
    )
  })

  it('hashes the dataset in the background unless VERIFY_ON_START says quick, full or off', () => {
    expect(loadConfig({}).VERIFY_ON_START).toBe('background')
    for (const mode of ['quick', 'full', 'background', 'off'] as const)
      expect(loadConfig({ VERIFY_ON_START: mode }).VERIFY_ON_START).toBe(mode)
    expect(() => loadConfig({ VERIFY_ON_START: 'yes' })).toThrow(/invalid configuration: VERIFY_ON_START: /)
  })
})

describe('METRICS_PORT', () => {
  it('is off unless set; a port alone listens on loopback, a host:port where named', () => {
    expect(loadConfig({}).METRICS_PORT).toBeUndefined()
    expect(loadConfig({ METRICS_PORT: '' }).METRICS_PORT).toBeUndefined()
    expect(loadConfig({ METRICS_PORT: '9464' }).METRICS_PORT).toEqual({ host: '127.0.0.1', port: 9464 })
    expect(loadConfig({ METRICS_PORT: '0.0.0.0:9464' }).METRICS_PORT).toEqual({ host: '0.0.0.0', port: 9464 })
    expect(loadConfig({ METRICS_PORT: '[::1]:9464' }).METRICS_PORT).toEqual({ host: '::1', port: 9464 })
  })

  it('stops the start on anything else', () => {
    for (const bad of ['metrics', '70000', 'host:', ':9464', '::1:9464'])
      expect(() => loadConfig({ METRICS_PORT: bad }), bad).toThrow(/invalid configuration: METRICS_PORT: /)
  })
})

describe('REDIS_URL', () => {
  it('is off unless set; takes redis:// and rediss:// URLs, a timeout and the failure mode', () => {
    expect(loadConfig({})).toMatchObject({
      REDIS_URL: undefined,
      REDIS_TIMEOUT_MS: 250,
      RATE_LIMIT_ON_STORE_ERROR: 'closed',
    })
    expect(
      loadConfig({ REDIS_URL: 'redis://10.0.0.5:6379/1', REDIS_TIMEOUT_MS: '500', RATE_LIMIT_ON_STORE_ERROR: 'open' }),
    ).toMatchObject({ REDIS_URL: 'redis://10.0.0.5:6379/1', REDIS_TIMEOUT_MS: 500, RATE_LIMIT_ON_STORE_ERROR: 'open' })
  })

  it('stops the start with one line naming a bad REDIS_URL, timeout or mode', () => {
    expect(() => loadConfig({ REDIS_URL: 'http://10.0.0.5:6379' })).toThrow(
      /^invalid configuration: REDIS_URL: unsupported scheme 'http:'/,
    )
    expect(() => loadConfig({ REDIS_URL: '10.0.0.5:6379' })).toThrow(/invalid configuration: REDIS_URL: /)
    expect(() => loadConfig({ REDIS_TIMEOUT_MS: '0' })).toThrow(/invalid configuration: REDIS_TIMEOUT_MS: /)
    expect(() => loadConfig({ RATE_LIMIT_ON_STORE_ERROR: 'ignore' })).toThrow(
      /invalid configuration: RATE_LIMIT_ON_STORE_ERROR: /,
    )
  })
  it('answers job rows on a thread per 4 cores (at least one), each working half its time, unless told', () => {
    const { JOBS_THREADS, JOBS_CPU_SHARE } = loadConfig({})
    expect(JOBS_THREADS).toBe(Math.max(1, Math.floor(availableParallelism() / 4)))
    expect(JOBS_CPU_SHARE).toBe(0.5)
    expect(loadConfig({ JOBS_THREADS: '3', JOBS_CPU_SHARE: '0.25' })).toMatchObject({
      JOBS_THREADS: 3,
      JOBS_CPU_SHARE: 0.25,
    })
    expect(() => loadConfig({ JOBS_THREADS: '0' })).toThrow(/invalid configuration: JOBS_THREADS: /)
    expect(() => loadConfig({ JOBS_CPU_SHARE: '0.05' })).toThrow(/invalid configuration: JOBS_CPU_SHARE: /)
    expect(() => loadConfig({ JOBS_CPU_SHARE: '1.5' })).toThrow(/invalid configuration: JOBS_CPU_SHARE: /)
  })
})
