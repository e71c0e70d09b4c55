/**
 * `GET /map` and its files over HTTP (docs/map.md): served without a key, the page under a
 * Content-Security-Policy of this origin only, every file it loads served (module imports
 * included) under a versioned path cached for a year, compressed when asked, 304 on a match,
 * a stale version or unknown file 404; nothing in the page names another origin; the map is
 * not part of the OpenAPI document. The browser test (map.browser.test.ts) renders it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliDecompressSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { MAP_CSP } from '../src/features/map/routes.js'
import { makeTestApp } from './helpers.js'

const PAGE_DIR = 'src/features/map/page'

describe('GET /map', () => {
  const { app } = makeTestApp()

  it('serves the page without a key, under a CSP of this origin only, revalidated on every load', async () => {
    const res = await app.request('/map')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    expect(res.headers.get('etag')).toMatch(/^"[\w-]+"$/)
    const csp = res.headers.get('content-security-policy')
    expect(csp).toBe(MAP_CSP)
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("worker-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).not.toMatch(/unsafe|blob:|https?:/)
    const html = await res.text()
    expect(html).not.toContain('{{ASSETS}}')
    expect(html).toMatch(/src="\/map\/assets\/[\w-]+\/maplibre-gl-csp\.js"/)
    expect(html).toMatch(/src="\/map\/assets\/[\w-]+\/main\.js"/)
    const again = await app.request('/map', { headers: { 'If-None-Match': res.headers.get('etag')! } })
    expect(again.status).toBe(304)
  })

  it('serves every file the page loads, module imports included, cached for a year; nothing names another origin', async () => {
    const html = await (await app.request('/map')).text()
    const wanted = [...html.matchAll(/(?:src|href)="(\/map\/assets\/[^"]+)"/g)].map((m) => m[1])
    const base = wanted[0].slice(0, wanted[0].lastIndexOf('/'))
    // the ES modules' relative imports, the worker and the basemap outlines the scripts name
    for (const file of readdirSync(PAGE_DIR)) {
      const text = readFileSync(join(PAGE_DIR, file), 'utf8')
      expect(text, file).not.toMatch(/https?:\/\/(?!localhost)/)
      for (const m of text.matchAll(/from '\.\/([\w-]+\.js)'/g)) wanted.push(`${base}/${m[1]}`)
    }
    wanted.push(`${base}/maplibre-gl-csp-worker.js`, `${base}/countries.geojson`)
    const types: Record<string, string> = {
      js: 'text/javascript; charset=utf-8',
      css: 'text/css; charset=utf-8',
      geojson: 'application/geo+json',
    }
    for (const path of new Set(wanted)) {
      const res = await app.request(path)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(res.headers.get('content-type')).toBe(types[path.slice(path.lastIndexOf('.') + 1)])
      await res.arrayBuffer()
    }
    const countries: any = await (await app.request(`${base}/countries.geojson`)).json()
    expect(countries.features.map((f: any) => f.properties.iso_a3)).toEqual(expect.arrayContaining(['ZAF', 'BWA']))
  })

  it('compresses a file when asked and answers 304 to its tag; a stale version or unknown file is a 404', async () => {
    const html = await (await app.request('/map')).text()
    const lib = /src="(\/map\/assets\/[\w-]+\/maplibre-gl-csp\.js)"/.exec(html)![1]
    const plain = await app.request(lib)
    const body = Buffer.from(await plain.arrayBuffer())
    expect(body.byteLength).toBeGreaterThan(500_000)
    const br = await app.request(lib, { headers: { 'Accept-Encoding': 'gzip, br' } })
    expect(br.headers.get('content-encoding')).toBe('br')
    expect(br.headers.get('vary')).toContain('Accept-Encoding')
    const coded = Buffer.from(await br.arrayBuffer())
    expect(coded.byteLength).toBeLessThan(body.byteLength / 3)
    expect(brotliDecompressSync(coded).equals(body)).toBe(true)
    expect(br.headers.get('etag')).toBe(`${plain.headers.get('etag')!.slice(0, -1)}-br"`)
    const again = await app.request(lib, {
      headers: { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.get('etag')! },
    })
    expect(again.status).toBe(304)
    const stale = await app.request(lib.replace(/assets\/[\w-]+\//, 'assets/old-version/'))
    expect(stale.status).toBe(404)
    expect(((await stale.json()) as any).error).toBe('NotFound')
    const unknown = await app.request(lib.replace('maplibre-gl-csp.js', 'package.json'))
    expect(unknown.status).toBe(404)
  })

  it('is not part of the API surface: no key asked, not in the OpenAPI document', async () => {
    const doc: any = await (await app.request('/api/v1/openapi.json')).json()
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/map'))).toEqual([])
    expect((await app.request('/map', { headers: { 'X-API-KEY': 'nonsense' } })).status).toBe(200)
  })
})
