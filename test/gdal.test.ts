/**
 * GDAL (so QGIS, which opens GeoJSON through it) reads the parcel GeoJSON pages over HTTP
 * (docs/api.md "GeoJSON output", "Reading the pages with GDAL or QGIS"): `ogrinfo` from Debian's
 * gdal-bin (`bash .ci/run` installs it when missing) on a real socket, the key sent with
 * GDAL_HTTP_HEADERS. GDAL's GeoJSON driver reads one document and does not follow `links`
 * (checked below: a page reads as its own features only), so the pages are read as a GIS user
 * reads them, one URL after the other along `rel: next`, and together they must hold every
 * parcel of the box once, each with its LPI as the feature's `id`. GDAL's OAPIF driver does follow
 * them: through the OGC API - Features facade (docs/api.md "OGC API - Features (GDAL, QGIS)") it
 * reads a whole collection, page after page, by itself.
 */
import { execFile, execFileSync } from 'node:child_process'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { Server } from 'node:http'
import { promisify } from 'node:util'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { createHttpServer } from '../src/http/node-server.js'
import { json, makeTestApp } from './helpers.js'

type Json = Record<string, any>

const run = promisify(execFile)
const t = makeTestApp()
const { key } = t.issue()
const BOX = '17.0005,-34.9095,17.0045,-34.9025'

let base = ''
let server: Server
beforeAll(async () => {
  try {
    execFileSync('ogrinfo', ['--version'])
  } catch {
    throw new Error('ogrinfo is missing: install the Debian package gdal-bin (bash .ci/run installs it)')
  }
  const config = loadConfig({})
  const limits = { headersTimeoutMs: config.HEADERS_TIMEOUT_MS, requestTimeoutMs: config.REQUEST_TIMEOUT_MS }
  server = createHttpServer(t.app.fetch, pino({ level: 'silent' }), limits, '127.0.0.1')
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** A GDAL feature as ogrinfo prints it: its FID and its fields. */
interface OgrFeature {
  fid: number
  fields: Record<string, { type: string; value: string }>
}

/**
 * `ogrinfo -ro -al` of a URL, with the key (`args` before the URL, the `layer` after): the
 * layer's feature count, fields and features.
 */
async function ogrinfo(
  url: string,
  apiKey = key,
  args: string[] = [],
  layer?: string,
): Promise<{ count: number; schema: string[]; features: OgrFeature[] }> {
  const { stdout } = await run('ogrinfo', ['-ro', '-al', ...args, url, ...(layer ? [layer] : [])], {
    env: { ...process.env, GDAL_HTTP_HEADERS: `X-API-KEY: ${apiKey}`, CPL_DEBUG: 'OFF' },
    maxBuffer: 64 * 1024 * 1024,
  })
  const count = Number(/^Feature Count: (\d+)$/m.exec(stdout)?.[1] ?? Number.NaN)
  const schema = [...stdout.matchAll(/^(\w+): (\w+(?:\(\w+\))?) \(\d+\.\d+\)$/gm)].map((m) => `${m[1]}: ${m[2]}`)
  const features: OgrFeature[] = []
  for (const block of stdout.split(/^OGRFeature\(/m).slice(1)) {
    const fid = Number(/^[^)]*\):(-?\d+)/.exec(block)?.[1])
    const fields: OgrFeature['fields'] = {}
    for (const m of block.matchAll(/^ {2}(\w+) \((\w+(?:\(\w+\))?)\) = (.*)$/gm))
      fields[m[1]] = { type: m[2], value: m[3] }
    features.push({ fid, fields })
  }
  return { count, schema, features }
}

describe('GDAL reads the parcel GeoJSON pages', () => {
  it('reads a page whole: every parcel with its LPI as id, the fields flat', async () => {
    const url = `${base}/api/v1/parcels/within?bbox=${BOX}&limit=2&format=geojson`
    const page = await json(await fetch(url, { headers: { 'X-API-KEY': key } }))
    const { count, schema, features } = await ogrinfo(url)
    // the GeoJSON driver reads this page only: it does not follow links
    expect(count).toBe(page.numberReturned)
    expect(features.map((f) => f.fields.id)).toEqual(
      page.features.map((f: { id: string }) => ({ type: 'String', value: f.id })),
    )
    // flat fields, each its own column; no JSON text column, no integer id in place of the LPI
    expect(schema).toContain('record_id: Integer')
    expect(schema).toContain('legal_status_code: String')
    expect(schema).toContain('label_point_latitude: Real')
    expect(schema.filter((s) => s.includes('JSON'))).toEqual([])
    expect(features[0].fields.lpi.value).toBe(features[0].fields.id.value)
  })

  it('reads every parcel of the box once, page after page along rel=next, with its LPI', async () => {
    const all = await json(
      await fetch(`${base}/api/v1/parcels/within?bbox=${BOX}&limit=500`, { headers: { 'X-API-KEY': key } }),
    )
    expect(all.next_cursor).toBeUndefined()
    const lpis: string[] = all.parcels.map((p: { lpi: string }) => p.lpi)
    expect(lpis.length).toBeGreaterThan(4)

    const read: string[] = []
    let url: string | undefined = `${base}/api/v1/parcels/within?bbox=${BOX}&limit=2&format=geojson`
    let pages = 0
    while (url) {
      const { count, features } = await ogrinfo(url)
      expect(count).toBe(features.length)
      read.push(...features.map((f) => f.fields.id.value))
      // the next page's URL is the page's own link (GDAL keeps no foreign member)
      const page: Json = await json(await fetch(url, { headers: { 'X-API-KEY': key } }))
      url = page.links.find((l: { rel: string }) => l.rel === 'next')?.href
      if (url) expect(url.startsWith(`${base}/api/v1/parcels/within?`)).toBe(true)
      pages++
    }
    expect(pages).toBe(Math.ceil(lpis.length / 2))
    expect(read).toEqual(lpis)
  })

  it('is refused without the key: GDAL sent it only because GDAL_HTTP_HEADERS did', async () => {
    const url = `${base}/api/v1/parcels/within?bbox=${BOX}&limit=2&format=geojson`
    await expect(ogrinfo(url, 'lk_wrong')).rejects.toThrow()
  })
})

describe('GDAL reads a whole collection through the OGC API - Features facade (OAPIF)', () => {
  // several pages for each collection (GDAL asks for `limit` this size)
  const SIZE = 100
  const PAGE = ['-oo', `PAGE_SIZE=${SIZE}`]

  it('lists the collections', async () => {
    const { stdout } = await run('ogrinfo', ['-ro', '-so', `OAPIF:${base}/api/v1/ogc`], {
      env: { ...process.env, GDAL_HTTP_HEADERS: `X-API-KEY: ${key}`, CPL_DEBUG: 'OFF' },
    })
    expect(stdout).toMatch(/^1: parcels \(title: Parcels \(South Africa\)\) \(Multi Polygon\)$/m)
    expect(stdout).toMatch(/^2: encumbrances\b/m)
  })

  it('reads every parcel once, page after page, with its LPI as the id', async () => {
    // the reference, read from the dataset itself: every LPI with a visible version
    const db = new Database(join(inject('datasetDir'), 'parcels', 'parcels.sqlite'), { readonly: true })
    const lpis = (db.prepare('SELECT DISTINCT lpi FROM parcel WHERE hidden = 0').pluck().all() as string[]).sort()
    db.close()
    expect(lpis.length).toBeGreaterThan(SIZE * 3)
    const { count, features } = await ogrinfo(`OAPIF:${base}/api/v1/ogc`, key, PAGE, 'parcels')
    const ids = features.map((f) => f.fields.id.value)
    expect(count).toBe(lpis.length)
    expect(features.length).toBe(lpis.length)
    // each LPI once, as the string id GDAL keeps in the field `id`; FIDs are GDAL's own 1..n
    expect([...ids].sort()).toEqual(lpis)
    expect(features.every((f) => f.fields.id.type === 'String' && f.fields.lpi.value === f.fields.id.value)).toBe(true)
    expect(features.map((f) => f.fid)).toEqual(lpis.map((_, i) => i + 1))
  })

  it('reads the parcels of a box (bbox), the same LPIs as /parcels/within', async () => {
    const all = await json(
      await fetch(`${base}/api/v1/parcels/within?bbox=${BOX}&limit=500`, { headers: { 'X-API-KEY': key } }),
    )
    const lpis = [...new Set(all.parcels.map((p: { lpi: string }) => p.lpi))].sort()
    expect(lpis.length).toBeGreaterThan(2)
    const [w, s, e, n] = BOX.split(',')
    const { features } = await ogrinfo(
      `OAPIF:${base}/api/v1/ogc`,
      key,
      ['-oo', 'PAGE_SIZE=2', '-spat', w, s, e, n],
      'parcels',
    )
    expect(features.map((f) => f.fields.id.value).sort()).toEqual(lpis)
  })

  it('reads every current encumbrance once: the count is numberMatched, the FID the uid', async () => {
    const first = await json(
      await fetch(`${base}/api/v1/ogc/collections/encumbrances/items?limit=1`, { headers: { 'X-API-KEY': key } }),
    )
    expect(first.numberMatched).toBeGreaterThan(SIZE * 3)
    const { count, features } = await ogrinfo(`OAPIF:${base}/api/v1/ogc`, key, PAGE, 'encumbrances')
    expect(count).toBe(first.numberMatched)
    expect(features.length).toBe(first.numberMatched)
    const fids = features.map((f) => f.fid)
    expect(new Set(fids).size).toBe(fids.length)
    expect(features.every((f) => Number(f.fields.encumbrance_uid.value) === f.fid)).toBe(true)
  })

  it('is refused without the key', async () => {
    await expect(ogrinfo(`OAPIF:${base}/api/v1/ogc`, 'lk_wrong', ['-so'])).rejects.toThrow()
  })
})
