import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { json, makeTestApp } from './helpers.js'
import { spawnServer } from './fixtures/server-process.js'

describe('rate limit through HTTP', () => {
  let now = 1_700_000_000_000
  const t = makeTestApp({ clock: () => now })

  it('sends well-formed headers on every authenticated answer, errors included', async () => {
    const { key } = t.issue({ ratePerMinute: 60 })
    const ok = await t.get('/api/v1/cities', key)
    expect(ok.headers.get('RateLimit-Policy')).toBe('60;w=60')
    expect(ok.headers.get('RateLimit')).toBe('limit=60, remaining=59, reset=60')
    const bad = await t.get('/api/v1/plots/reverse?latitude=x&longitude=1', key)
    expect(bad.status).toBe(400)
    expect(bad.headers.get('RateLimit')).toBe('limit=60, remaining=58, reset=60')
  })

  it('refuses the N+1st request with 429, Retry-After and the envelope; the window refills', async () => {
    const { key } = t.issue({ ratePerMinute: 3 })
    for (let i = 0; i < 3; i++) expect((await t.get('/api/v1/cities', key)).status).toBe(200)
    now += 20_000
    const res = await t.get('/api/v1/cities', key)
    expect(res.status).toBe(429)
    expect(res.headers.get('Retry-After')).toBe('40')
    expect(res.headers.get('RateLimit')).toBe('limit=3, remaining=0, reset=40')
    expect((await json(res)).error).toBe('RateLimitExceeded')
    now += 40_000
    expect((await t.get('/api/v1/cities', key)).status).toBe(200)
  })

  it('never announces reset or Retry-After beyond the 60 s window, even from a clock behind the window', async () => {
    const { key } = t.issue({ ratePerMinute: 1 })
    const opened = now
    expect((await t.get('/api/v1/cities', key)).headers.get('RateLimit')).toBe('limit=1, remaining=0, reset=60')
    // the next request is stamped 5 s before the one that opened the window (as a worker whose
    // clock is behind can stamp it): the window still ends at opened + 60 s
    now = opened - 5_000
    const res = await t.get('/api/v1/cities', key)
    expect(res.status).toBe(429)
    expect(res.headers.get('RateLimit')).toBe('limit=1, remaining=0, reset=60')
    expect(res.headers.get('Retry-After')).toBe('60')
    now = opened + 60_000
  })

  it('shares one allowance across products', async () => {
    const { key } = t.issue({ ratePerMinute: 2 })
    expect((await t.get('/api/v1/cities', key)).status).toBe(200)
    expect((await t.get('/api/v1/parcels/at?latitude=-34.9045&longitude=17.0015', key)).status).toBe(200)
    expect((await t.get('/api/v1/cities', key)).status).toBe(429)
  })
})

describe('rate limit with two worker processes', () => {
  it('allows exactly N requests for a key whichever worker answers', async () => {
    const p = await spawnServer({}, 2, ['plots'], 'cluster', { countries: ['BOTSWANA'], ratePerMinute: 25 })
    const { child, port, key, keyId: id, keysDb } = p
    try {
      // fresh connections in parallel, so the cluster spreads them over both workers
      const statuses = await Promise.all(
        Array.from({ length: 60 }, () =>
          fetch(`http://127.0.0.1:${port}/api/v1/cities`, { headers: { 'X-API-KEY': key, Connection: 'close' } }).then(
            (r) => r.status,
          ),
        ),
      )
      expect(statuses.filter((s) => s === 200).length).toBe(25)
      expect(statuses.filter((s) => s === 429).length).toBe(35)
      await new Promise((r) => setTimeout(r, 200))
      // both workers answered, by their access-log lines
      const answered = new Set(
        p
          .output()
          .split('\n')
          .filter((l) => l.includes('"status"'))
          .map((l) => JSON.parse(l).pid),
      )
      expect(answered.size).toBe(2)

      // a suspension made with the keys CLI (another process) reaches both workers within 2 s
      const suspended = spawnSync(process.execPath, ['dist/keys.js', 'suspend', '--id', id], {
        env: { ...process.env, KEYS_DB: keysDb },
        encoding: 'utf8',
      })
      expect(suspended.status, suspended.stderr).toBe(0)
      const since = Date.now()
      const seen = new Set<string>()
      while (Date.now() - since < 2000 && seen.size < 1) {
        const codes = await Promise.all(
          Array.from({ length: 6 }, () =>
            fetch(`http://127.0.0.1:${port}/api/v1/cities`, {
              headers: { 'X-API-KEY': key, Connection: 'close' },
            }).then(async (r) => ((await r.json()) as { error?: string }).error),
          ),
        )
        if (codes.every((c) => c === 'ApiKeySuspended')) seen.add('all')
        else await new Promise((r) => setTimeout(r, 50))
      }
      expect(seen.has('all')).toBe(true)
    } finally {
      child.kill('SIGTERM')
    }
  })
})

describe('the tile allowance', () => {
  let now = 1_700_000_000_000
  const TILE = '/api/v1/parcels/tiles/14/8967/10167.mvt'
  const TILEJSON = '/api/v1/parcels/tiles.json'

  it('counts tiles and TileJSON apart from the key requests, against the key tile allowance', async () => {
    const t = makeTestApp({ clock: () => now, tileRatePerMinute: 1000 })
    const { key } = t.issue({ ratePerMinute: 2, tileRatePerMinute: 3 })
    // three tile-family requests: the key's 2 requests a minute are not touched
    for (const path of [TILE, TILEJSON, TILE]) {
      const res = await t.get(path, key)
      expect([200, 204], path).toContain(res.status)
      expect(res.headers.get('RateLimit-Policy')).toBe('3;w=60')
    }
    const refused = await t.get(TILE, key)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('Retry-After')).toBe('60')
    const body = await json(refused)
    expect(body.error).toBe('RateLimitExceeded')
    expect(body.message).toBe('tile allowance of 3 requests per minute reached; retry in 60 s')
    expect((await t.get(TILEJSON, key)).status).toBe(429)
    // the key's own allowance is whole, and spending it leaves the tiles as they were
    expect((await t.get('/api/v1/cities', key)).headers.get('RateLimit')).toBe('limit=2, remaining=1, reset=60')
    expect((await t.get('/api/v1/cities', key)).status).toBe(200)
    expect((await t.get('/api/v1/cities', key)).status).toBe(429)
    now += 60_000
    expect((await t.get(TILE, key)).headers.get('RateLimit')).toBe('limit=3, remaining=2, reset=60')
  })

  it("a key without one has the server's TILE_RATE_PER_MINUTE", async () => {
    const t = makeTestApp({ clock: () => now, tileRatePerMinute: 2 })
    const { key } = t.issue({ ratePerMinute: 100, tileRatePerMinute: null })
    expect((await t.get(TILE, key)).headers.get('RateLimit')).toBe('limit=2, remaining=1, reset=60')
    expect([200, 204]).toContain((await t.get(TILE, key)).status)
    expect((await t.get(TILE, key)).status).toBe(429)
    expect((await t.get('/api/v1/cities', key)).status).toBe(200)
  })

  it('names each allowance in the draft-11 headers when RATE_LIMIT_HEADERS=draft-11', async () => {
    const t = makeTestApp({ clock: () => now, tileRatePerMinute: 50, rateLimitHeaders: 'draft-11' })
    const { key } = t.issue({ ratePerMinute: 60, tileRatePerMinute: null })
    const tile = await t.get(TILE, key)
    expect(tile.headers.get('RateLimit-Policy')).toBe('"tiles";q=50;w=60')
    expect(tile.headers.get('RateLimit')).toBe('"tiles";r=49;t=60')
    const other = await t.get('/api/v1/cities', key)
    expect(other.headers.get('RateLimit-Policy')).toBe('"default";q=60;w=60')
    expect(other.headers.get('RateLimit')).toBe('"default";r=59;t=60')
  })
})
