import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { ApiKeyRecord } from '../auth/types.js'
import type { AppEnv } from './env.js'
import { AnswerTags, type BuildIdentity, noneMatch } from './etag.js'
import { reply } from './reply.js'

const key: ApiKeyRecord = {
  id: 'k1',
  products: ['plots'],
  countries: ['BOTSWANA'],
  cities: {},
  expires: null,
  ratePerMinute: 60,
  tileRatePerMinute: null,
  bulkRowsPerDay: null,
  status: 'active',
  createdAt: '2026-01-01T00:00:00Z',
  name: null,
  lastUsed: null,
}

function appOver(served: () => BuildIdentity) {
  const tags = new AnswerTags(served)
  const app = new Hono<AppEnv>()
  app.get('/x', (c) => {
    c.set('apiKey', key)
    return tags.check(c, 'GET') ?? reply(c, '{}', 200, 'application/json')
  })
  return app
}

describe('AnswerTags', () => {
  it('changes the tag with the build: its digest, else its dataset versions', async () => {
    let build: BuildIdentity = { manifest: { build_digest: 'a'.repeat(64), domains: {} } }
    const app = appOver(() => build)
    const tag = async () => (await app.request('/x?q=1')).headers.get('ETag')
    const first = await tag()
    expect(await tag()).toBe(first)
    build = { manifest: { build_digest: 'b'.repeat(64), domains: {} } }
    const second = await tag()
    expect(second).not.toBe(first)
    build = { manifest: { domains: { plots: { dataset_version: 'v1' } } } }
    const third = await tag()
    build = { manifest: { domains: { plots: { dataset_version: 'v2' } } } }
    expect(await tag()).not.toBe(third)
    expect(new Set([first, second, third]).size).toBe(3)
  })

  it('ignores the host, not the query', async () => {
    const build = { manifest: { build_digest: 'a'.repeat(64), domains: {} } }
    const app = appOver(() => build)
    const tag = async (url: string) => (await app.request(url)).headers.get('ETag')
    expect(await tag('http://a.example/x?q=1')).toBe(await tag('http://b.example:8080/x?q=1'))
    expect(await tag('http://a.example/x?q=1')).not.toBe(await tag('http://a.example/x?q=2'))
  })
})

describe('noneMatch', () => {
  it('matches the tag alone, in a list, weak, coded, or *', () => {
    const t = '"0123456789abcdef"'
    expect(noneMatch(t, t)).toBe(t)
    expect(noneMatch(`"x", ${t}`, t)).toBe(t)
    expect(noneMatch(`W/${t}`, t)).toBe(t)
    expect(noneMatch('*', t)).toBe(t)
    expect(noneMatch('"0123456789abcdef-br"', t)).toBe('"0123456789abcdef-br"')
    expect(noneMatch('"x", W/"0123456789abcdef-gzip"', t)).toBe('"0123456789abcdef-gzip"')
    expect(noneMatch('"0123456789abcdef-zstd"', t)).toBeNull()
    expect(noneMatch('"0123456789abcdee"', t)).toBeNull()
    expect(noneMatch('0123456789abcdef', t)).toBeNull()
    expect(noneMatch('', t)).toBeNull()
  })

  it('reads quoted tags, so a tag may hold a comma', () => {
    const t = '"v1:erf,street"'
    expect(noneMatch(t, t)).toBe(t)
    expect(noneMatch(`"a,b", W/${t}`, t)).toBe(t)
    expect(noneMatch('"v1:erf,street-gzip"', t)).toBe('"v1:erf,street-gzip"')
    expect(noneMatch('"v1:erf", "street"', t)).toBeNull()
    expect(noneMatch('"v1:erf,street', t)).toBeNull()
  })
})
