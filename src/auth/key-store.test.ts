import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hashApiKey } from './api-key.js'
import { InvalidKeyOptionsError } from './key-options.js'
import { KeyNotFoundError, KeyStateError, SqliteKeyStore } from './key-store.js'

const NOW = new Date('2026-03-01T10:00:00Z')

let dir: string
let path: string
const open: SqliteKeyStore[] = []
function openStore(options?: ConstructorParameters<typeof SqliteKeyStore>[1]): SqliteKeyStore {
  const s = new SqliteKeyStore(path, options)
  open.push(s)
  return s
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'key-store-'))
  path = join(dir, 'nested', 'keys.db')
})
afterEach(() => {
  for (const s of open.splice(0)) s.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('SqliteKeyStore: opening', () => {
  it('creates the parent directory, the file and the table, in WAL mode', () => {
    openStore()
    const db = new Database(path, { readonly: true })
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
      const cols = (db.pragma('table_info(api_key)') as { name: string }[]).map((c) => c.name)
      expect(cols).toEqual([
        'id',
        'digest',
        'products',
        'countries',
        'cities',
        'expires',
        'rate_per_minute',
        'status',
        'created_at',
        'prev_digest',
        'prev_until',
        'name',
        'last_used',
        'tile_rate_per_minute',
        'bulk_rows_per_day',
      ])
    } finally {
      db.close()
    }
  })

  it('keeps keys across reopening', async () => {
    const a = openStore()
    const { key, record } = a.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    a.close()
    const b = openStore()
    expect(b.count()).toBe(1)
    expect(b.get(record.id)).toEqual(record)
    expect(await b.verify(key, NOW)).toEqual({ ok: true, key: record })
  })
})

describe('SqliteKeyStore: issue', () => {
  it('stores normalised scopes with defaults', () => {
    const s = openStore()
    const { key, record } = s.issue({
      products: ['parcels', 'plots', 'parcels'],
      countries: ['SOUTH_AFRICA', 'BOTSWANA'],
      cities: { BOTSWANA: [' gaborone ', 'Maun', 'GABORONE'] },
    })
    expect(key).toMatch(/^ldk_[0-9A-Za-z]{8}_[0-9A-Za-z]{32}$/)
    expect(key.slice(4, 12)).toBe(record.id)
    expect(record).toMatchObject({
      products: ['plots', 'parcels'],
      countries: ['BOTSWANA', 'SOUTH_AFRICA'],
      cities: { BOTSWANA: ['GABORONE', 'MAUN'] },
      expires: null,
      ratePerMinute: 60,
      status: 'active',
    })
    expect(Number.isNaN(Date.parse(record.createdAt))).toBe(false)
    expect(s.list().map((r) => r.id)).toEqual([record.id])
  })

  it.each([
    ['no products', { products: [], countries: ['BOTSWANA'] }, /at least one product/],
    ['unknown product', { products: ['tiles'], countries: ['BOTSWANA'] }, /unknown product 'tiles'/],
    ['no countries', { products: ['plots'], countries: [] }, /at least one country/],
    ['unknown country', { products: ['plots'], countries: ['NAMIBIA'] }, /unknown country 'NAMIBIA'/],
    [
      'cities outside countries',
      { products: ['plots'], countries: ['BOTSWANA'], cities: { SOUTH_AFRICA: ['PRETORIA'] } },
      /SOUTH_AFRICA/,
    ],
    ['empty town list', { products: ['plots'], countries: ['BOTSWANA'], cities: { BOTSWANA: [] } }, /empty town list/],
    ['impossible date', { products: ['plots'], countries: ['BOTSWANA'], expires: '2026-02-30' }, /2026-02-30/],
    ['zero rate', { products: ['plots'], countries: ['BOTSWANA'], ratePerMinute: 0 }, /invalid rate 0/],
    ['fractional rate', { products: ['plots'], countries: ['BOTSWANA'], ratePerMinute: 1.5 }, /invalid rate 1.5/],
  ])('rejects %s', (_name, opts, message) => {
    const s = openStore()
    expect(() => s.issue(opts as never)).toThrow(InvalidKeyOptionsError)
    expect(() => s.issue(opts as never)).toThrow(message)
    expect(s.count()).toBe(0)
  })

  it('never writes the raw key or its secret to disk, only the digest', () => {
    const s = openStore()
    const issued = Array.from({ length: 3 }, () => s.issue({ products: ['plots'], countries: ['BOTSWANA'] }).key)
    // Read every file of the store (main file, -wal, -shm) while it is open and after closing.
    const bytes = () => Buffer.concat(readdirSync(join(dir, 'nested')).map((f) => readFileSync(join(dir, 'nested', f))))
    const whileOpen = bytes()
    s.close()
    for (const all of [whileOpen, bytes()]) {
      for (const key of issued) {
        expect(all.includes(hashApiKey(key))).toBe(true) // the search does find what is stored
        expect(all.includes(Buffer.from(key))).toBe(false)
        expect(all.includes(Buffer.from(key.slice(13)))).toBe(false)
      }
    }
  })
})

describe('SqliteKeyStore: verify', () => {
  it('accepts an issued key and returns its record', async () => {
    const s = openStore()
    const { key, record } = s.issue({
      products: ['plots', 'jurisdiction'],
      countries: ['SOUTH_AFRICA'],
      ratePerMinute: 120,
    })
    const r = await s.verify(key, NOW)
    expect(r).toEqual({ ok: true, key: record })
    // Repeated (cached) verification gives the same answer.
    expect(await s.verify(key, NOW)).toEqual(r)
  })

  it('MISSING for undefined or empty, MALFORMED for a bad shape', async () => {
    const s = openStore()
    const { key } = s.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    expect(await s.verify(undefined, NOW)).toEqual({ ok: false, code: 'MISSING' })
    expect(await s.verify('', NOW)).toEqual({ ok: false, code: 'MISSING' })
    expect(await s.verify('secret', NOW)).toEqual({ ok: false, code: 'MALFORMED' })
    expect(await s.verify(` ${key}`, NOW)).toEqual({ ok: false, code: 'MALFORMED' })
    expect(await s.verify(key.slice(0, -1), NOW)).toEqual({ ok: false, code: 'MALFORMED' })
  })

  it('NOT_FOUND for an unknown id or a wrong secret on a real id', async () => {
    const s = openStore()
    const { key } = s.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    const wrongSecret = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A')
    const unknownId = `ldk_${key[4] === 'A' ? 'B' : 'A'}${key.slice(5)}`
    expect(await s.verify(wrongSecret, NOW)).toEqual({ ok: false, code: 'NOT_FOUND' })
    expect(await s.verify(unknownId, NOW)).toEqual({ ok: false, code: 'NOT_FOUND' })
    // The real key still works after the failed attempts (they did not poison the cache).
    expect((await s.verify(key, NOW)).ok).toBe(true)
    // ... and once it has verified (its repeats skip the digest), a wrong secret on its id still fails
    expect((await s.verify(key, NOW)).ok).toBe(true)
    expect(await s.verify(wrongSecret, NOW)).toEqual({ ok: false, code: 'NOT_FOUND' })
    // another key's verified string does not open this id
    const other = s.issue({ products: ['plots'], countries: ['BOTSWANA'] }).key
    expect((await s.verify(other, NOW)).ok).toBe(true)
    const spliced = key.slice(0, 13) + other.slice(13)
    expect(await s.verify(spliced, NOW)).toEqual({ ok: false, code: 'NOT_FOUND' })
  })

  it('SUSPENDED, then ok again after unsuspend', async () => {
    const s = openStore()
    const { key, record } = s.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    expect((await s.verify(key, NOW)).ok).toBe(true) // cached now
    const suspended = s.suspend(record.id)
    expect(suspended.status).toBe('suspended')
    expect(await s.verify(key, NOW)).toEqual({ ok: false, code: 'SUSPENDED', key: suspended })
    expect(s.unsuspend(record.id).status).toBe('active')
    expect(await s.verify(key, NOW)).toMatchObject({ ok: true, key: { status: 'active' } })
  })

  it('REVOKED is final: revoked wins over suspended and expired, and cannot be undone', async () => {
    const s = openStore()
    const { key, record } = s.issue({ products: ['plots'], countries: ['BOTSWANA'], expires: '2026-01-31' })
    s.suspend(record.id)
    const revoked = s.revoke(record.id)
    expect(await s.verify(key, NOW)).toEqual({ ok: false, code: 'REVOKED', key: revoked })
    expect(() => s.unsuspend(record.id)).toThrow(KeyStateError)
    expect(() => s.suspend(record.id)).toThrow(KeyStateError)
    expect(s.get(record.id)?.status).toBe('revoked')
    expect(s.revoke(record.id).status).toBe('revoked') // idempotent
  })

  it('SUSPENDED is reported before EXPIRED', async () => {
    const s = openStore()
    const { key, record } = s.issue({ products: ['plots'], countries: ['BOTSWANA'], expires: '2026-01-31' })
    s.suspend(record.id)
    expect(await s.verify(key, NOW)).toMatchObject({ ok: false, code: 'SUSPENDED' })
  })

  it('expiry is inclusive of the last day in Johannesburg time', async () => {
    const s = openStore()
    const { key, record } = s.issue({ products: ['plots'], countries: ['BOTSWANA'], expires: '2026-03-31' })
    expect((await s.verify(key, new Date('2026-03-31T21:59:00Z'))).ok).toBe(true) // 23:59 SAST
    expect((await s.verify(key, new Date('2026-03-31T21:59:59.999Z'))).ok).toBe(true)
    expect(await s.verify(key, new Date('2026-03-31T22:00:01Z'))).toEqual({
      ok: false,
      code: 'EXPIRED',
      key: record,
      expires: '2026-03-31',
    })
  })

  it('a re-dated key works again; clearing the date removes the term', async () => {
    const s = openStore()
    const { key, record } = s.issue({ products: ['plots'], countries: ['BOTSWANA'], expires: '2026-01-31' })
    expect((await s.verify(key, NOW)).ok).toBe(false)
    expect(s.redate(record.id, '2026-12-31').expires).toBe('2026-12-31')
    expect(await s.verify(key, NOW)).toMatchObject({ ok: true, key: { expires: '2026-12-31' } })
    s.redate(record.id, '2026-02-28')
    expect(await s.verify(key, NOW)).toMatchObject({ ok: false, code: 'EXPIRED', expires: '2026-02-28' })
    expect(s.redate(record.id, null).expires).toBeNull()
    expect((await s.verify(key, new Date('2099-01-01T00:00:00Z'))).ok).toBe(true)
    expect(() => s.redate(record.id, '2026-02-30')).toThrow(InvalidKeyOptionsError)
  })

  it('setRate changes the allowance seen by verify', async () => {
    const s = openStore()
    const { key, record } = s.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    await s.verify(key, NOW)
    expect(s.setRate(record.id, 600).ratePerMinute).toBe(600)
    expect(await s.verify(key, NOW)).toMatchObject({ ok: true, key: { ratePerMinute: 600 } })
    expect(() => s.setRate(record.id, 0)).toThrow(InvalidKeyOptionsError)
    expect(() => s.setRate(record.id, 1_000_001)).toThrow(InvalidKeyOptionsError)
  })

  it('returns frozen records so callers cannot edit the cache', async () => {
    const s = openStore()
    const { key } = s.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    const r = await s.verify(key, NOW)
    if (!r.ok) throw new Error('expected ok')
    expect(() => r.key.products.push('parcels')).toThrow(TypeError)
    expect(() => {
      r.key.status = 'active'
    }).toThrow(TypeError)
    expect(await s.verify(key, NOW)).toMatchObject({ ok: true, key: { products: ['plots'] } })
  })
})

describe('SqliteKeyStore: changes from another process', () => {
  it('a second instance on the same file (the CLI) is seen without reopening, within 250 ms', async () => {
    const server = openStore()
    const cli = openStore()
    const { key, record } = cli.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    expect((await server.verify(key, NOW)).ok).toBe(true) // now cached in the server

    cli.suspend(record.id)
    await new Promise((r) => setTimeout(r, 300))
    expect(await server.verify(key, NOW)).toMatchObject({ ok: false, code: 'SUSPENDED' })

    cli.unsuspend(record.id)
    cli.redate(record.id, '2026-02-01')
    await new Promise((r) => setTimeout(r, 300))
    expect(await server.verify(key, NOW)).toMatchObject({ ok: false, code: 'EXPIRED', expires: '2026-02-01' })
  })

  it('checks data_version at most every recheckMs, then drops the cache', async () => {
    let t = 0
    const server = openStore({ clock: () => t })
    const cli = openStore()
    const { key, record } = cli.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    expect((await server.verify(key, NOW)).ok).toBe(true)
    cli.revoke(record.id)
    t = 100 // inside the 250 ms window: the cached record is still used
    expect((await server.verify(key, NOW)).ok).toBe(true)
    t = 250
    expect(await server.verify(key, NOW)).toMatchObject({ ok: false, code: 'REVOKED' })
  })

  it('a store deleted while open: every key UNAVAILABLE (logged once), then served again once restored (issue #39 item 14)', async () => {
    let t = 0
    const server = openStore({ clock: () => t })
    const { key } = server.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    expect((await server.verify(key, NOW)).ok).toBe(true)
    const backup = join(dir, 'backup.db')
    await server.backup(backup)
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.message)
    process.on('warning', onWarning)
    try {
      for (const f of readdirSync(join(dir, 'nested'))) rmSync(join(dir, 'nested', f))
      t = 300
      expect(await server.verify(key, NOW)).toMatchObject({ ok: false, code: 'UNAVAILABLE' })
      t = 600
      expect(await server.verify(key, NOW)).toMatchObject({ ok: false, code: 'UNAVAILABLE' })
      await new Promise((r) => setImmediate(r))
      expect(warnings.filter((w) => w.includes('was deleted while open'))).toHaveLength(1)
      // the backup put back in place: the store is read again
      const restored = new Database(backup)
      await restored.backup(path)
      restored.close()
      t = 900
      expect((await server.verify(key, NOW)).ok).toBe(true)
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('a key issued by another instance verifies immediately (never negatively cached)', async () => {
    const server = openStore()
    const cli = openStore()
    const { key } = cli.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    expect((await server.verify(key, NOW)).ok).toBe(true)
  })
})

describe('SqliteKeyStore: unknown ids', () => {
  it('every mutation throws KeyNotFoundError', () => {
    const s = openStore()
    for (const f of [
      () => s.suspend('nope1234'),
      () => s.unsuspend('nope1234'),
      () => s.revoke('nope1234'),
      () => s.redate('nope1234', '2026-12-31'),
      () => s.setRate('nope1234', 10),
    ]) {
      expect(f).toThrow(KeyNotFoundError)
      expect(f).toThrow(/nope1234/)
    }
    expect(s.get('nope1234')).toBeNull()
    expect(s.count()).toBe(0)
  })
})

describe('SqliteKeyStore: last used', () => {
  it('marks the Johannesburg day a key verified, never moving it back, and not for a refused key', () => {
    const a = openStore()
    const b = openStore()
    const { key, record } = a.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    expect(a.get(record.id)?.lastUsed).toBeNull()
    // 23:30 UTC on 1 March is 2 March in Johannesburg
    expect(a.verify(key, new Date('2026-03-01T23:30:00Z')).ok).toBe(true)
    expect(b.get(record.id)?.lastUsed).toBe('2026-03-02')
    // another process verifying on an earlier day does not move it back
    expect(b.verify(key, new Date('2026-03-01T08:00:00Z')).ok).toBe(true)
    expect(a.get(record.id)?.lastUsed).toBe('2026-03-02')
    expect(a.verify(key, new Date('2026-03-04T08:00:00Z')).ok).toBe(true)
    expect(b.get(record.id)?.lastUsed).toBe('2026-03-04')
    // a wrong secret or a suspended key is not a use
    const other = a.issue({ products: ['plots'], countries: ['BOTSWANA'] })
    a.suspend(other.record.id)
    expect(a.verify(other.key, new Date('2026-03-05T08:00:00Z')).ok).toBe(false)
    expect(a.verify(`${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`, new Date('2026-03-05T08:00:00Z')).ok).toBe(
      false,
    )
    expect(b.get(other.record.id)?.lastUsed).toBeNull()
    expect(b.get(record.id)?.lastUsed).toBe('2026-03-04')
  })
})
