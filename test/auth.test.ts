import { describe, expect, inject, it } from 'vitest'
import { runKeysCli } from '../src/auth/cli-commands.js'
import { json, makeTestApp } from './helpers.js'

const CITIES = '/api/v1/cities'

async function cli(keysDb: string, ...argv: string[]) {
  let out = ''
  let err = ''
  const code = await runKeysCli(argv, {
    out: (s) => (out += s + '\n'),
    err: (s) => (err += s + '\n'),
    env: { KEYS_DB: keysDb },
  })
  return { code, out, err }
}

describe('401 codes', () => {
  const t = makeTestApp()

  it('ApiKeyMissing without the header', async () => {
    const res = await t.get(CITIES)
    expect(res.status).toBe(401)
    expect((await json(res)).error).toBe('ApiKeyMissing')
  })

  it('ApiKeyInvalid for a malformed key and for a well-formed unknown one', async () => {
    for (const key of ['hello', 'ldk_AAAAAAAA_' + 'B'.repeat(32)]) {
      const res = await t.get(CITIES, key)
      expect(res.status).toBe(401)
      const body = await json(res)
      expect(body.error).toBe('ApiKeyInvalid')
      expect(JSON.stringify(body)).not.toContain(key)
    }
  })

  it('ApiKeySuspended for a suspended and for a revoked key', async () => {
    const a = t.issue()
    t.keys.suspend(a.record.id)
    expect((await json(await t.get(CITIES, a.key))).error).toBe('ApiKeySuspended')
    const b = t.issue()
    t.keys.revoke(b.record.id)
    const res = await t.get(CITIES, b.key)
    expect(res.status).toBe(401)
    const body = await json(res)
    expect(body.error).toBe('ApiKeySuspended')
    expect(body.message).toContain('revoked')
  })

  it('ApiKeyExpired names the date the term ended', async () => {
    const { key, record } = t.issue({ expires: '2099-01-01' })
    t.keys.redate(record.id, '2020-02-29')
    const res = await t.get(CITIES, key)
    expect(res.status).toBe(401)
    const body = await json(res)
    expect(body.error).toBe('ApiKeyExpired')
    expect(body.message).toContain('2020-02-29')
  })

  it('sends no rate-limit headers on a 401 (no key to count against)', async () => {
    expect((await t.get(CITIES)).headers.get('RateLimit')).toBeNull()
  })
})

describe('403 codes', () => {
  const t = makeTestApp()

  it('ProductNotPermitted for a key without the product', async () => {
    const { key } = t.issue({ products: ['parcels'] })
    const res = await t.get(CITIES, key)
    expect(res.status).toBe(403)
    expect((await json(res)).error).toBe('ProductNotPermitted')
    const parcelsOnly = t.issue({ products: ['plots'] })
    expect((await json(await t.get('/api/v1/parcels/at?latitude=-26&longitude=28', parcelsOnly.key))).error).toBe(
      'ProductNotPermitted',
    )
  })

  it('CountryNotPermitted for a country outside the key, on plots and on the South-Africa-only services', async () => {
    const { key } = t.issue({ countries: ['BOTSWANA'] })
    const res = await t.get('/api/v1/plots/reverse?latitude=-26&longitude=28&country=south_africa', key)
    expect(res.status).toBe(403)
    expect((await json(res)).error).toBe('CountryNotPermitted')
    for (const p of ['/api/v1/parcels/at', '/api/v1/encumbrances/at', '/api/v1/jurisdiction/at']) {
      expect((await json(await t.get(p, key))).error, p).toBe('CountryNotPermitted')
    }
  })

  it('CityNotPermitted for a town outside a town-scoped key', async () => {
    const { key } = t.issue({ countries: ['BOTSWANA'], cities: { BOTSWANA: ['GABORONE'] } })
    const res = await t.get('/api/v1/plots/1?city=maun', key)
    expect(res.status).toBe(403)
    expect((await json(res)).error).toBe('CityNotPermitted')
    expect((await t.get('/api/v1/plots/1?city=gaborone', key)).status).toBe(200)
  })
})

describe('503 for a domain missing from the dataset', () => {
  // a dataset built from the plot layers only
  const t = makeTestApp({ datasetDir: inject('plotsOnlyDatasetDir') })
  const { key } = t.issue()
  it.each([
    ['/api/v1/parcels/at?latitude=-26&longitude=28', 'ParcelDataUnavailable'],
    ['/api/v1/encumbrances/parcel/T0JR00000000000100000', 'EncumbranceDataUnavailable'],
    ['/api/v1/jurisdiction/at?lat=-26&lon=28', 'JurisdictionDataUnavailable'],
  ])('%s answers %s', async (path, code) => {
    const res = await t.get(path, key)
    expect(res.status).toBe(503)
    expect((await json(res)).error).toBe(code)
    expect(res.headers.get('RateLimit')).toMatch(/^limit=\d+, remaining=\d+, reset=\d+$/)
  })
})

describe('key lifecycle through the CLI, seen by the running app without a restart', () => {
  const t = makeTestApp({ keyRecheckMs: 0 })

  it(
    'issue -> works; suspend -> 401; unsuspend -> works; set-rate -> new policy; redate past -> expired; revoke ' +
      '-> 401',
    async () => {
      const issued = await cli(t.keysDb, 'issue', '--products', 'plots', '--countries', 'BOTSWANA', '--json')
      expect(issued.code).toBe(0)
      const { key, id } = JSON.parse(issued.out.trim())
      expect((await t.get(CITIES, key)).status).toBe(200)

      expect((await cli(t.keysDb, 'suspend', '--id', id)).code).toBe(0)
      expect((await json(await t.get(CITIES, key))).error).toBe('ApiKeySuspended')
      expect((await cli(t.keysDb, 'unsuspend', '--id', id)).code).toBe(0)
      expect((await t.get(CITIES, key)).status).toBe(200)

      expect((await cli(t.keysDb, 'set-rate', '--id', id, '--rate', '7')).code).toBe(0)
      expect((await t.get(CITIES, key)).headers.get('RateLimit-Policy')).toBe('7;w=60')

      expect((await cli(t.keysDb, 'redate', '--id', id, '--expires', '2021-06-30')).code).toBe(0)
      expect((await json(await t.get(CITIES, key))).message).toContain('2021-06-30')
      expect((await cli(t.keysDb, 'redate', '--id', id, '--expires', 'none')).code).toBe(0)
      expect((await t.get(CITIES, key)).status).toBe(200)

      expect((await cli(t.keysDb, 'revoke', '--id', id)).code).toBe(0)
      expect((await json(await t.get(CITIES, key))).error).toBe('ApiKeySuspended')
      const list = await cli(t.keysDb, 'list', '--json')
      expect(JSON.parse(list.out).find((k: { id: string }) => k.id === id).status).toBe('revoked')
      expect(list.out).not.toContain(key)
    },
  )
})
