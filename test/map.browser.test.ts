/**
 * The map page (`GET /map`, docs/map.md) in a real browser: headless Chromium (the Debian package
 * at /usr/bin/chromium, WebGL in software through SwiftShader) driven by playwright-core, against
 * the production server (`dist/server.js`) on the test dataset, with a key like the demo key
 * `npm start` prints (the store's default allowances). The checks read the rendered pixels of
 * screenshots (test/fixtures/map-page.ts), and nothing makes the map repaint before they look:
 * no `whenIdle()`, no mouse, so a map that stays blank until it is moved fails.
 *
 * - The first view (no hash: southern Africa) draws the land of South Africa and of Botswana and
 *   the sea, in the style's colours, within a bound; each TileJSON is fetched once, nothing
 *   answers an error, and the credits start folded.
 * - A township view (the fixture erven, test/fixtures/parcel-fixtures.ts, encumbrance-fixtures.ts:
 *   in the sea south-west of Cape Point, so the background around them is known) draws the erf
 *   outline and encumbrances where they are, in their layers' colours.
 * - 30 views browsed (wheel turns and pans) answer no 429, and a click is answered.
 * - A 429 (the server's, with a key of 3 requests a minute; and one made up for a tile and for a
 *   click, with a short `Retry-After`) shows "Slowing down: retrying in N s", never the raw
 *   error, and the page asks again.
 * - Search by misspelt name, LPI and SG number; a drawn route; the hash across a reload; a phone.
 *
 * Screenshots go to test/artifacts/ (git-ignored). Every wait is bounded; the browser and the
 * server are stopped in afterAll whatever happened. The page.evaluate callbacks reach the page's
 * globals through `globalThis` (the tree is type-checked without the DOM library).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { SqliteKeyStore } from '../src/auth/key-store.js'
import type { Country, Product } from '../src/auth/types.js'
import { ENC_SG, ENC_UID } from './fixtures/encumbrance-fixtures.js'
import { freePort } from './fixtures/free-port.js'
import {
  ARTIFACTS,
  blend,
  CHROMIUM,
  CHROMIUM_ARGS,
  distance,
  nearest,
  paint,
  type RGB,
  shot,
  toScreen,
  untilDrawn,
} from './fixtures/map-page.js'
import { erfLpi } from './fixtures/parcel-fixtures.js'
import { pixel } from './fixtures/png.js'

/** The fixture farm's middle, at a zoom where every fixture layer shows (servitudes from z12, erven z14). */
const VIEW = { zoom: 16, lat: -34.905, lon: 17.005 }
/** Inside erf 1 (outside the right-of-way strip). */
const IN_ERF = { lon: 17.0013, lat: -34.9048 }
/** The bound on a view's first good frame (the issue: "within a few seconds"; CI has 2 slow cores). */
const FIRST_FRAME_MS = 15_000
/** The bound on browsing 30 views (a view takes 2 to 6 s on 2 loaded cores, rendering in software). */
const TOUR_MS = 240_000
/** expect.poll's bound (its default, a second, is less than a tile takes here) */
const POLL = { timeout: 20_000 }
const PRODUCTS: Product[] = ['plots', 'parcels', 'encumbrance', 'jurisdiction']
const COUNTRIES: Country[] = ['BOTSWANA', 'SOUTH_AFRICA']

let server: ChildProcess | undefined
let browser: Browser | undefined
let page: Page
let base = ''
/** for the test's own API calls */
let adminKey = ''
/** as `npm start` issues it: the store's default allowances */
let demoKey = ''
/** 3 requests and 3 tiles a minute */
let tinyKey = ''
let serverOutput = ''
const requests: string[] = []
const statuses: { url: string; status: number; coding?: string }[] = []
const consoleErrors: string[] = []

/** The production server on a free loopback port, once it listens. */
async function startServer(): Promise<void> {
  const dir = mkdtempSync(join(inject('workDir'), 'map-'))
  const keysDb = join(dir, 'keys.db')
  const store = new SqliteKeyStore(keysDb)
  adminKey = store.issue({ products: PRODUCTS, countries: COUNTRIES, ratePerMinute: 1e6 }).key
  demoKey = store.issue({ products: PRODUCTS, countries: COUNTRIES }).key
  tinyKey = store.issue({ products: PRODUCTS, countries: COUNTRIES, ratePerMinute: 3, tileRatePerMinute: 3 }).key
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
  const res = await fetch(`${base}/api/v1${path}`, { headers: { 'X-API-KEY': adminKey } })
  expect(res.status).toBe(200)
  return res.json()
}

/** Waits until the map has drawn everything it asked for (forcing a repaint: later tests only). */
const idle = () => page.evaluate(() => (globalThis as any).landMap.whenIdle())

/**
 * Waits, without touching the map, until it has stopped moving and every tile of the view is
 * loaded (bounded).
 */
const settled = (p: Page, timeout = 20_000) =>
  p.waitForFunction(
    () => {
      const m = (globalThis as any).landMap?.map
      return m && !m.isMoving() && m.loaded() && m.areTilesLoaded()
    },
    undefined,
    { timeout, polling: 200 },
  )

/** A new tab (its own sessionStorage) with the CSP watched. */
async function newTab(context: BrowserContext): Promise<Page> {
  const p = await context.newPage()
  p.setDefaultTimeout(15_000)
  await p.addInitScript(() => {
    const w = globalThis as any
    w.__cspViolations = []
    w.document.addEventListener('securitypolicyviolation', (e: any) =>
      w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
    )
  })
  return p
}

/** Opens `url`, answers the key dialog with `key`, and answers when it was sent. */
async function openWithKey(p: Page, url: string, key: string): Promise<number> {
  await p.goto(url)
  await p.locator('#key-dialog[open]').waitFor()
  await p.fill('#key-input', key)
  const sent = Date.now()
  await p.click('#key-form button[type=submit]')
  await p.waitForFunction(() => (globalThis as any).landMap?.map)
  return sent
}

const text = (p: Page, selector: string) => p.locator(selector).textContent()

describe('the map page in headless Chromium', () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: install the Debian package chromium (bash .ci/run installs it)`)
    mkdirSync(ARTIFACTS, { recursive: true })
    await startServer()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 20_000 })
    page = await newTab(await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 }))
    page.on('request', (r) => requests.push(r.url()))
    page.on('response', (r) =>
      statuses.push({ url: r.url(), status: r.status(), coding: r.headers()['content-encoding'] }),
    )
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text())
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

  it('the first view draws the land, South Africa and Botswana by itself, soon, fetching each TileJSON once', async () => {
    const sent = await openWithKey(page, `${base}/map`, demoKey)
    // the style's own colours (read from the style, which draws nothing)
    const land = (await paint(page, 'land-served', 'fill-color')) as RGB
    const sea = (await paint(page, 'water', 'background-color')) as RGB
    expect(distance(land, sea)).toBeGreaterThan(40)
    const first = await untilDrawn(
      page,
      'map-home.png',
      [
        // the Northern Cape's interior, central Botswana (a boundary line may cross: within 3 px)
        { name: 'South Africa', lon: 21.0, lat: -29.0, colour: land, within: 6, radius: 3 },
        { name: 'Botswana', lon: 24.0, lat: -22.0, colour: land, within: 6, radius: 3 },
        // the Indian Ocean south-east of the coast
        { name: 'sea', lon: 36.0, lat: -33.0, colour: sea, within: 3 },
      ],
      sent,
    )
    console.log(`first view: land drawn ${first.ms} ms after the key was sent`)
    expect(first.ok, JSON.stringify(first.got)).toBe(true)
    expect(first.ms).toBeLessThanOrEqual(FIRST_FRAME_MS)
    // MapLibre's load fired by itself: the page added the tile sets and the legend after it
    await page.waitForFunction(() => (globalThis as any).document.body.dataset.ready === 'true')
    await settled(page)

    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('landdata.apiKey'))).toBe(demoKey)
    expect(await page.evaluate(() => (globalThis as any).localStorage.length)).toBe(0)
    // each TileJSON once (the source is made from the document, not from its URL)
    for (const set of ['jurisdiction', 'parcels', 'encumbrances', 'plots'])
      expect(requests.filter((u) => u === `${base}/api/v1/${set}/tiles.json`)).toHaveLength(1)
    // the boundary tiles came compressed (those over 1 KiB; and were drawn, so compressed once)
    const tiles = statuses.filter((s) => s.url.startsWith(`${base}/api/v1/jurisdiction/tiles/`) && s.status === 200)
    expect(tiles.some((s) => s.coding === 'br' || s.coding === 'gzip')).toBe(true)
    // nothing failed (no favicon 404 either), and the credits start folded behind the (i) button
    expect(statuses.filter((s) => s.status >= 400)).toEqual([])
    expect(consoleErrors).toEqual([])
    expect(await page.evaluate(() => (globalThis as any).__cspViolations)).toEqual([])
    expect(await page.locator('.maplibregl-ctrl-attrib-inner').isVisible()).toBe(false)
    expect(await page.locator('.maplibregl-ctrl-attrib-button').isVisible()).toBe(true)
    expect(await page.locator('#status').isVisible()).toBe(false)
  })

  it('a township view draws the fixture erven and encumbrances where they are, in their colours, by itself', async () => {
    await page.goto('about:blank')
    const sent = Date.now()
    await page.goto(`${base}/map#map=${VIEW.zoom}/${VIEW.lat}/${VIEW.lon}`)
    // the key is kept in the tab: no dialog
    await page.waitForFunction(() => (globalThis as any).landMap?.ready)
    expect(await page.locator('#key-dialog').evaluate((d: any) => d.open)).toBe(false)
    await page.evaluate(() => (globalThis as any).landMap.ready)

    const water = (await paint(page, 'water', 'background-color')) as RGB
    const erfLine = (await paint(page, 'parcels-erf-line', 'line-color')) as RGB
    const erfFill = blend(
      water,
      (await paint(page, 'parcels-erf-fill', 'fill-color')) as RGB,
      await paint(page, 'parcels-erf-fill', 'fill-opacity'),
    )
    // the mineral right over portion 2: its fill over the sea
    const mineral = blend(
      water,
      (await paint(page, 'enc-mineral_right-fill', 'fill-color')) as RGB,
      await paint(page, 'enc-mineral_right-fill', 'fill-opacity'),
    )
    // the right-of-way strip inside erf 1: the servitude fill over the erf fill over the sea
    const strip = blend(
      erfFill,
      (await paint(page, 'enc-servitude_area-fill', 'fill-color')) as RGB,
      await paint(page, 'enc-servitude_area-fill', 'fill-opacity'),
    )
    const drawn = await untilDrawn(
      page,
      'map-fixture.png',
      [
        // the sea east of the fixture farm: nothing but the background
        { name: 'sea', lon: 17.016, lat: -34.9075, colour: water, within: 3 },
        // erf 1's west edge (x = 17.001): the erf outline colour (antialiased: within 2 px)
        { name: 'erf outline', lon: 17.001, lat: -34.9042, colour: erfLine, within: 40, radius: 2 },
        { name: 'mineral right', lon: 17.0075, lat: -34.9075, colour: mineral, within: 8 },
        { name: 'strip', lon: 17.00175, lat: -34.9045, colour: strip, within: 8 },
        { name: 'erf', ...IN_ERF, colour: erfFill, within: 8 },
      ],
      sent,
    )
    console.log(`township view: drawn ${drawn.ms} ms after the page was asked for`)
    expect(drawn.ok, JSON.stringify(drawn.got)).toBe(true)
    expect(drawn.ms).toBeLessThanOrEqual(FIRST_FRAME_MS)
    // and a parcel outline is not everywhere: the sea probe is far from that colour
    const sea = await toScreen(page, 17.016, -34.9075)
    expect(distance(pixel(drawn.img, sea.x, sea.y), erfLine)).toBeGreaterThan(100)

    // nothing was fetched from anywhere but this server, and the CSP refused nothing
    expect(requests.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('data:') && u !== 'about:blank')).toEqual(
      [],
    )
    expect(requests.some((u) => u.includes('/api/v1/parcels/tiles'))).toBe(true)
    expect(await page.evaluate(() => (globalThis as any).__cspViolations)).toEqual([])
  })

  it('a click on an erf opens the panel with its LPI, its encumbrances and the answers they came from', async () => {
    const at = await toScreen(page, IN_ERF.lon, IN_ERF.lat)
    await page.mouse.click(at.x, at.y)
    const lpi = page.locator('#panel code.lpi').first()
    await expect.poll(() => lpi.textContent(), POLL).toBe(erfLpi(1))
    await page.locator('#panel section h3', { hasText: `Encumbrances of ${erfLpi(1)}` }).waitFor()
    // the request under the parcels shows the JSON answer it came from
    const request = page.locator('#panel button.request').first()
    expect(await request.textContent()).toMatch(
      /^GET \/api\/v1\/parcels\/at\?latitude=-34\.904\d+&longitude=17\.001\d+$/,
    )
    await request.click()
    const json = JSON.parse((await page.locator('#panel pre.json').first().textContent()) ?? '')
    expect(json.parcels[0].lpi).toBe(erfLpi(1))
    await settled(page)
    await shot(page, 'map-click.png')
    await page.click('#panel-close')
  })

  it(
    '30 views browsed with the demo key answer no 429, and a click is answered',
    async () => {
      const from = statuses.length
      const tilesBefore = requests.filter((u) => u.includes('/tiles/')).length
      const box = (await page.locator('#map').boundingBox())!
      await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2)
      // from the township out over the Cape and back: wheel turns (animated zooms, about a level
      // each) and pans of a third of the screen (a drag takes seconds of software rendering here)
      const moves: ([number, number] | number)[] = [1200, 1200, [400, 0], [0, 250], 1200, [-400, 0], [-400, 0]]
      moves.push([0, -250], 1200, [300, 200], -1200, [-300, 0], -1200, [300, -200], 1200)
      const started = Date.now()
      for (let v = 0; v < 30; v++) {
        // the second half goes back the way the first came
        const m = moves[v % moves.length]
        const move = v < moves.length ? m : typeof m === 'number' ? -m : [-m[0], -m[1]]
        if (typeof move === 'number') {
          // a wheel turn is a real input event: the wait for its end is set up before it
          await page.evaluate(() => {
            const w = globalThis as any
            w.__moved = new Promise((r) => w.landMap.map.once('moveend', r))
          })
          await page.mouse.wheel(0, move)
          await page.evaluate(() =>
            Promise.race([(globalThis as any).__moved, new Promise((r) => setTimeout(r, 10_000))]),
          )
        }
        // a pan and the wait for its end in one round trip to the page (each round trip waits
        // for the frame being drawn, a second or more in software)
        else
          await page.evaluate(
            ([dx, dy]) => {
              const map = (globalThis as any).landMap.map
              const moved = new Promise((r) => map.once('moveend', r))
              map.panBy([dx, dy], { duration: 0 })
              return Promise.race([moved, new Promise((r) => setTimeout(r, 10_000))])
            },
            move as [number, number],
          )
        await settled(page)
        if (Date.now() - started > TOUR_MS) break
      }
      const browsed = Date.now() - started
      const zoom = await page.evaluate(() => (globalThis as any).landMap.map.getZoom())
      console.log(
        `30 views in ${browsed} ms, ${requests.filter((u) => u.includes('/tiles/')).length - tilesBefore} tile requests, back at z${zoom.toFixed(1)}`,
      )
      await shot(page, 'map-browsed.png')
      // and back to the township, where a click is answered
      await page.evaluate(
        ([lon, lat]) => (globalThis as any).landMap.map.jumpTo({ center: [lon, lat], zoom: 16 }),
        [VIEW.lon, VIEW.lat],
      )
      await settled(page)
      const at = await toScreen(page, IN_ERF.lon, IN_ERF.lat)
      await page.mouse.click(at.x, at.y)
      await expect.poll(() => page.locator('#panel code.lpi').first().textContent(), POLL).toBe(erfLpi(1))
      expect(statuses.slice(from).filter((s) => s.status === 429)).toEqual([])
      expect(await page.locator('#status').isVisible()).toBe(false)
      // each view draws in a few seconds of software rendering: bounded well inside the test's time
      expect(browsed).toBeLessThan(TOUR_MS)
    },
    TOUR_MS + 60_000,
  )

  it('a 429 says "slowing down" with the seconds of Retry-After, never the raw error, and the page asks again', async () => {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } })
    try {
      // a tile and a click answered 429 once each (Retry-After: 2 s): asked again, then drawn and answered
      const p = await newTab(context)
      const seen: { url: string; status: number }[] = []
      p.on('response', (r) => seen.push({ url: r.url(), status: r.status() }))
      let tile = ''
      await p.route(/\/api\/v1\/parcels\/tiles\/\d+\//, (route) => {
        if (tile) return route.continue()
        tile = route.request().url()
        return route.fulfill({ status: 429, headers: { 'Retry-After': '2' }, body: '{"error":"RateLimitExceeded"}' })
      })
      await openWithKey(p, `${base}/map#map=${VIEW.zoom}/${VIEW.lat}/${VIEW.lon}`, adminKey)
      await expect.poll(() => text(p, '#status'), POLL).toMatch(/^Slowing down: retrying in [12] s$/)
      await expect.poll(() => p.locator('#status').isVisible(), POLL).toBe(false)
      await settled(p)
      expect(seen.filter((s) => s.url === tile).map((s) => s.status)).toEqual([429, expect.any(Number)])
      expect(seen.filter((s) => s.url === tile)[1].status).toBeLessThan(300)
      await shot(p, 'map-retried.png')

      let clicks = 0
      await p.route(/\/api\/v1\/parcels\/at\?/, (route) =>
        clicks++ === 0
          ? route.fulfill({ status: 429, headers: { 'Retry-After': '1' }, body: '{"error":"RateLimitExceeded"}' })
          : route.continue(),
      )
      const at = await toScreen(p, IN_ERF.lon, IN_ERF.lat)
      await p.mouse.click(at.x, at.y)
      await expect.poll(() => p.locator('#panel code.lpi').first().textContent(), POLL).toBe(erfLpi(1))
      expect(clicks).toBe(2)
      await p.close()

      // the server's own 429: a key of 3 requests a minute runs out at the first view
      const q = await newTab(context)
      await openWithKey(q, `${base}/map#map=${VIEW.zoom}/${VIEW.lat}/${VIEW.lon}`, tinyKey)
      await expect.poll(() => text(q, '#status'), POLL).toMatch(/^Slowing down: retrying in \d+ s$/)
      const first = Number(/(\d+) s$/.exec((await text(q, '#status')) ?? '')?.[1])
      expect(first).toBeGreaterThanOrEqual(1)
      expect(first).toBeLessThanOrEqual(60)
      // it counts down
      await expect
        .poll(async () => Number(/(\d+) s$/.exec((await text(q, '#status')) ?? '')?.[1]), POLL)
        .toBeLessThan(first)
      await shot(q, 'map-slowing-down.png')
      expect((await q.locator('body').textContent()) ?? '').not.toMatch(/AJAXError|Too Many Requests/i)
    } finally {
      await context.close()
    }
  }, 120_000)

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
    const img = await shot(page, 'map-search.png')
    // the highlight is the boundary the page asked for (the request under its section): its
    // west-most vertex is drawn in the highlight colour
    const request = (await page.locator('#panel button.request').last().textContent()) ?? ''
    expect(request).toMatch(/^GET \/api\/v1\/jurisdiction\/boundaries\/local_municipality\/WC024\/geometry/)
    const { geometry } = await api(request.slice('GET /api/v1'.length))
    const west1 = geometry.coordinates.flat(2).reduce((a: number[], b: number[]) => (b[0] < a[0] ? b : a))
    const p = await toScreen(page, west1[0], west1[1])
    const outline = (await paint(page, 'highlight-line', 'line-color')) as RGB
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
      const p = await toScreen(page, 17.0018, lat)
      await page.mouse.click(p.x, p.y)
    }
    await page.click('#draw-finish')
    const hit = page.locator(`#panel li[data-uid="${ENC_UID.strip}"]`)
    await hit.waitFor()
    expect(await hit.textContent()).toContain(`SG ${ENC_SG.strip}`)
    expect(await hit.textContent()).toMatch(/overlap [\d.,]+ m/)
    expect(await page.locator('#panel ul.parcels').textContent()).toContain(erfLpi(1))
    await idle()
    const img = await shot(page, 'map-route.png')
    // the met servitude is drawn in the hit colour along the strip's edge
    const hitColour = (await paint(page, 'hits-line', 'line-color')) as RGB
    const edge = await toScreen(page, 17.0022, -34.9044)
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
    const at = await toScreen(page, 17.0013, -34.9048)
    await page.mouse.click(at.x, at.y)
    await expect.poll(() => page.locator('#panel code.lpi').first().textContent(), POLL).toBe(erfLpi(1))
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
    await shot(page, 'map-phone.png')
  })
})
