import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runKeysCli } from './cli-commands.js'
import { SqliteKeyStore } from './key-store.js'
import type { ApiKeyRecord } from './types.js'

const NOW = new Date('2026-03-01T10:00:00Z')

let dir: string
let db: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keys-cli-'))
  db = join(dir, 'data', 'keys.db')
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const code = await runKeysCli(argv, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    env: { KEYS_DB: db },
    now: NOW,
  })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

async function withStore<T>(f: (s: SqliteKeyStore) => T | Promise<T>): Promise<T> {
  const s = new SqliteKeyStore(db)
  try {
    return await f(s)
  } finally {
    s.close()
  }
}

async function issueJson(...extra: string[]): Promise<{ key: string; id: string }> {
  const r = await run('issue', '--products', 'plots,parcels', '--countries', 'BOTSWANA', '--json', ...extra)
  expect(r).toMatchObject({ code: 0, err: '' })
  return JSON.parse(r.out) as { key: string; id: string }
}

describe('keys issue', () => {
  it('--json prints exactly one line {key,id} and the key verifies', async () => {
    const r = await run('issue', '--products', 'plots,parcels', '--countries', 'BOTSWANA', '--json')
    expect(r.code).toBe(0)
    expect(r.out.split('\n')).toHaveLength(1)
    const parsed = JSON.parse(r.out) as Record<string, string>
    expect(Object.keys(parsed)).toEqual(['key', 'id'])
    expect(parsed.key).toMatch(new RegExp(`^ldk_${parsed.id}_[0-9A-Za-z]{32}$`))
    const v = await withStore((s) => s.verify(parsed.key, NOW))
    expect(v).toMatchObject({
      ok: true,
      key: { id: parsed.id, products: ['plots', 'parcels'], countries: ['BOTSWANA'], ratePerMinute: 60, expires: null },
    })
  })

  it('human output shows the key once, its id and scopes, and a shown-once warning', async () => {
    const r = await run(
      'issue',
      '--products',
      'jurisdiction',
      '--countries',
      'south_africa',
      '--expires',
      '2026-12-31',
      '--rate',
      '120',
    )
    expect(r.code).toBe(0)
    const key = /ldk_[0-9A-Za-z]{8}_[0-9A-Za-z]{32}/.exec(r.out)?.[0]
    expect(key).toBeDefined()
    expect(r.out.split(key!).length - 1).toBe(1)
    expect(r.out).toMatch(/shown ONCE/)
    expect(r.out).toContain(`id:         ${key!.slice(4, 12)}`)
    expect(r.out).toMatch(/products:\s+jurisdiction/)
    expect(r.out).toMatch(/countries:\s+SOUTH_AFRICA/)
    expect(r.out).toMatch(/expires:\s+2026-12-31/)
    expect(r.out).toMatch(/rate:\s+120\/min/)
  })

  it('accepts values case-insensitively and resolves CITY and COUNTRY:CITY', async () => {
    const r = await run(
      'issue',
      '--products',
      'PLOTS,Encumbrance',
      '--countries',
      'botswana,South_Africa',
      '--cities',
      'gaborone,south_africa:pretoria,BOTSWANA:maun',
      '--json',
    )
    expect(r.code).toBe(0)
    const rec = await withStore((s) => s.get((JSON.parse(r.out) as { id: string }).id))
    expect(rec).toMatchObject({
      products: ['plots', 'encumbrance'],
      countries: ['BOTSWANA', 'SOUTH_AFRICA'],
      cities: { BOTSWANA: ['GABORONE', 'MAUN'], SOUTH_AFRICA: ['GABORONE', 'PRETORIA'] },
    })
  })

  it('creates the store at KEYS_DB, including missing directories', async () => {
    expect(existsSync(db)).toBe(false)
    await issueJson()
    expect(existsSync(db)).toBe(true)
    expect(await withStore((s) => s.count())).toBe(1)
  })
})

describe('keys list', () => {
  it('prints a table of every key without the keys themselves', async () => {
    const a = await issueJson()
    const b = await issueJson(
      '--cities',
      'MAUN',
      '--expires',
      '2026-03-05',
      '--rate',
      '7',
      '--name',
      ' Acme   Conveyancers ',
    )
    // a is used on the CLI's day (a verified request marks it), b never
    await withStore((s) => expect(s.verify(a.key, NOW).ok).toBe(true))
    expect((await run('redate', '--id', b.id, '--expires', '2026-02-01')).code).toBe(0)
    const r = await run('list')
    expect(r.code).toBe(0)
    const lines = r.out.split('\n')
    expect(lines[0].split(/\s{2,}/)).toEqual([
      'ID',
      'NAME',
      'STATUS',
      'PRODUCTS',
      'COUNTRIES',
      'CITIES',
      'EXPIRES',
      'RATE/MIN',
      'BULK ROWS/DAY',
      'LAST USED',
    ])
    expect(lines).toHaveLength(3)
    expect(lines.find((l) => l.startsWith(a.id))?.split(/\s{2,}/)).toEqual([
      a.id,
      '-',
      'active',
      'plots,parcels',
      'BOTSWANA',
      'all',
      'never',
      '60',
      'default',
      '2026-03-01',
    ])
    expect(lines.find((l) => l.startsWith(b.id))?.split(/\s{2,}/)).toEqual([
      b.id,
      'Acme Conveyancers',
      'active',
      'plots,parcels',
      'BOTSWANA',
      'BOTSWANA:MAUN',
      '2026-02-01 (expired)',
      '7',
      'default',
      'never',
    ])
    expect(r.out).not.toContain(a.key)
    expect(r.out).not.toContain(b.key.slice(13))
  })

  it('update sets and clears a name, the key unchanged; a bad name is a usage error', async () => {
    const a = await issueJson()
    expect((await run('update', '--id', a.id, '--name', 'Project Alpha')).code).toBe(0)
    await withStore((s) => expect(s.get(a.id)).toMatchObject({ name: 'Project Alpha', products: ['plots', 'parcels'] }))
    expect((await run('update', '--id', a.id, '--no-name')).code).toBe(0)
    await withStore((s) => {
      expect(s.get(a.id)?.name).toBeNull()
      expect(s.verify(a.key, NOW).ok).toBe(true)
    })
    expect(await run('update', '--id', a.id, '--name', 'x'.repeat(101))).toMatchObject({
      code: 2,
      err: expect.stringContaining('at most 100 characters'),
    })
    expect(await run('update', '--id', a.id, '--name', 'a', '--no-name')).toMatchObject({ code: 2 })
  })

  it('--json prints an array of records', async () => {
    const a = await issueJson()
    const r = await run('list', '--json')
    expect(r.code).toBe(0)
    const arr = JSON.parse(r.out) as ApiKeyRecord[]
    expect(arr).toHaveLength(1)
    expect(arr[0]).toMatchObject({
      id: a.id,
      status: 'active',
      products: ['plots', 'parcels'],
      countries: ['BOTSWANA'],
      cities: {},
    })
    expect(r.out).not.toContain(a.key.slice(13))
  })

  it('says so when there are no keys', async () => {
    expect(await run('list')).toMatchObject({ code: 0, out: 'No API keys.' })
  })
})

describe('keys changes', () => {
  it('suspend / unsuspend / revoke change the status and verify result', async () => {
    const { key, id } = await issueJson()
    const status = () => withStore(async (s) => [s.get(id)?.status, (await s.verify(key, NOW)).ok ? 'ok' : 'no'])

    const r1 = await run('suspend', '--id', id)
    expect(r1.code).toBe(0)
    expect(r1.out).toContain(`API key ${id} suspended`)
    expect(await status()).toEqual(['suspended', 'no'])

    expect((await run('unsuspend', '--id', id)).code).toBe(0)
    expect(await status()).toEqual(['active', 'ok'])

    const r3 = await run('revoke', `--id=${id}`, '--json')
    expect(r3.code).toBe(0)
    expect(JSON.parse(r3.out)).toMatchObject({ id, status: 'revoked' })
    expect(await status()).toEqual(['revoked', 'no'])

    const r4 = await run('unsuspend', '--id', id)
    expect(r4.code).toBe(1)
    expect(r4.err).toMatch(/revoked.*cannot be reinstated/)
    expect(await status()).toEqual(['revoked', 'no'])
    expect(r1.out + r3.out + r4.err).not.toContain(key.slice(13))
  })

  it('redate sets and clears the term', async () => {
    const { key, id } = await issueJson('--expires', '2026-03-05')
    expect((await run('redate', '--id', id, '--expires', '2026-02-01')).code).toBe(0)
    expect(await withStore((s) => s.verify(key, NOW))).toMatchObject({
      ok: false,
      code: 'EXPIRED',
      expires: '2026-02-01',
    })
    const r = await run('redate', '--id', id, '--expires', 'none')
    expect(r.code).toBe(0)
    expect(r.out).toContain('no longer expires')
    expect(await withStore((s) => s.get(id)?.expires)).toBeNull()
  })

  it('set-rate changes the allowance', async () => {
    const { id } = await issueJson()
    const r = await run('set-rate', '--id', id, '--rate', '1000000')
    expect(r.code).toBe(0)
    expect(await withStore((s) => s.get(id)?.ratePerMinute)).toBe(1_000_000)
  })

  it('--tile-rate sets a tile allowance at issue, update changes and clears it; bad values are usage errors', async () => {
    await run('init')
    const issued = await run('issue', '--products', 'plots', '--countries', 'BOTSWANA', '--tile-rate', '5000', '--json')
    expect(issued.code, issued.err).toBe(0)
    const { id } = JSON.parse(issued.out) as { id: string }
    expect(await withStore((s) => s.get(id)?.tileRatePerMinute)).toBe(5000)
    expect((await run('update', '--id', id, '--tile-rate', '300')).code).toBe(0)
    expect(await withStore((s) => s.get(id)?.tileRatePerMinute)).toBe(300)
    const shown = await run('update', '--id', id, '--tile-rate', 'default')
    expect(shown.out).toMatch(/tile rate:\s+server default/)
    expect(await withStore((s) => s.get(id)?.tileRatePerMinute)).toBeNull()
    for (const bad of ['0', '1000001', '12.5', 'lots']) {
      const r = await run('update', '--id', id, '--tile-rate', bad)
      expect(r.code, bad).toBe(2)
      expect(r.err).toContain(`invalid --tile-rate '${bad}'`)
    }
    // issued without the flag: the server's default
    const plain = JSON.parse((await run('issue', '--products', 'plots', '--countries', 'BOTSWANA', '--json')).out)
    expect(await withStore((s) => s.get(plain.id)?.tileRatePerMinute)).toBeNull()
  })

  it('--bulk-rows-per-day sets a bulk allowance at issue, update changes and clears it, list shows it', async () => {
    await run('init')
    const issued = await run(
      'issue',
      '--products',
      'plots',
      '--countries',
      'BOTSWANA',
      '--bulk-rows-per-day',
      '250000',
      '--json',
    )
    expect(issued.code, issued.err).toBe(0)
    const { id } = JSON.parse(issued.out) as { id: string }
    expect(await withStore((s) => s.get(id)?.bulkRowsPerDay)).toBe(250_000)
    expect((await run('list')).out.split('\n')[1]!.split(/\s{2,}/)).toContain('250000')
    const shown = await run('update', '--id', id, '--bulk-rows-per-day', '5000')
    expect(shown.out).toMatch(/bulk rows:\s+5000\/day/)
    expect(await withStore((s) => s.get(id)?.bulkRowsPerDay)).toBe(5000)
    expect((await run('update', '--id', id, '--bulk-rows-per-day', 'default')).code).toBe(0)
    expect(await withStore((s) => s.get(id)?.bulkRowsPerDay)).toBeNull()
    for (const bad of ['0', '1000000001', '1.5', 'many']) {
      const r = await run('update', '--id', id, '--bulk-rows-per-day', bad)
      expect(r.code, bad).toBe(2)
      expect(r.err).toContain(`invalid --bulk-rows-per-day '${bad}'`)
    }
  })

  it.each([['suspend'], ['unsuspend'], ['revoke']])('%s of an unknown id exits 1', async (cmd) => {
    await issueJson()
    const r = await run(cmd, '--id', 'Zz9Zz9Zz')
    expect(r.code).toBe(1)
    expect(r.err).toContain("no API key with id 'Zz9Zz9Zz'")
  })

  it('redate and set-rate of an unknown id exit 1', async () => {
    expect(await run('redate', '--id', 'Zz9Zz9Zz', '--expires', '2026-12-31')).toMatchObject({
      code: 1,
      err: expect.stringContaining('Zz9Zz9Zz'),
    })
    expect(await run('set-rate', '--id', 'Zz9Zz9Zz', '--rate', '5')).toMatchObject({
      code: 1,
      err: expect.stringContaining('Zz9Zz9Zz'),
    })
  })
})

describe('keys update, delete and backup', () => {
  it('update adds products and countries, sets towns and rate, the same key still verifying with them', async () => {
    const { id, key } = await issueJson('--cities', 'Gaborone')
    const r = await run(
      'update',
      '--id',
      id,
      '--products',
      'plots,parcels,encumbrance',
      '--countries',
      'BOTSWANA,SOUTH_AFRICA',
      '--rate',
      '120',
    )
    expect(r).toMatchObject({ code: 0, err: '' })
    expect(r.out).toContain(`API key ${id} updated; the key itself is unchanged.`)
    const after = await withStore((s) => s.get(id)!)
    expect(after).toMatchObject({
      products: ['plots', 'parcels', 'encumbrance'],
      countries: ['BOTSWANA', 'SOUTH_AFRICA'],
      cities: { BOTSWANA: ['GABORONE'] },
      ratePerMinute: 120,
    })
    const v = await withStore((s) => s.verify(key, NOW))
    expect(v.ok && v.key.products).toContain('encumbrance')
    // towns of a country the key no longer covers are dropped; new towns read against the new countries
    expect(await run('update', '--id', id, '--countries', 'SOUTH_AFRICA', '--cities', 'Soweto')).toMatchObject({
      code: 0,
    })
    expect(await withStore((s) => s.get(id)!.cities)).toEqual({ SOUTH_AFRICA: ['SOWETO'] })
  })

  it('update needs a change, valid values and a known id', async () => {
    const { id } = await issueJson()
    expect(await run('update', '--id', id)).toMatchObject({ code: 2, err: expect.stringMatching(/at least one of/) })
    expect(await run('update', '--id', id, '--products', 'gold')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/gold/),
    })
    expect(await run('update', '--id', 'Zz9Zz9Zz', '--rate', '5')).toMatchObject({
      code: 1,
      err: expect.stringContaining('Zz9Zz9Zz'),
    })
    expect(await withStore((s) => s.get(id)!.products)).toEqual(['plots', 'parcels'])
  })

  it('rotate gives a new secret for the same id and grants; the old one works through the overlap only', async () => {
    const { id, key: old } = await issueJson()
    const r = await run('rotate', '--id', id, '--overlap-days', '7', '--json')
    expect(r).toMatchObject({ code: 0, err: '' })
    const { key, id: same } = JSON.parse(r.out)
    expect(same).toBe(id)
    expect(key).not.toBe(old)
    expect(key.startsWith(`ldk_${id}_`)).toBe(true)
    const verify = (k: string, day: string) => withStore((s) => s.verify(k, new Date(`${day}T12:00:00+02:00`)).ok)
    // NOW is 2026-03-01: the old secret works through 2026-03-08, the new one from now on
    expect(await verify(key, '2026-03-01')).toBe(true)
    expect(await verify(old, '2026-03-08')).toBe(true)
    expect(await verify(old, '2026-03-09')).toBe(false)
    expect(await verify(key, '2026-03-09')).toBe(true)
    expect(await withStore((s) => s.get(id)!.products)).toEqual(['plots', 'parcels'])
  })

  it('rotate without an overlap stops the old secret at once, even in a store that had verified it', async () => {
    const { id, key: old } = await issueJson()
    await withStore(async (s) => {
      expect(s.verify(old, NOW).ok).toBe(true) // cached as verified in this store
      const { key } = s.rotate(id, 0, '2026-03-01')
      expect(s.verify(old, NOW).ok).toBe(false)
      expect(s.verify(key, NOW).ok).toBe(true)
    })
    expect(await run('rotate', '--id', id, '--overlap-days', '91')).toMatchObject({ code: 2 })
    expect(await run('rotate', '--id', 'Zz9Zz9Zz')).toMatchObject({ code: 1, err: expect.stringContaining('Zz9Zz9Zz') })
    await run('revoke', '--id', id)
    expect(await run('rotate', '--id', id)).toMatchObject({ code: 1, err: expect.stringMatching(/revoked/) })
  })

  it('opens a store made before rotation existed, adding its columns in place', async () => {
    const Database = (await import('better-sqlite3')).default
    mkdirSync(join(dir, 'data'), { recursive: true })
    const old = new Database(db)
    old.exec(`CREATE TABLE api_key (id TEXT PRIMARY KEY, digest BLOB NOT NULL CHECK (length(digest) = 32),
      products TEXT NOT NULL, countries TEXT NOT NULL, cities TEXT NOT NULL DEFAULT '{}', expires TEXT NULL,
      rate_per_minute INTEGER NOT NULL DEFAULT 60, status TEXT NOT NULL DEFAULT 'active', created_at TEXT NOT NULL)`)
    old.close()
    const { id, key } = await issueJson()
    const r = await run('rotate', '--id', id, '--json')
    expect(r.code).toBe(0)
    expect(await withStore((s) => [s.verify(key, NOW).ok, s.verify(JSON.parse(r.out).key, NOW).ok])).toEqual([
      false,
      true,
    ])
  })

  it('delete removes the key for good: it no longer verifies or lists; an unknown id exits 1', async () => {
    const { id, key } = await issueJson()
    const other = await issueJson()
    expect(await run('delete', '--id', id, '--json')).toMatchObject({
      code: 0,
      out: JSON.stringify({ id, deleted: true }),
    })
    expect(await withStore((s) => s.get(id))).toBeNull()
    expect((await withStore((s) => s.verify(key, NOW))).ok).toBe(false)
    expect(await withStore((s) => s.list().map((k) => k.id))).toEqual([other.id])
    expect(await run('delete', '--id', id)).toMatchObject({ code: 1, err: expect.stringContaining(id) })
  })

  it('backup copies the store while it is open elsewhere; the copy verifies the same keys', async () => {
    const { key } = await issueJson()
    const copy = join(dir, 'backups', 'keys-copy.db')
    const open = new SqliteKeyStore(db) // as a running server holds it
    try {
      const r = await run('backup', copy)
      expect(r).toMatchObject({ code: 0, out: `Key store copied to ${copy} (1 keys).` })
    } finally {
      open.close()
    }
    const restored = new SqliteKeyStore(copy)
    try {
      expect(restored.verify(key, NOW).ok).toBe(true)
    } finally {
      restored.close()
    }
    expect(await run('backup', copy)).toMatchObject({ code: 2, err: expect.stringMatching(/already exists/) })
    expect(await run('backup')).toMatchObject({ code: 2, err: expect.stringMatching(/keys backup FILE/) })
  })
})

describe('keys usage errors (exit 2, nothing written)', () => {
  const ISSUE = ['issue', '--products', 'plots', '--countries', 'BOTSWANA']
  it.each([
    [['frob'], /unknown command 'frob'/],
    [[], /no command given/],
    [['list', '--verbose'], /unknown option '--verbose'/],
    [
      ['issue', '--prodcts', 'plots', '--countries', 'BOTSWANA'],
      /unknown option '--prodcts'. Did you mean '--products'\?/,
    ],
    [['isue', '--products', 'plots'], /unknown command 'isue'. Did you mean 'issue'\?/],
    [['list', 'extra'], /unexpected argument 'extra'/],
    [['issue', '--countries', 'BOTSWANA'], /missing required flag '--products'/],
    [['issue', '--products', 'plots'], /missing required flag '--countries'/],
    [['issue', '--products', '--countries', 'BOTSWANA'], /'--products' needs a value/],
    [[...ISSUE, '--countries', 'BOTSWANA'], /'--countries' given more than once/],
    [['issue', '--products', 'plots,tiles', '--countries', 'BOTSWANA'], /unknown product 'tiles'/],
    [['issue', '--products', 'plots,,parcels', '--countries', 'BOTSWANA'], /empty entry in --products/],
    [['issue', '--products', 'plots', '--countries', 'NAMIBIA'], /unknown country 'NAMIBIA'/],
    [[...ISSUE, '--cities', 'SOUTH_AFRICA:PRETORIA'], /names SOUTH_AFRICA, which is not in --countries/],
    [[...ISSUE, '--cities', 'ATLANTIS:MAUN'], /unknown country 'ATLANTIS'/],
    [[...ISSUE, '--cities', 'BOTSWANA:'], /empty city name/],
    [[...ISSUE, '--expires', '2026-02-30'], /invalid --expires '2026-02-30'/],
    [[...ISSUE, '--expires', '31/12/2026'], /invalid --expires '31\/12\/2026'/],
    [[...ISSUE, '--expires', '2026-02-28'], /already in the past/],
    [[...ISSUE, '--rate', '0'], /invalid --rate '0'/],
    [[...ISSUE, '--rate', '1.5'], /invalid --rate '1.5'/],
    [[...ISSUE, '--rate', '1000001'], /invalid --rate '1000001'/],
    [[...ISSUE, '--rate', 'fast'], /invalid --rate 'fast'/],
    [[...ISSUE, '--json=yes'], /'--json' takes no value/],
    [['suspend'], /missing required flag '--id'/],
    [['revoke', '--id', 'ab/cd'], /invalid --id 'ab\/cd'/],
    [['redate', '--id', 'abc'], /missing required flag '--expires'/],
    [['redate', '--id', 'abc', '--expires', '2026-13-01'], /invalid --expires '2026-13-01'/],
    [['set-rate', '--id', 'abc'], /missing required flag '--rate'/],
    [['set-rate', '--id', 'abc', '--rate', '-5'], /'--rate' needs a value|invalid --rate/],
  ])('%j', async (argv, message) => {
    const r = await run(...(argv as string[]))
    expect(r.code).toBe(2)
    expect(r.err).toMatch(message)
    expect(r.out).toBe('')
    expect(existsSync(db)).toBe(false)
  })

  it.each([[['help']], [['--help']], [['-h']]])('%j prints usage and exits 0', async (argv) => {
    const r = await run(...argv)
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^Usage: keys <command>/)
    for (const cmd of ['issue', 'list', 'suspend', 'unsuspend', 'revoke', 'redate', 'set-rate'])
      expect(r.out).toContain(`  ${cmd} `)
    expect(r.err).toBe('')
  })

  it.each([[['issue', '--help']], [['help', 'issue']], [['issue', '--products', 'x', '-h']]])(
    '%j prints the issue command help (its flags, not the command list) and exits 0',
    async (argv) => {
      const r = await run(...argv)
      expect(r).toMatchObject({ code: 0, err: '' })
      expect(r.out).toMatch(/^Usage: keys issue --products LIST --countries LIST \[options\]/)
      for (const flag of ['--products', '--countries', '--cities', '--expires', '--rate', '--name', '--json'])
        expect(r.out).toContain(flag)
      expect(r.out).not.toContain('set-rate')
      expect(existsSync(db)).toBe(false)
    },
  )

  it('--version prints the package name and version', async () => {
    for (const argv of [['--version'], ['-V'], ['list', '--version']])
      expect(await run(...argv)).toMatchObject({ code: 0, out: expect.stringMatching(/^landdata-api \d+\.\d+\.\d+$/) })
  })
})

describe('keys init and restore', () => {
  it('init creates the store once and says so; a second init keeps it', async () => {
    expect(existsSync(db)).toBe(false)
    expect(await run('init')).toMatchObject({ code: 0, out: `Key store ${db} created.` })
    expect(existsSync(db)).toBe(true)
    await issueJson()
    expect(await run('init')).toMatchObject({ code: 0, out: `Key store ${db} already exists (1 keys).` })
  })

  it('restore puts a backup back through SQLite, seen at once by a store already open on the file', async () => {
    const a = await issueJson()
    const backup = join(dir, 'backup.db')
    expect((await run('backup', backup)).code).toBe(0)
    const b = await issueJson()
    const open = new SqliteKeyStore(db, { recheckMs: 0 })
    try {
      expect(open.verify(b.key, NOW).ok).toBe(true)
      expect(await run('restore', backup)).toMatchObject({ code: 0, out: expect.stringContaining('(1 keys; 1 in') })
      // the open store (a running server) reads the restored keys: b is gone, a still works
      expect(open.verify(b.key, NOW).ok).toBe(false)
      expect(open.verify(a.key, NOW).ok).toBe(true)
    } finally {
      open.close()
    }
    expect(await run('restore', join(dir, 'none.db'))).toMatchObject({
      code: 2,
      err: expect.stringMatching(/does not exist/),
    })
  })
})
