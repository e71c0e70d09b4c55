/**
 * `GET /encumbrances/search`: a page of the encumbrances matching attribute filters.
 *
 * @module
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import { ENCUMBRANCE_CLASSES } from '../../../data/encumbrance-format.js'
import type { AppEnv, RouteGuard } from '../../../http/env.js'
import { isGeoJson } from '../../../http/geojson.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { encumbrancesGeoJson } from '../geojson.js'
import type { EncumbranceQueries } from '../queries.js'
import { recordOf } from '../records.js'
import { ListEnvelopeSchema } from '../answers.js'
import { SearchQuerySchema } from '../schemas.js'
import { envelope, found, TAG, type EncumbranceService } from './shared.js'

/** One page of the records matching the filters (in SQL), and the cursor of the next. */
export function answerSearch(
  c: Context<AppEnv>,
  s: EncumbranceQueries,
  query: z.output<typeof SearchQuerySchema>,
): Response {
  const classes = query.encumbrance_class.length === ENCUMBRANCE_CLASSES.length ? undefined : query.encumbrance_class
  const page = s.search(
    {
      province: query.province,
      classes,
      easeType: query.ease_type,
      easeTypeNormalised: query.ease_type_normalised,
      sgNumber: query.sg_number,
      recordStatus: query.record_status ?? 'current',
      bbox: query.bbox,
    },
    query.limit,
    query.cursor,
  )
  // the GeoJSON form draws each record: its geometry, which the JSON form leaves out
  const geo = isGeoJson(c)
  return (geo ? encumbrancesGeoJson : json)(c, {
    encumbrances: page.rows.map((r) => recordOf(r, geo ? { geometry: s.geometryOf(r) } : undefined)),
    count: page.rows.length,
    limit: query.limit,
    // absent on the last page: absent fields are omitted, never null
    ...(page.next !== null ? { next_cursor: page.next } : {}),
    message:
      found(page.rows.length, 'matching the filters', s) +
      (page.windowEnd !== null ? `; records up to ${page.windowEnd} scanned, continue with next_cursor` : ''),
    ...envelope(s),
  })
}

export function registerSearchRoute(router: ApiRouter, guards: RouteGuard[], service: EncumbranceService): void {
  router.add(
    {
      method: 'get',
      path: '/encumbrances/search',
      operationId: 'searchEncumbrances',
      tags: TAG,
      summary: 'Encumbrances by attribute',
      description:
        'All filters optional and combined: `province`, `encumbrance_class` (comma list), `ease_type` (raw value, ' +
        'trimmed, case-insensitive), `ease_type_normalised`, `sg_number` (exact, or `*` wildcards such as ' +
        '`1234/*` or `*/1987`; at most 3, with 2 other characters), ' +
        '`record_status` (omitted or `current`: current records; `any`: cancelled, withdrawn, historic and pending ' +
        'too; or one status), `bbox` (records whose box meets it). ' +
        'Source order, `limit` 1–1000 (default 100), `cursor` as /within. A wildcard with neither a literal start ' +
        'nor a literal end scans at most 200 000 records per page: such a page may hold fewer than `limit` ' +
        'records with a `next_cursor` to continue.',
      request: { query: SearchQuerySchema },
      geojson: true,
      responses: { 200: { description: 'List envelope.', schema: ListEnvelopeSchema } },
    },
    guards,
    (c, { query }) => answerSearch(c, service(c), query),
  )
}
