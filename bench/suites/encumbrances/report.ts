/** The encumbrance suite's section of RESULTS.md. */
import { INTERSECT_MAX_ENCUMBRANCES, INTERSECT_MAX_PARCELS } from '../../../src/features/encumbrances/queries.js'
import { ROUTE_MAX_M } from '../../../src/features/encumbrances/geometry-input.js'
import { httpRoundsSection } from '../../lib/http-rounds.js'
import type { OpRow } from '../../lib/measure.js'
import { verdict } from '../../lib/report.js'
import { fmt, type Summary } from '../../lib/stats.js'
import type { SuiteRecord } from '../../lib/suite.js'
import { QUERIES, TARGETS, WHOLE, type EncumbrancesData } from './model.js'
import {
  BOW_MAX_M,
  BOW_SHARE,
  CLUSTER_DEG,
  MIN_HOP_M,
  ROUTE_DRAWS,
  ROUTE_TARGET_M,
  START_POOL,
  STEP_M,
  TILE_CELL_SHARE,
  TILE_MIN_CELLS,
  TILE_ZOOM,
  TURN_LIMITS,
  WIGGLE_M,
} from './probes.js'

/** The markdown of one record. */
export function renderEncumbrances(r: SuiteRecord<EncumbrancesData>): string {
  const d = r.data
  if (d.skipped) return `_Not measured: ${d.skipped}._`
  const national = r.dataset.scale === 'national'
  const us = (s: Summary | null) => (s?.n ? `${fmt(s.p50Us)} µs` : '–')
  const ms = (v: number) => `${fmt(v / 1000, 2)} ms`
  const kib = (bytes: number) => `${fmt(bytes / 1024)} KiB`
  const lines = [
    `Dataset ${d.version} (as of ${d.asOf}): ${d.records.toLocaleString('en-US')} encumbrance records (${d.current.toLocaleString('en-US')} current), ${d.overlaps.toLocaleString('en-US')} parcel overlaps ` +
      `computed at build time. ` +
      `"${WHOLE}" sends each request through the app (routing, key check, rate limit, validation, queries, the ` +
      `JSON or MVT answer read back as text or bytes, not parsed); "${QUERIES}" is the ` +
      `\`createEncumbranceQueries\` calls the route makes, without shaping the answer. ` +
      `Every answer was checked afterwards against the in-process queries (same uids, counts, lists). One warm-up ` +
      `pass, then timed rounds; ops/s from one untimed pass.`,
  ]
  const parcelWhole = d.lookupRows.find((x) => x.op === '/parcel/{lpi}' && x.variant === WHOLE)
  if (d.lookupRows.length) {
    lines.push(
      '',
      `**Parcel lookups**: ${d.lpis.toLocaleString('en-US')} seeded LPIs of current parcels (drawn uniformly over ` +
        `parcel rows; ${d.withOverlaps.toLocaleString('en-US')} whose parcel has ` +
        `encumbrance overlaps, ${d.withoutOverlaps.toLocaleString('en-US')} without), ${d.lpiRounds} timed round(s).`,
      '',
      '| query | variant | p50 | p99 | mean | p50 with / without overlaps | ops/s | mean encumbrances | target | ' +
        'verdict |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|---|',
      ...d.lookupRows.map((x) => {
        const target = x === parcelWhole ? TARGETS.parcelP50Ms : null
        return (
          `| ${x.op} | ${x.variant} | ${us(x.all)} | ${fmt(x.all.p99Us)} µs | ${fmt(x.all.meanUs)} µs | ${us(x.near)} / ${us(x.random)} | ${fmt(x.opsPerS)} | ${fmt(x.meanResults, 2)} | ` +
          `${target === null ? '' : `≤ ${target} ms`} | ${target === null ? '' : verdict(national, x.all.p50Us / 1000, target, 'ms')} |`
        )
      }),
    )
  }
  const atWhole = d.atRows?.find((x) => x.op === '/at' && x.variant === WHOLE)
  const parcelsAtWhole = d.atRows?.find((x) => x.op.startsWith('/parcels/at'))
  const atRatio = atWhole && parcelsAtWhole ? parcelsAtWhole.all.meanUs / atWhole.all.meanUs : null
  if (d.atRows?.length) {
    lines.push(
      '',
      `**Point lookups** (\`GET /encumbrances/at\`, every class): ${d.atPoints?.toLocaleString('en-US')} seeded points, ` +
        `those of the parcel suite's \`/parcels/at\` HTTP run (each within 400 m of a published parcel's label point, ` +
        `kept where a parcel holds it); radius 1 km on the first fifth of them; \`/parcels/at\` on the same points ` +
        `for the yardstick. ${d.atRounds} timed round(s).`,
      '',
      '| query | variant | p50 | p99 | mean | ops/s | mean encumbrances |',
      '|---|---|--:|--:|--:|--:|--:|',
      ...d.atRows.map(
        (x) =>
          `| ${x.op} | ${x.variant} | ${us(x.all)} | ${fmt(x.all.p99Us)} µs | ${fmt(x.all.meanUs)} µs | ${fmt(x.opsPerS)} | ${x.op.startsWith('/parcels') ? '' : fmt(x.meanResults, 2)} |`,
      ),
      '',
      `\`/encumbrances/at\` over \`/parcels/at\` throughput (whole handler, mean time per request): ` +
        `${atRatio === null ? '–' : `${fmt(atRatio, 2)}x`}; target ≥ ${TARGETS.atThroughputRatio}x at national scale: ` +
        `${atRatio === null ? '–' : national ? (atRatio >= TARGETS.atThroughputRatio ? 'met' : 'not met') : '(target is for national scale)'}.`,
    )
  }
  const routeWhole = d.intersectRows.find((x) => x.kind === 'route' && x.variant === WHOLE)
  if (d.intersectRows.length) {
    const meanKm = d.routes.length ? d.routes.reduce((a, x) => a + x.lengthKm, 0) / d.routes.length : NaN
    lines.push(
      '',
      `**Corridor and area screening** (\`POST /encumbrances/intersect\`, every class): ${d.routes.length} seeded routes of ${fmt(meanKm)} km (the ${ROUTE_MAX_M / 1000} km limit less 0.1 ` +
        `%) drawn through the dense townships of the \`heat_cell\` table ` +
        `(${d.townships.toLocaleString('en-US')} clusters of 0.01° cells within ${CLUSTER_DEG}°): each from ` +
        `another of the ${START_POOL} densest, hops of at ` +
        `least ${MIN_HOP_M / 1000} km to the township ` +
        `ahead with the best density for its distance (at most ${TURN_LIMITS[0][0]}° per turn and ${TURN_LIMITS[0][1]}° off the first ` +
        `heading, else ${TURN_LIMITS[1][0]}° and ${TURN_LIMITS[1][1]}°), ` +
        `each hop bowed by up to ${BOW_SHARE * 100} % of its length (at most ${BOW_MAX_M / 1000} km) with a ${WIGGLE_M} m wiggle, a ` +
        `position every ${STEP_M} m, straight on when ` +
        `no township is ahead; of ${ROUTE_DRAWS} such draws, the one ` +
        `whose townships hold the most records, each having passed the route's own validation (length, ` +
        `positions, not self-intersecting). ` +
        `Areas: ${d.areas.count} squares of ${fmt(d.areas.meanAreaKm2)} km² (${d.areas.positions} positions) at ` +
        `random angles, each centred on another of those densest townships. ${d.intersectRounds} timed round(s). ` +
        `Lists stop at ${INTERSECT_MAX_ENCUMBRANCES.toLocaleString('en-US')} encumbrances and ${INTERSECT_MAX_PARCELS.toLocaleString('en-US')} parcels ` +
        `("truncated": answers that said so).`,
      '',
      '| case | variant | p50 | p99 | mean | ops/s | mean encumbrances | mean parcels | truncated (enc. / parcels) ' +
        '| mean answer | target | verdict |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
      ...d.intersectRows.map((x) => {
        const target = x === routeWhole ? TARGETS.intersectRouteP50Ms : null
        return (
          `| ${x.op} | ${x.variant} | ${ms(x.all.p50Us)} | ${ms(x.all.p99Us)} | ${ms(x.all.meanUs)} | ${fmt(x.opsPerS)} | ${fmt(x.meanResults)} | ${fmt(x.meanParcels)} | ` +
          `${x.truncatedEncumbrances} / ${x.truncatedParcels} of ${x.requests} | ${x.variant === WHOLE ? kib(x.meanBytes) : ''} | ${target === null ? '' : `≤ ${target} ms`} | ${target === null ? '' : verdict(national, x.all.p50Us / 1000, target, 'ms')} |`
        )
      }),
    )
    if (d.routes.length) {
      lines.push(
        '',
        '| route | km | positions | dense townships | encumbrances | parcels | truncated | answer | whole handler ' +
          'p50 |',
        '|--:|--:|--:|--:|--:|--:|---|--:|--:|',
        ...d.routes.map(
          (x, i) =>
            `| ${i + 1} | ${fmt(x.lengthKm)} | ${x.positions} | ${x.townships} | ${x.encumbrances.toLocaleString('en-US')} | ${x.parcels.toLocaleString('en-US')} | ` +
            `${[x.encumbrancesTruncated ? 'encumbrances' : '', x.parcelsTruncated ? 'parcels' : ''].filter(Boolean).join(', ') || 'no'} | ${kib(x.bytes)} | ${fmt(x.p50Ms, 2)} ms |`,
        ),
      )
    }
  }
  const t = d.tiles
  if (t) {
    lines.push(
      '',
      `**Vector tiles** (\`GET /encumbrances/tiles/${TILE_ZOOM}/{x}/{y}.mvt\`, every class): ${t.tiles} distinct z${TILE_ZOOM} tiles of seeded ` +
        `points in the ${t.cells.toLocaleString('en-US')} densest heat cells ` +
        `(the top ${TILE_CELL_SHARE * 100} %, at least ${TILE_MIN_CELLS}), ${t.rounds} timed round(s).`,
      '',
      '| tiles | variant | p50 | p99 | mean | ops/s | 204 share | mean bytes (200) | largest | target | verdict |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|',
      `| ${t.row.op} | ${t.row.variant} | ${ms(t.row.all.p50Us)} | ${ms(t.row.all.p99Us)} | ${ms(t.row.all.meanUs)} | ${fmt(t.row.opsPerS)} | ${fmt(t.share204 * 100)} % | ${kib(t.meanBytes)} | ${kib(t.maxBytes)} | ≤ ${TARGETS.tileP50Ms} ms | ${verdict(national, t.row.all.p50Us / 1000, TARGETS.tileP50Ms, 'ms')} |`,
    )
  }
  if (d.http) {
    const wording = {
      endpoint: '/encumbrances/parcel/{lpi}',
      points: 'seeded LPIs of current parcels (80 % with encumbrance overlaps)',
      agreement: 'uid lists identical to in-process `overlapsOfParcel()`',
      targets: false,
      scale: r.dataset.scale,
    }
    lines.push('', ...httpRoundsSection(d.http, wording))
  }
  const v = (label: string, row: OpRow | undefined, target: number) =>
    `- ${label}: ${row ? `p50 ${ms(row.all.p50Us)}` : 'not measured'}, target ≤ ${target} ms: ${row ? verdict(national, row.all.p50Us / 1000, target, 'ms') : '–'}`
  lines.push(
    '',
    `Targets (national scale, whole handler p50):`,
    '',
    v(
      `\`POST /encumbrances/intersect\`, ${fmt(ROUTE_TARGET_M / 1000)} km route through dense townships`,
      routeWhole,
      TARGETS.intersectRouteP50Ms,
    ),
    v('`GET /encumbrances/parcel/{lpi}`', parcelWhole, TARGETS.parcelP50Ms),
    v(`tile at z${TILE_ZOOM} in a dense township`, t?.row, TARGETS.tileP50Ms),
  )
  if (d.notes.length) lines.push('', ...d.notes.map((n) => `_Note: ${n}._`))
  return lines.join('\n')
}
