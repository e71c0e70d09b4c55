import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisServer, startRedis } from '../../test/fixtures/redis-server.js'
import { runKeysCli } from './cli-commands.js'
import { SqliteKeyStore } from './key-store.js'
import { recordKey } from './redis-key-rows.js'

let redis: RedisServer
let admin: Redis
const dir = mkdtempSync(join(tmpdir(), 'keys-cli-redis-'))

async function cli(argv: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await runKeysCli(argv, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`), env })
  return { code, out, err }
}

beforeAll(async () => {
  redis = await startRedis()
  admin = new Redis(redis.url)
})
afterAll(() => {
  admin?.disconnect()
  redis?.kill()
})

describe('keys CLI with REDIS_URL', () => {
  it('init needs no KEYS_DB file; issue, suspend, list and show work on Redis', async () => {
    const env = { REDIS_URL: redis.url, KEYS_DB: join(dir, 'never.db') }
    expect(await cli(['init'], env)).toMatchObject({ code: 0, out: `Key store ${redis.url} ready (0 keys).\n` })
    expect(existsSync(join(dir, 'never.db'))).toBe(false)
    const issued = await cli(['issue', '--products', 'plots', '--countries', 'BOTSWANA', '--json'], env)
    expect(issued.code).toBe(0)
    const { id } = JSON.parse(issued.out)
    expect(await admin.hget(recordKey(id), 'status')).toBe('active')
    expect(await cli(['suspend', '--id', id], env)).toMatchObject({ code: 0, out: expect.stringMatching(/suspended/) })
    expect(await admin.hget(recordKey(id), 'status')).toBe('suspended')
    const list = await cli(['list', '--json'], env)
    expect(JSON.parse(list.out)).toMatchObject([{ id, status: 'suspended' }])
    expect(await cli(['revoke', '--id', 'nokey123'], env)).toMatchObject({ code: 1, err: /no API key/ })
    expect(existsSync(join(dir, 'never.db'))).toBe(false)
  })

  it('issue and update --bulk-rows-per-day store the bulk allowance in Redis; list reads it back', async () => {
    const env = { REDIS_URL: redis.url, KEYS_DB: join(dir, 'never.db') }
    const issued = await cli(
      ['issue', '--products', 'parcels', '--countries', 'SOUTH_AFRICA', '--bulk-rows-per-day', '40000', '--json'],
      env,
    )
    expect(issued.code).toBe(0)
    const { id } = JSON.parse(issued.out)
    expect(await admin.hget(recordKey(id), 'bulk_rows_per_day')).toBe('40000')
    const listed = JSON.parse((await cli(['list', '--json'], env)).out) as { id: string; bulkRowsPerDay: number }[]
    expect(listed.find((k) => k.id === id)).toMatchObject({ bulkRowsPerDay: 40000 })
    expect((await cli(['list'], env)).out).toMatch(/BULK ROWS\/DAY[\s\S]*40000/)
    expect((await cli(['update', '--id', id, '--bulk-rows-per-day', '500'], env)).code).toBe(0)
    expect(await admin.hget(recordKey(id), 'bulk_rows_per_day')).toBe('500')
    expect((await cli(['update', '--id', id, '--bulk-rows-per-day', 'default'], env)).code).toBe(0)
    expect(await admin.hexists(recordKey(id), 'bulk_rows_per_day')).toBe(0)
  })

  it('migrate --from copies a SQLite store, reporting how many; again, none', async () => {
    const db = join(dir, 'keys.db')
    const s = new SqliteKeyStore(db)
    s.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    s.issue({ products: ['parcels'], countries: ['SOUTH_AFRICA'] })
    s.close()
    await admin.flushall()
    const env = { REDIS_URL: redis.url }
    expect(await cli(['migrate', '--from', db], env)).toMatchObject({
      code: 0,
      out: `Copied 2 of 2 keys from ${db} into ${redis.url}.\n`,
    })
    expect((await cli(['migrate', '--from', db], env)).out).toMatch(/Copied 0 of 2 keys .*\(2 already there/)
    expect(await cli(['migrate', '--from', join(dir, 'none.db')], env)).toMatchObject({
      code: 1,
      err: /does not exist/,
    })
  })

  it('refuses what does not apply: migrate without REDIS_URL, backup with it, a bad URL; an unreachable Redis is exit 1', async () => {
    expect(await cli(['migrate', '--from', 'x.db'], { KEYS_DB: join(dir, 'other.db') })).toMatchObject({
      code: 2,
      err: /set REDIS_URL/,
    })
    expect(await cli(['backup', join(dir, 'b.db')], { REDIS_URL: redis.url })).toMatchObject({
      code: 2,
      err: /backup works on the SQLite store/,
    })
    expect(await cli(['list'], { REDIS_URL: 'http://x' })).toMatchObject({
      code: 2,
      err: /REDIS_URL: unsupported scheme/,
    })
    const t = Date.now()
    expect(await cli(['list'], { REDIS_URL: 'redis://127.0.0.1:1' })).toMatchObject({
      code: 1,
      err: /cannot reach the key store at redis:\/\/127.0.0.1:1: redis: connect ECONNREFUSED/,
    })
    expect(Date.now() - t).toBeLessThan(2000)
  })
})
