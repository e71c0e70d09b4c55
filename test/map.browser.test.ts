/**
 * The map page (`GET /map`, docs/map.md) in a real browser: headless Chromium (the Debian package
 * at /usr/bin/chromium, WebGL in software through SwiftShader) driven by playwright-core, against
 * the production server (`dist/server.js`) on the test dataset. The checks read the rendered
 * pixels of screenshots: a parcel outline and encumbrances are drawn where the fixtures put them
 * (test/fixtures/parcel-fixtures.ts, encumbrance-fixtures.ts: in the sea south-west of Cape
 * Point, so the background around them is known), in their layers' colours, and the sea around
 * is the background colour (a blank map fails). Then a click lists the erf's LPI, a misspelt
 * municipality, an LPI and an SG number are found and shown, a drawn route lists the servitude it crosses, and a phone
 * screen shows the map and the panel without scrolling sideways. Screenshots go to
 * test/artifacts/ (git-ignored). Every wait is bounded; the browser and the server are stopped
 * in afterAll whatever happened. The page.evaluate callbacks reach the page's globals through
 * `globalThis` (the tree is type-checked without the DOM library).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { SqliteKeyStore } from '../src/auth/key-store.js'
import { ENC_SG, ENC_UID } from './fixtures/encumbrance-fixtures.js'
import { freePort } from './fixtures/free-port.js'
import { erfLpi } from './fixtures/parcel-fixtures.js'
import { decodePng, type Image, pixel } from './fixtures/png.js'

const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
]
const ARTIFACTS = 'test/artifacts'
/** The fixture farm's middle, at a zoom where every fixture layer shows (servitudes from z12, erven z14). */
const VIEW = { zoom: 16, lat: -34.905, lon: 17.005 }

type RGB = [number, number, number]

let server: ChildProcess | undefined
let browser: Browser | undefined
let page: Page
let base = ''
let key = ''
let serverOutput = ''
const requests: string[] = []

/** The production server on a free loopback port, once it listens. */
async function startServer(): Promise<void> {
  const dir = mkdtempSync(join(inject('workDir'), 'map-'))
  const keysDb = join(dir, 'keys.db')
  const store = new SqliteKeyStore(keysDb)
  key = store.issue({
    products: ['plots', 'parcels', 'encumbrance', 'jurisdiction'],
    countries: ['BOTSWANA', 'SOUTH_AFRICA'],
    ratePerMinute: 1e6,
  }).key
  store.close()
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  server = spawn(process.execPath, ['dist/server.js'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      KEYS_DB: keysDb,
      DATASET_DIR: inject('datasetDir'),
      VERIFY_ON_START: 'off',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  server.stdout!.on('data', (d) => (serverOutput += d))
  server.stderr!.on('data', (d) => (serverOutput += d))
  const deadline = Date.now() + 20_000
  for (;;) {
    if (server.exitCode !== null) throw new Error(`server exited: ${serverOutput}`)
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    )
    if (ready) return
    if (Date.now() > deadline) throw new Error(`server did not start: ${serverOutput}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

async function api(path: string): Promise<any> {
  const res = await fetch(`${base}/api/v1${path}`, { headers: { 'X-API-KEY': key } })
  expect(res.status).toBe(200)
  return res.json()
}

/** Waits until the map has drawn everything it asked for. */
const idle = () => page.evaluate(() => (globalThis as any).landMap.whenIdle())

/** Page pixel coordinates of [lon, lat] (the map's projection plus the canvas's offset). */
function toScreen(lon: number, lat: number): Promise<{ x: number; y: number }> {
  return page.evaluate(
    ([lon, lat]) => {
      const map = (globalThis as any).landMap.map
      const p = map.project([lon, lat])
      const r = map.getCanvas().getBoundingClientRect()
      return { x: r.left + p.x, y: r.top + p.y }
    },
    [lon, lat],
  )
}

/** A paint property of a style layer, as a colour [r, g, b] or a number. */
function paint(layer: string, property: string): Promise<any> {
  return page.evaluate(
    ([layer, property]) => {
      const v = (globalThis as any).landMap.map.getPaintProperty(layer, property) ?? null
      if (typeof v !== 'string') return v
      const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(v)
      return m ? [1, 2, 3].map((i) => Number.parseInt(m[i], 16)) : v
    },
    [layer, property],
  )
}

const blend = (under: RGB, over: RGB, alpha: number): RGB =>
  under.map((u, i) => u * (1 - alpha) + over[i] * alpha) as RGB
const distance = (a: RGB, b: RGB) => Math.max(...a.map((v, i) => Math.abs(v - b[i])))

/** The screenshot, saved under test/artifacts/, decoded. */
async function shot(name: string): Promise<Image> {
  const png = await page.screenshot()
  writeFileSync(join(ARTIFACTS, name), png)
  return decodePng(png)
}

/** The colour nearest `want` within `radius` pixels of (x, y), and its distance. */
function nearest(img: Image, x: number, y: number, want: RGB, radius: number): { got: RGB; off: number } {
  let best = { got: pixel(img, x, y), off: Infinity }
  for (let dy = -radius; dy <= radius; dy++)
    for (let dx = -radius; dx <= radius; dx++) {
      const got = pixel(img, x + dx, y + dy)
      const off = distance(got, want)
      if (off < best.off) best = { got, off }
    }
  return best
}

describe('the map page in headless Chromium', () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: install the Debian package chromium (bash .ci/run installs it)`)
    mkdirSync(ARTIFACTS, { recursive: true })
    await startServer()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 20_000 })
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 })
    page.setDefaultTimeout(15_000)
    page.on('request', (r) => requests.push(r.url()))
    await page.addInitScript(() => {
      const w = globalThis as any
      w.__cspViolations = []
      w.document.addEventListener('securitypolicyviolation', (e: any) =>
        w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
      )
    })
  }, 60_000)

  afterAll(async () => {
    await browser?.close().catch(() => {})
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r))
      server.kill('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))])
      if (server.exitCode === null) server.kill('SIGKILL')
    }
  })

  it('WebGL works in software in this Chromium', async () => {
    const gl = await page.evaluate(() => {
      const g = (globalThis as any).document.createElement('canvas').getContext('webgl2')
      return g ? String(g.getParameter(g.VERSION)) : null
    })
    expect(gl).toMatch(/^WebGL 2/)
  })

  it('asks for the key once, then draws the fixture erven and encumbrances where they are, in their colours', async () => {
    await page.goto(`${base}/map#map=${VIEW.zoom}/${VIEW.lat}/${VIEW.lon}`)
    await page.locator('#key-dialog[open]').waitFor()
    await page.fill('#key-input', key)
    await page.click('#key-form button[type=submit]')
    await page.waitForFunction(() => (globalThis as any).landMap?.ready)
    await page.evaluate(() => (globalThis as any).landMap.ready)
    await idle()
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('landdata.apiKey'))).toBe(key)
    expect(await page.evaluate(() => (globalThis as any).localStorage.length)).toBe(0)
    const img = await shot('map-fixture.png')

    const water = (await paint('water', 'background-color')) as RGB
    // the sea east of the fixture farm: nothing but the background
    const sea = await toScreen(17.016, -34.9075)
    expect(distance(pixel(img, sea.x, sea.y), water)).toBeLessThanOrEqual(3)

    // erf 1's west edge (x = 17.001): the erf outline colour (the line is antialiased: within 2 px)
    const erfLine = (await paint('parcels-erf-line', 'line-color')) as RGB
    const edge = await toScreen(17.001, -34.9042)
    const onEdge = nearest(img, edge.x, edge.y, erfLine, 2)
    expect(onEdge.off, `erf outline at ${JSON.stringify(edge)}: ${onEdge.got}`).toBeLessThanOrEqual(40)
    // and a parcel outline is not everywhere: the sea probe is far from that colour
    expect(distance(pixel(img, sea.x, sea.y), erfLine)).toBeGreaterThan(100)

    // the mineral right over portion 2: its fill over the sea
    const mineral = blend(
      water,
      (await paint('enc-mineral_right-fill', 'fill-color')) as RGB,
      await paint('enc-mineral_right-fill', 'fill-opacity'),
    )
    const inMineral = await toScreen(17.0075, -34.9075)
    expect(distance(pixel(img, inMineral.x, inMineral.y), mineral)).toBeLessThanOrEqual(8)

    // the right-of-way strip inside erf 1: the servitude fill over the erf fill over the sea
    const erfFill = blend(
      water,
      (await paint('parcels-erf-fill', 'fill-color')) as RGB,
      await paint('parcels-erf-fill', 'fill-opacity'),
    )
    const strip = blend(
      erfFill,
      (await paint('enc-servitude_area-fill', 'fill-color')) as RGB,
      await paint('enc-servitude_area-fill', 'fill-opacity'),
    )
    const inStrip = await toScreen(17.00175, -34.9045)
    expect(distance(pixel(img, inStrip.x, inStrip.y), strip)).toBeLessThanOrEqual(8)
    // erf 1 outside the strip: the erf fill alone
    const inErf = await toScreen(17.0013, -34.9048)
    expect(distance(pixel(img, inErf.x, inErf.y), erfFill)).toBeLessThanOrEqual(8)

    // nothing was fetched from anywhere but this server, and the CSP refused nothing
    expect(requests.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('data:'))).toEqual([])
    expect(requests.some((u) => u.includes('/api/v1/parcels/tiles'))).toBe(true)
    expect(await page.evaluate(() => (globalThis as any).__cspViolations)).toEqual([])
  })

  it('a click on an erf opens the panel with its LPI, its encumbrances and the answers they came from', async () => {
    const at = await toScreen(17.0013, -34.9048)
    await page.mouse.click(at.x, at.y)
    const lpi = page.locator('#panel code.lpi').first()
    await expect.poll(() => lpi.textContent()).toBe(erfLpi(1))
    await page.locator('#panel section h3', { hasText: `Encumbrances of ${erfLpi(1)}` }).waitFor()
    // the request under the parcels shows the JSON answer it came from
    const request = page.locator('#panel button.request').first()
    expect(await request.textContent()).toMatch(
      /^GET \/api\/v1\/parcels\/at\?latitude=-34\.904\d+&longitude=17\.001\d+$/,
    )
    await request.click()
    const json = JSON.parse((await page.locator('#panel pre.json').first().textContent()) ?? '')
    expect(json.parcels[0].lpi).toBe(erfLpi(1))
    await idle()
    await shot('map-click.png')
  })

  it('a misspelt municipality name is found: the map moves into its box and outlines it', async () => {
    const { matches } = await api('/jurisdiction/search?q=Stelenbosh&limit=1')
    expect(matches[0].name).toBe('Stellenbosch')
    const [west, south, east, north] = matches[0].bbox
    await page.fill('#q', 'Stelenbosh')
    await page.press('#q', 'Enter')
    await page.locator('#panel section h3', { hasText: 'Boundary of Stellenbosch' }).waitFor()
    await idle()
    const c = await page.evaluate(() => (globalThis as any).landMap.map.getCenter())
    expect(c.lng).toBeGreaterThan(west)
    expect(c.lng).toBeLessThan(east)
    expect(c.lat).toBeGreaterThan(south)
    expect(c.lat).toBeLessThan(north)
    // the view is in the URL hash
    const hash = /^#map=([\d.]+)\/(-?[\d.]+)\/(-?[\d.]+)/.exec(
      await page.evaluate(() => (globalThis as any).location.hash),
    )
    expect(Number(hash?.[2])).toBeCloseTo(c.lat, 3)
    expect(Number(hash?.[3])).toBeCloseTo(c.lng, 3)
    const img = await shot('map-search.png')
    // the highlight is the boundary the page asked for (the request under its section): its
    // west-most vertex is drawn in the highlight colour
    const request = (await page.locator('#panel button.request').last().textContent()) ?? ''
    expect(request).toMatch(/^GET \/api\/v1\/jurisdiction\/boundaries\/local_municipality\/WC024\/geometry/)
    const { geometry } = await api(request.slice('GET /api/v1'.length))
    const west1 = geometry.coordinates.flat(2).reduce((a: number[], b: number[]) => (b[0] < a[0] ? b : a))
    const p = await toScreen(west1[0], west1[1])
    const outline = (await paint('highlight-line', 'line-color')) as RGB
    expect(nearest(img, p.x, p.y, outline, 3).off).toBeLessThanOrEqual(40)
  })

  it('an LPI and an SG number are found: the map fits them and the panel names them', async () => {
    const lpi = erfLpi(1)
    await page.fill('#q', lpi.toLowerCase())
    await page.press('#q', 'Enter')
    await page.locator('#panel section h3', { hasText: `Parcel ${lpi}` }).waitFor()
    await idle()
    expect(await page.locator('#panel code.lpi').first().textContent()).toBe(lpi)
    const { geometry } = await api(`/parcels/${lpi}/geometry`)
    const xs = geometry.coordinates.flat(2).map((p: number[]) => p[0])
    const ys = geometry.coordinates.flat(2).map((p: number[]) => p[1])
    const c = await page.evaluate(() => (globalThis as any).landMap.map.getCenter())
    expect(c.lng).toBeGreaterThan(Math.min(...xs))
    expect(c.lng).toBeLessThan(Math.max(...xs))
    expect(c.lat).toBeGreaterThan(Math.min(...ys))
    expect(c.lat).toBeLessThan(Math.max(...ys))

    await page.fill('#q', ENC_SG.strip)
    await page.press('#q', 'Enter')
    await page.locator('#panel section h3', { hasText: `Encumbrances with SG number ${ENC_SG.strip}` }).waitFor()
    expect(await page.locator('#panel').textContent()).toContain(`uid ${ENC_UID.strip}`)
  })

  it('a route drawn across the right-of-way strip lists it, with its overlap, and the parcels it enters', async () => {
    await page.evaluate(
      ([lon, lat]) => (globalThis as any).landMap.map.jumpTo({ center: [lon, lat], zoom: 17 }),
      [17.0018, -34.9045],
    )
    await idle()
    await page.click('#draw-route')
    for (const lat of [-34.9049, -34.9041]) {
      const p = await toScreen(17.0018, lat)
      await page.mouse.click(p.x, p.y)
    }
    await page.click('#draw-finish')
    const hit = page.locator(`#panel li[data-uid="${ENC_UID.strip}"]`)
    await hit.waitFor()
    expect(await hit.textContent()).toContain(`SG ${ENC_SG.strip}`)
    expect(await hit.textContent()).toMatch(/overlap [\d.,]+ m/)
    expect(await page.locator('#panel ul.parcels').textContent()).toContain(erfLpi(1))
    await idle()
    const img = await shot('map-route.png')
    // the met servitude is drawn in the hit colour along the strip's edge
    const hitColour = (await paint('hits-line', 'line-color')) as RGB
    const edge = await toScreen(17.0022, -34.9044)
    expect(nearest(img, edge.x, edge.y, hitColour, 2).off).toBeLessThanOrEqual(40)
  })

  it('a hidden layer and the view are kept in the URL hash; a reload restores both without asking for the key', async () => {
    await page.locator('input[data-toggle="parcels.erf"]').uncheck()
    await expect.poll(() => page.evaluate(() => (globalThis as any).location.hash)).toMatch(/&off=parcels\.erf$/)
    const before = await page.evaluate(() => {
      const m = (globalThis as any).landMap.map
      return { center: m.getCenter(), zoom: m.getZoom() }
    })
    await page.reload()
    await page.waitForFunction(() => (globalThis as any).landMap?.ready)
    await page.evaluate(() => (globalThis as any).landMap.ready)
    expect(await page.locator('#key-dialog').evaluate((d: any) => d.open)).toBe(false)
    expect(await page.locator('input[data-toggle="parcels.erf"]').isChecked()).toBe(false)
    const after = await page.evaluate(() => {
      const m = (globalThis as any).landMap.map
      return {
        center: m.getCenter(),
        zoom: m.getZoom(),
        erf: m.getLayoutProperty('parcels-erf-line', 'visibility'),
        farm: m.getLayoutProperty('parcels-parent_farm-line', 'visibility') ?? 'visible',
      }
    })
    expect(after.erf).toBe('none')
    expect(after.farm).toBe('visible')
    expect(after.zoom).toBeCloseTo(before.zoom, 1)
    expect(after.center.lat).toBeCloseTo(before.center.lat, 4)
    expect(after.center.lng).toBeCloseTo(before.center.lng, 4)
    await page.locator('input[data-toggle="parcels.erf"]').check()
    await expect.poll(() => page.evaluate(() => (globalThis as any).location.hash)).not.toContain('off=')
  })

  it('on a phone screen the map and the panel fit, the panel a bottom sheet, nothing scrolls sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.evaluate(() => (globalThis as any).landMap.map.jumpTo({ center: [17.0015, -34.9045], zoom: 16 }))
    await idle()
    const at = await toScreen(17.0013, -34.9048)
    await page.mouse.click(at.x, at.y)
    await expect.poll(() => page.locator('#panel code.lpi').first().textContent()).toBe(erfLpi(1))
    await idle()
    const layout = await page.evaluate(() => {
      const rect = (id: string) => (globalThis as any).document.getElementById(id)!.getBoundingClientRect()
      return {
        scrollWidth: (globalThis as any).document.documentElement.scrollWidth,
        bodyScrollWidth: (globalThis as any).document.body.scrollWidth,
        innerWidth: (globalThis as any).innerWidth,
        panel: rect('panel').toJSON(),
        canvas: (globalThis as any).landMap.map.getCanvas().getBoundingClientRect().toJSON(),
        bar: rect('bar').toJSON(),
      }
    })
    expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth)
    expect(layout.bodyScrollWidth).toBeLessThanOrEqual(layout.innerWidth)
    expect(layout.bar.right).toBeLessThanOrEqual(390)
    // the panel: the full width, at the bottom, at most about half the screen
    expect(layout.panel.left).toBe(0)
    expect(layout.panel.width).toBe(390)
    expect(Math.round(layout.panel.bottom)).toBe(844)
    expect(layout.panel.top).toBeGreaterThan(844 * 0.45)
    // the map fills the width, and shows above the sheet
    expect(layout.canvas.width).toBe(390)
    expect(layout.panel.top - layout.canvas.top).toBeGreaterThan(300)
    await shot('map-phone.png')
  })
})
