/**
 * Timing the encumbrance service (measureAsync in ../../lib/measure.ts): parcel lookups, /intersect
 * on routes and areas, z14 tiles, each in process (whole handler and queries only) with every
 * answer checked afterwards; and /parcel/{lpi} over HTTP.
 */
import type { createApp } from '../../../src/app.js'
import { ENCUMBRANCE_CLASSES } from '../../../src/data/encumbrance-format.js'
import type { OpenDataset } from '../../../src/data/open-dataset.js'
import { parseInputGeometry } from '../../../src/features/encumbrances/geometry-input.js'
import type { EncumbranceQueries } from '../../../src/features/encumbrances/queries.js'
import { runHttpRounds, type HttpRoundsData } from '../../lib/http-rounds.js'
import { measureAsync } from '../../lib/measure.js'
import { fmt } from '../../lib/stats.js'
import type { SuiteContext } from '../../lib/suite.js'
import { QUERIES, WHOLE, type EncumbrancesData } from './model.js'
import {
  denseTownships,
  makeAreas,
  makeLpiProbes,
  makeRoutes,
  makeTiles,
  ROUTE_TARGET_M,
  ROUTE_TRIES,
  TILE_ZOOM,
} from './probes.js'

type App = ReturnType<typeof createApp>

/** Fails the run for the first few mismatches, then once with their number. */
export function failures(ctx: SuiteContext, what: string): { fail(m: string): void; done(): void } {
  let n = 0
  return {
    fail(m) {
      if (n++ < 3) ctx.fail(`encumbrances: ${what}: ${m}`)
    },
    done() {
      if (n > 3) ctx.fail(`encumbrances: ${what}: ${n - 3} further mismatches`)
    },
  }
}

export async function measureLookups(
  ctx: SuiteContext,
  ds: OpenDataset,
  app: App,
  key: string,
  s: EncumbranceQueries,
  data: EncumbrancesData,
): Promise<void> {
  const quick = ctx.opts.quick
  const count = quick ? 200 : 5_000
  const rounds = quick ? 1 : 3
  const probes = makeLpiProbes(ds, s, count, ctx.opts.seed, 'parcel')
  data.lpis = probes.length
  data.lpiRounds = rounds
  data.withOverlaps = probes.kind.filter((k) => k === 0).length
  data.withoutOverlaps = probes.length - data.withOverlaps
  if (!probes.length) {
    data.notes.push('no current parcel carries an LPI: the parcel lookups were not measured')
    return
  }
  ctx.log(
    `encumbrances: ${probes.length} LPIs (${data.withOverlaps} with overlaps, ${data.withoutOverlaps} without) x ${rounds} rounds`,
  )
  const headers = { 'X-API-KEY': key }
  for (const [route, label] of [
    ['parcel', '/parcel/{lpi}'],
    ['summary/parcel', '/summary/parcel/{lpi}'],
  ] as const) {
    // what the route calls, without shaping the answer
    const queries = await measureAsync(label, QUERIES, probes.length, rounds, probes.kind, (k) => {
      const p = s.parcelByLpi(probes.lpi[k])!
      if (route === 'summary/parcel') {
        const sum = s.summaryOfParcel(p.id)
        return Object.values(sum.counts).reduce((a, b) => a + (b ?? 0), 0)
      }
      s.parcelGeometry(p.id)
      const n = s.overlapsOfParcel(p.id).length
      s.parcelArea(p.id)
      return n
    })
    data.lookupRows.push(queries.row)
    const texts: string[] = new Array(probes.length)
    const statuses = new Uint16Array(probes.length)
    const paths = probes.lpi.map((l) => `/api/v1/encumbrances/${route}/${l}`)
    const whole = await measureAsync(label, WHOLE, probes.length, rounds, probes.kind, async (k) => {
      const res = await app.request(paths[k], { headers })
      // the body as the server sends it
      texts[k] = await res.text()
      statuses[k] = res.status
      return 0
    })
    // read the answers back (untimed) and compare them with the queries
    const check = failures(ctx, `GET ${label}`)
    let results = 0
    for (let k = 0; k < probes.length; k++) {
      if (statuses[k] !== 200) {
        check.fail(`${probes.lpi[k]} answered ${statuses[k]}: ${texts[k].slice(0, 200)}`)
        continue
      }
      const body = JSON.parse(texts[k]) as {
        encumbrances?: { encumbrance_uid: number }[]
        counts_by_class?: Record<string, number>
      }
      const id = probes.parcelId[k]
      if (route === 'parcel') {
        const got = JSON.stringify(body.encumbrances?.map((e) => e.encumbrance_uid))
        const want = JSON.stringify(s.overlapsOfParcel(id).map((o) => o.row.uid))
        if (got !== want)
          check.fail(`${probes.lpi[k]} answered uids ${got.slice(0, 120)}, in process ${want.slice(0, 120)}`)
        results += body.encumbrances?.length ?? 0
      } else {
        const got = JSON.stringify(body.counts_by_class)
        const want = JSON.stringify(s.summaryOfParcel(id).counts)
        if (got !== want) check.fail(`${probes.lpi[k]} answered ${got}, in process ${want}`)
        results += Object.values(body.counts_by_class ?? {}).reduce((a, b) => a + b, 0)
      }
    }
    check.done()
    whole.row.meanResults = results / probes.length
    data.lookupRows.push(whole.row)
    ctx.log(
      `encumbrances: ${label} whole handler p50 ${fmt(whole.row.all.p50Us)} us, p99 ${fmt(whole.row.all.p99Us)} us (queries only ` +
        `p50 ${fmt(queries.row.all.p50Us)} us), ${fmt(whole.row.meanResults, 2)} encumbrances per ` +
        `answer`,
    )
  }
}

export async function measureIntersect(
  ctx: SuiteContext,
  cells: { cx: number; cy: number; n: number }[],
  app: App,
  key: string,
  s: EncumbranceQueries,
  data: EncumbrancesData,
): Promise<void> {
  const quick = ctx.opts.quick
  const rounds = quick ? 1 : 3
  data.intersectRounds = rounds
  const towns = denseTownships(cells)
  data.townships = towns.length
  const wantRoutes = quick ? 2 : 8
  const routes = makeRoutes(towns, wantRoutes, ctx.opts.seed)
  if (routes.length < wantRoutes)
    data.notes.push(
      `${wantRoutes - routes.length} of ${wantRoutes} routes could not be drawn without self-intersection in ${ROUTE_TRIES} tries`,
    )
  const areas = makeAreas(towns, quick ? 2 : 8, ctx.opts.seed)
  const parsedAreas = areas.map((coordinates) => parseInputGeometry({ type: 'Polygon', coordinates }))
  const badArea = parsedAreas.findIndex((g) => Array.isArray(g))
  if (badArea >= 0)
    ctx.fail(
      `encumbrances: area ${badArea} was refused by the route's validation: ${JSON.stringify(parsedAreas[badArea]).slice(0, 200)}`,
    )
  const goodAreas = areas.filter((_, i) => !Array.isArray(parsedAreas[i]))
  data.areas = {
    count: goodAreas.length,
    meanAreaKm2:
      parsedAreas.reduce((a, g) => a + (Array.isArray(g) || !('areaSqm' in g) ? 0 : g.areaSqm / 1e6), 0) /
      Math.max(1, goodAreas.length),
    positions: goodAreas[0]?.[0].length ?? 0,
  }
  ctx.log(
    `encumbrances: ${towns.length} dense townships; ${routes.length} routes of ${fmt(ROUTE_TARGET_M / 1000)} km through ${routes.map((r) => r.townships).join(', ')} of them; ${goodAreas.length} areas of 25 km²`,
  )

  const headers = { 'X-API-KEY': key, 'Content-Type': 'application/json' }
  const cases = [
    {
      kind: 'route' as const,
      label: `route of ${fmt(ROUTE_TARGET_M / 1000)} km`,
      geometries: routes.map((r) => ({ type: 'LineString', coordinates: r.coordinates })),
    },
    {
      kind: 'area' as const,
      label: 'area of 25 km²',
      geometries: goodAreas.map((coordinates) => ({ type: 'Polygon', coordinates })),
    },
  ]
  const all = [...ENCUMBRANCE_CLASSES]
  for (const c of cases) {
    if (!c.geometries.length) continue
    const inputs = c.geometries.map((g) => parseInputGeometry(g as { type: string; coordinates: unknown[] }))
    const service = await measureAsync(c.label, QUERIES, inputs.length, rounds, null, (k) => {
      const g = inputs[k]
      if (Array.isArray(g)) return NaN
      return s.intersect('lines' in g ? { lines: g.lines } : { mp: g.mp }, all).encumbrances.length
    })
    // the screening answer the targets were set for: lists and overlaps, encumbrance geometries left out
    const bodies = c.geometries.map((geometry) => JSON.stringify({ geometry, include_geometry: false }))
    const texts: string[] = new Array(bodies.length)
    const statuses = new Uint16Array(bodies.length)
    const whole = await measureAsync(c.label, WHOLE, bodies.length, rounds, null, async (k) => {
      const res = await app.request('/api/v1/encumbrances/intersect', { method: 'POST', headers, body: bodies[k] })
      texts[k] = await res.text()
      statuses[k] = res.status
      return 0
    })
    const check = failures(ctx, `POST /intersect (${c.kind})`)
    let enc = 0
    let parcels = 0
    let truncE = 0
    let truncP = 0
    let bytes = 0
    for (let k = 0; k < bodies.length; k++) {
      if (statuses[k] !== 200) {
        check.fail(`${c.kind} ${k} answered ${statuses[k]}: ${texts[k].slice(0, 200)}`)
        continue
      }
      const body = JSON.parse(texts[k]) as {
        encumbrances: unknown[]
        parcels: unknown[]
        encumbrances_truncated: boolean
        parcels_truncated: boolean
      }
      const g = inputs[k]
      const want = Array.isArray(g) ? null : s.intersect('lines' in g ? { lines: g.lines } : { mp: g.mp }, all)
      if (
        want &&
        (want.encumbrances.length !== body.encumbrances.length || want.parcels.length !== body.parcels.length)
      ) {
        check.fail(
          `${c.kind} ${k} listed ${body.encumbrances.length} encumbrances and ${body.parcels.length} parcels, in process ${want.encumbrances.length} and ${want.parcels.length}`,
        )
      }
      enc += body.encumbrances.length
      parcels += body.parcels.length
      if (body.encumbrances_truncated) truncE++
      if (body.parcels_truncated) truncP++
      bytes += Buffer.byteLength(texts[k])
      if (c.kind === 'route') {
        const r = routes[k]
        const times = [...whole.perKey[k]].sort((a, b) => a - b)
        data.routes.push({
          lengthKm: (Array.isArray(g) || !('lengthM' in g) ? NaN : g.lengthM) / 1000,
          positions: r.coordinates.length,
          townships: r.townships,
          encumbrances: body.encumbrances.length,
          parcels: body.parcels.length,
          encumbrancesTruncated: body.encumbrances_truncated,
          parcelsTruncated: body.parcels_truncated,
          bytes: Buffer.byteLength(texts[k]),
          p50Ms: times[Math.ceil(times.length / 2) - 1],
        })
      }
    }
    check.done()
    const n = bodies.length
    whole.row.meanResults = enc / n
    service.row.meanResults = enc / n
    const extra = {
      kind: c.kind,
      meanParcels: parcels / n,
      truncatedEncumbrances: truncE,
      truncatedParcels: truncP,
      requests: n,
      meanBytes: bytes / n,
    }
    data.intersectRows.push({ ...service.row, ...extra }, { ...whole.row, ...extra })
    ctx.log(
      `encumbrances: /intersect ${c.label}: whole handler p50 ${fmt(whole.row.all.p50Us / 1000, 2)} ms, p99 ${fmt(whole.row.all.p99Us / 1000, 2)} ms (intersect() p50 ${fmt(service.row.all.p50Us / 1000, 2)} ms); ` +
        `${fmt(enc / n)} encumbrances, ${fmt(parcels / n)} parcels, ${fmt(bytes / n / 1024)} KiB per answer; ` +
        `truncated ${truncE}/${truncP} of ${n}`,
    )
  }
}

export async function measureTiles(
  ctx: SuiteContext,
  cells: { cx: number; cy: number; n: number }[],
  app: App,
  key: string,
  data: EncumbrancesData,
): Promise<void> {
  const quick = ctx.opts.quick
  const rounds = quick ? 1 : 3
  const { tiles, cells: used } = makeTiles(cells, quick ? 30 : 300, ctx.opts.seed)
  if (!tiles.length) {
    data.notes.push('no heat cell: the tiles were not measured')
    return
  }
  const headers = { 'X-API-KEY': key }
  const paths = tiles.map((t) => `/api/v1/encumbrances/tiles/${TILE_ZOOM}/${t.x}/${t.y}.mvt`)
  const sizes = new Float64Array(tiles.length)
  const statuses = new Uint16Array(tiles.length)
  const { row } = await measureAsync(`tile z${TILE_ZOOM}`, WHOLE, tiles.length, rounds, null, async (k) => {
    const res = await app.request(paths[k], { headers })
    sizes[k] = (await res.arrayBuffer()).byteLength
    statuses[k] = res.status
    return res.status === 200 ? 1 : 0
  })
  const check = failures(ctx, `GET /tiles/${TILE_ZOOM}`)
  let ok = 0
  let empty = 0
  let bytes = 0
  let maxBytes = 0
  for (let k = 0; k < tiles.length; k++) {
    if (statuses[k] === 200) {
      ok++
      bytes += sizes[k]
      maxBytes = Math.max(maxBytes, sizes[k])
    } else if (statuses[k] === 204) empty++
    else check.fail(`${paths[k]} answered ${statuses[k]}`)
  }
  check.done()
  row.meanResults = ok / tiles.length
  data.tiles = {
    tiles: tiles.length,
    cells: used,
    rounds,
    row,
    share204: empty / tiles.length,
    meanBytes: ok ? bytes / ok : NaN,
    maxBytes,
  }
  ctx.log(
    `encumbrances: ${tiles.length} z${TILE_ZOOM} tiles: p50 ${fmt(row.all.p50Us / 1000, 2)} ms, p99 ${fmt(row.all.p99Us / 1000, 2)} ms, ${fmt(bytes / Math.max(1, ok) / 1024)} KiB per tile, ${fmt((empty / tiles.length) * 100)} % 204`,
  )
}

// ---------------------------------------------------------------------------------------------
// HTTP

/** `/encumbrances/parcel/{lpi}` over HTTP, on seeded LPIs of current parcels (every answer a 200). */
export function runHttp(ctx: SuiteContext, ds: OpenDataset, s: EncumbranceQueries): Promise<HttpRoundsData> {
  return runHttpRounds<{ encumbrances?: { encumbrance_uid: number }[] }>(ctx, {
    name: 'encumbrances',
    endpoint: '/encumbrances/parcel/{lpi}',
    product: 'encumbrance',
    requests(count) {
      const probes = makeLpiProbes(ds, s, count, ctx.opts.seed, 'http')
      if (!probes.length) throw new Error('encumbrances http: no current parcel to ask for')
      return {
        paths: probes.lpi.map((l) => `/api/v1/encumbrances/parcel/${l}`),
        expected: probes.parcelId.map((id) => JSON.stringify(s.overlapsOfParcel(id).map((o) => o.row.uid))),
      }
    },
    answer: (body) => JSON.stringify(body.encumbrances?.map((e) => e.encumbrance_uid) ?? null),
    quote: (answer) => answer.slice(0, 300),
  })
}
