/**
 * `GET /encumbrances/heatmap`: coverage-map data for a viewport, density cells when it is wide,
 * the boundaries of the classes drawn at its span when it is narrow.
 *
 * @module
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import { HEAT_CELL_DEG, type EncumbranceClass } from '../../../data/encumbrance-format.js'
import type { AppEnv, RouteGuard } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import type { BBox } from '../../../geo/polygon.js'
import { round } from '../../../geo/round.js'
import type { EncumbranceQueries } from '../queries.js'
import { geoJsonOf } from '../records.js'
import { HeatmapEnvelopeSchema } from '../answers.js'
import { HeatmapQuerySchema } from '../schemas.js'
import { envelope, TAG, type EncumbranceService } from './shared.js'

/** Heat-map boundaries: the widest viewport side (degrees) at which a class is still drawn. */
export const HEATMAP_MAX_SPAN: Record<EncumbranceClass, number> = {
  servitude_area: 0.1,
  servitude_line: 0.1,
  proclamation_line: 0.5,
  established_boundary: 0.5,
  lease: 0.5,
  mineral_right: 1,
  state_land: 1,
  river_bed: 1,
  proclamation_area: 1,
}
/** `view=auto` draws boundaries when the viewport's wider side is at most this, density cells above. */
export const HEATMAP_AUTO_BOUNDARIES_DEG = 0.1
/** At most this many density cells or features per heat-map answer. */
export const HEATMAP_MAX_ITEMS = 4000
/**
 * Density cells per viewport side, about: the cell is the smallest whole multiple of 0.01° giving at most this many.
 */
export const HEATMAP_CELLS_PER_SIDE = 100

type HeatmapQuery = z.output<typeof HeatmapQuerySchema>

/** Density cells or boundaries, as the view asks or the span decides. */
export function answerHeatmap(c: Context<AppEnv>, s: EncumbranceQueries, query: HeatmapQuery): Response {
  const span = Math.max(query.north - query.south, query.east - query.west)
  const view =
    query.view === 'boundaries' || (query.view !== 'density' && span <= HEATMAP_AUTO_BOUNDARIES_DEG)
      ? 'boundaries'
      : 'density'
  const box = { minX: query.west, minY: query.south, maxX: query.east, maxY: query.north }
  return view === 'density'
    ? densityAnswer(c, s, box, span, query.classes)
    : boundariesAnswer(c, s, box, span, query.classes)
}

/**
 * Cells of the smallest whole multiple of HEAT_CELL_DEG giving about HEATMAP_CELLS_PER_SIDE per side, busiest first.
 */
function densityAnswer(
  c: Context<AppEnv>,
  s: EncumbranceQueries,
  box: BBox,
  span: number,
  classes: EncumbranceClass[],
): Response {
  const k = Math.max(1, Math.ceil(span / HEAT_CELL_DEG / HEATMAP_CELLS_PER_SIDE))
  const cellDeg = round(k * HEAT_CELL_DEG, 2)
  const all = s.heatCells(box, k, classes).sort((a, b) => b.count - a.count || a.gy - b.gy || a.gx - b.gx)
  const cells = all.slice(0, HEATMAP_MAX_ITEMS).map((g) => ({
    west: round(g.gx * cellDeg, 2),
    south: round(g.gy * cellDeg, 2),
    east: round((g.gx + 1) * cellDeg, 2),
    north: round((g.gy + 1) * cellDeg, 2),
    count: g.count,
    counts_by_class: g.byClass,
  }))
  const total = all.reduce((a, g) => a + g.count, 0)
  return json(c, {
    view: 'density',
    cell_deg: cellDeg,
    cells,
    truncated: all.length > HEATMAP_MAX_ITEMS,
    message:
      `${total} current encumbrances in ${plural(all.length, 'cell')} of ${cellDeg}°` +
      (all.length > HEATMAP_MAX_ITEMS ? ` (busiest ${HEATMAP_MAX_ITEMS} shown)` : ''),
    ...envelope(s),
  })
}

/** A GeoJSON FeatureCollection of the classes drawn at this span; the others listed as omitted. */
function boundariesAnswer(
  c: Context<AppEnv>,
  s: EncumbranceQueries,
  box: BBox,
  span: number,
  classes: EncumbranceClass[],
): Response {
  const omitted: { encumbrance_class: string; reason: string; max_span_degrees: number }[] = []
  const features: Record<string, unknown>[] = []
  let truncated = false
  for (const cls of classes) {
    if (span > HEATMAP_MAX_SPAN[cls]) {
      omitted.push({
        encumbrance_class: cls,
        reason: `drawn when the viewport's wider side is at most ${HEATMAP_MAX_SPAN[cls]}°; this one spans ${round(span, 4)}°`,
        max_span_degrees: HEATMAP_MAX_SPAN[cls],
      })
      continue
    }
    if (truncated) continue
    const rows = s.inBox(cls, box, HEATMAP_MAX_ITEMS - features.length)
    for (const { row: r, geometry } of rows) {
      if (features.length >= HEATMAP_MAX_ITEMS) {
        truncated = true
        break
      }
      features.push({
        type: 'Feature',
        id: r.uid,
        properties: {
          encumbrance_uid: r.uid,
          encumbrance_class: r.cls,
          ease_type_normalised: r.easeTypeNormalised,
          ...(r.sgNumber ? { sg_number: r.sgNumber } : {}),
        },
        geometry: geoJsonOf(geometry),
      })
    }
  }
  return json(c, {
    view: 'boundaries',
    type: 'FeatureCollection',
    features,
    omitted,
    truncated,
    message: `${plural(features.length, 'encumbrance')} drawn in the viewport${truncated ? ` (first ${HEATMAP_MAX_ITEMS} only)` : ''}`,
    ...envelope(s),
  })
}

export function registerHeatmapRoute(router: ApiRouter, guards: RouteGuard[], service: EncumbranceService): void {
  router.add(
    {
      method: 'get',
      path: '/encumbrances/heatmap',
      operationId: 'getEncumbranceHeatmap',
      tags: TAG,
      summary: 'Coverage-map data for a viewport',
      description:
        '`north`, `south`, `east`, `west` (required), `view` (`auto` default, `density`, `boundaries`), `classes` ' +
        '(comma list, default all). ' +
        `\`auto\` answers density cells when the viewport's wider side exceeds ${HEATMAP_AUTO_BOUNDARIES_DEG}°, geometries ` +
        `otherwise. ` +
        `Density: \`cells\` of \`cell_deg\` (the smallest whole multiple of 0.01° giving about ${HEATMAP_CELLS_PER_SIDE} cells per side), ` +
        `each with its box, \`count\` of current records (placed by the centre of their box) and ` +
        `\`counts_by_class\`, busiest first, at most ${HEATMAP_MAX_ITEMS} with \`truncated\`. ` +
        `Boundaries: a GeoJSON FeatureCollection (\`type\`, \`features\`, properties encumbrance_uid, ` +
        `encumbrance_class, ease_type_normalised, sg_number), at most ${HEATMAP_MAX_ITEMS} features with ` +
        `\`truncated\`; a class is drawn only when the viewport's wider side is at most: ${Object.entries(
          HEATMAP_MAX_SPAN,
        )
          .map(([k, v]) => `${k} ${v}°`)
          .join(', ')} (else listed under \`omitted\`).`,
      request: { query: HeatmapQuerySchema },
      responses: { 200: { description: 'Cells or features.', schema: HeatmapEnvelopeSchema } },
    },
    guards,
    (c, { query }) => answerHeatmap(c, service(c), query),
  )
}
