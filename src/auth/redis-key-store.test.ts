import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type RedisServer, startRedis } from '../../test/fixtures/redis-server.js'
import { RedisLink } from '../redis/connection.js'
import { hashApiKey } from './api-key.js'
import { migrateKeys, openRedisKeyStore } from './cli-store.js'
import { SqliteKeyStore } from './key-store.js'
import { KEYS_VERSION, recordKey } from './redis-key-rows.js'
import type { RedisKeyStore } from './redis-key-store.js'
import { RedisKeyVerifier } from './redis-key-verifier.js'
import type { VerifyResult } from './types.js'

let redis: RedisServer
let admin: Redis
let store: RedisKeyStore
const open: { close(): void }[] = []

function verifier(pollMs = 1000): { v: RedisKeyVerifier; link: RedisLink } {
  const link = new RedisLink(redis.url, { timeoutMs: 250, name: 'test' })
  const v = new RedisKeyVerifier(link, link.duplicate('test-sub'), { pollMs })
  open.push(v, link)
  return { v, link }
}

async function until(f: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const t = Date.now()
  while (!(await f())) {
    if (Date.now() - t > ms) throw new Error(`not within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
  return Date.now() - t
}

const NOW = Date.parse('2026-11-27T12:00:00Z')
/** a VerifyResult's code, 'OK' when it verified */
const code = async (v: RedisKeyVerifier, key: string) => {
  const r = await v.verify(key, NOW)
  return r.ok ? 'OK' : r.code
}

beforeAll(async () => {
  redis = await startRedis()
  admin = new Redis(redis.url)
})
beforeEach(async () => {
  await admin.flushall()
  store = await openRedisKeyStore(redis.url)
  open.push(store)
})
afterEach(() => {
  for (const o of open.splice(0)) o.close()
})
afterAll(() => {
  admin?.disconnect()
  redis?.kill()
})

declare module './types.js' {
  interface Never {}
}
// a VerifyResult's code, 'OK' when it verified
declare global {
  interface Object {}
}
;(Object.prototype as unknown as Record<string, unknown>).constructor

describe('RedisKeyStore with RedisKeyVerifier', () => {
  it('issues a key kept only as its digest; it verifies, the second time from the cache', async () => {
    const { key, record } = await store.issue({ products: ['plots'], countries: ['BOTSWANA'], ratePerMinute: 7 })
    const h = await admin.hgetall(recordKey(record.id))
    expect(h.digest).toBe(hashApiKey(key).toString('hex'))
    expect(JSON.stringify(h)).not.toContain(key.split('_')[2])
    const { v, link } = verifier()
    await link.ready(5000)
    const first = v.verify(key, NOW)
    expect(first).toBeInstanceOf(Promise)
    expect(await first).toMatchObject({ ok: true, key: { id: record.id, ratePerMinute: 7 } })
    const second = v.verify(key, NOW) as VerifyResult
    expect(second).not.toBeInstanceOf(Promise)
    expect(second.ok).toBe(true)
    expect(await v.verify(`${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`, NOW)).toMatchObject({
      ok: false,
      code: 'NOT_FOUND',
    })
    expect(await v.verify('ldk_nothere1_0123456789abcdef0123456789abcdef', NOW)).toMatchObject({ code: 'NOT_FOUND' })
    expect(await v.verify('nope', NOW)).toMatchObject({ code: 'MALFORMED' })
    // the use is recorded, once per day
    await until(async () => (await store.get(record.id))?.lastUsed === '2026-11-27', 2000)
  })

  it('a change from the CLI reaches a running verifier through pub/sub, well within 2 s', async () => {
    const { key, record } = await store.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    const { v, link } = verifier(60_000) // no polling: the message alone
    await link.ready(5000)
    await v.poll()
    expect(await code(v, key)).toBe('OK')
    await store.suspend(record.id)
    expect(await until(async () => (await code(v, key)) === 'SUSPENDED', 2000)).toBeLessThan(2000)
    await store.unsuspend(record.id)
    await until(async () => (await code(v, key)) === 'OK', 2000)
    const rotated = await store.rotate(record.id, 0, '2026-11-27')
    await until(async () => (await code(v, key)) === 'NOT_FOUND', 2000)
    expect(await code(v, rotated.key)).toBe('OK')
    await store.delete(record.id)
    await until(async () => (await code(v, rotated.key)) === 'NOT_FOUND', 2000)
  })

  it('a change whose message is missed is seen by the version poll within about a second', async () => {
    const { key, record } = await store.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    const { v, link } = verifier(1000)
    await link.ready(5000)
    await v.poll()
    expect(await code(v, key)).toBe('OK')
    // written behind the store's back: no message, only the version moves
    await admin.hset(recordKey(record.id), 'status', 'revoked')
    await admin.incr(KEYS_VERSION)
    expect(await until(async () => (await code(v, key)) === 'REVOKED', 2000)).toBeLessThan(1600)
  })

  it('keeps the SQLite store’s rules: revoked stays revoked, update, redate, set-rate, list order', async () => {
    const a = await store.issue({ products: ['plots'], countries: ['BOTSWANA'], name: 'first' })
    const b = await store.issue({ products: ['parcels'], countries: ['SOUTH_AFRICA'] })
    await store.revoke(a.record.id)
    await expect(store.unsuspend(a.record.id)).rejects.toThrow(/revoked; a revoked key cannot be reinstated/)
    await expect(store.suspend('nokey123')).rejects.toThrow(/no API key with id 'nokey123'/)
    const u = await store.update(b.record.id, {
      countries: ['SOUTH_AFRICA', 'BOTSWANA'],
      cities: { BOTSWANA: ['gaborone'] },
    })
    expect(u).toMatchObject({ countries: ['BOTSWANA', 'SOUTH_AFRICA'], cities: { BOTSWANA: ['GABORONE'] } })
    expect((await store.redate(b.record.id, '2027-01-31')).expires).toBe('2027-01-31')
    expect((await store.setRate(b.record.id, 120)).ratePerMinute).toBe(120)
    // the tile allowance: kept, read back, cleared back to the server's default
    expect(b.record.tileRatePerMinute).toBeNull()
    expect((await store.update(b.record.id, { tileRatePerMinute: 900 })).tileRatePerMinute).toBe(900)
    expect((await store.get(b.record.id))?.tileRatePerMinute).toBe(900)
    expect((await store.update(b.record.id, { tileRatePerMinute: null })).tileRatePerMinute).toBeNull()
    // the bulk allowance likewise (JOBS_ROWS_PER_DAY when cleared)
    expect(b.record.bulkRowsPerDay).toBeNull()
    expect((await store.update(b.record.id, { bulkRowsPerDay: 25_000 })).bulkRowsPerDay).toBe(25_000)
    expect((await store.get(b.record.id))?.bulkRowsPerDay).toBe(25_000)
    expect((await store.list()).find((k) => k.id === b.record.id)?.bulkRowsPerDay).toBe(25_000)
    expect((await store.update(b.record.id, { bulkRowsPerDay: null })).bulkRowsPerDay).toBeNull()
    expect((await store.get(b.record.id))?.bulkRowsPerDay).toBeNull()
    const oldestFirst = [a.record, b.record].sort((x, y) =>
      x.createdAt !== y.createdAt ? (x.createdAt < y.createdAt ? -1 : 1) : x.id < y.id ? -1 : 1,
    )
    expect((await store.list()).map((k) => k.id)).toEqual(oldestFirst.map((k) => k.id))
    expect(await store.count()).toBe(2)
  })

  it('migrate copies an embedded store’s digests, and adds nothing the second time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-'))
    const sqlite = new SqliteKeyStore(join(dir, 'keys.db'))
    const one = sqlite.issue({ products: ['plots'], countries: ['BOTSWANA'], name: 'Acme' })
    const two = sqlite.issue({ products: ['parcels'], countries: ['SOUTH_AFRICA'] })
    sqlite.suspend(two.record.id)
    sqlite.close()
    expect(await migrateKeys(join(dir, 'keys.db'), store)).toEqual({ total: 2, added: 2, present: 0 })
    expect(await migrateKeys(join(dir, 'keys.db'), store)).toEqual({ total: 2, added: 0, present: 2 })
    expect(await store.get(one.record.id)).toMatchObject({ name: 'Acme', status: 'active' })
    const { v, link } = verifier()
    await link.ready(5000)
    expect(await code(v, one.key)).toBe('OK')
    expect(await code(v, two.key)).toBe('SUSPENDED')
  })

  it('Redis down: a cached key still verifies, an unseen one is UNAVAILABLE (never a 401); recovers', async () => {
    const seen = await store.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    const unseen = await store.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    const { v, link } = verifier()
    await link.ready(5000)
    expect(await code(v, seen.key)).toBe('OK')
    await redis.stop()
    await until(() => link.reason() !== null, 2000)
    expect(await code(v, seen.key)).toBe('OK')
    expect(await v.verify(unseen.key, NOW)).toMatchObject({ ok: false, code: 'UNAVAILABLE' })
    await redis.start()
    // the server came back empty: what was there is gone, and the verifier follows
    const again = await openRedisKeyStore(redis.url)
    open.push(again)
    await link.ready(5000)
    expect(await code(v, unseen.key)).toBe('NOT_FOUND')
  })
})
