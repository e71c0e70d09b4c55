/** GET /parcels/within: the parcels intersecting a box, a page at a time, and its opaque cursor. */
import type { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../../../http/env.js'
import { ApiError } from '../../../http/errors.js'
import { isGeoJson } from '../../../http/geojson.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import { parcelsGeoJson } from '../geojson.js'
import type { ParcelQueries } from '../queries.js'
import { LookupEnvelopeSchema, WithinQuerySchema } from '../schemas.js'
import { TAG, filterOf, type ParcelRoutes } from './shared.js'

export function registerWithinRoute(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  router.add(
    {
      method: 'get',
      path: '/parcels/within',
      operationId: 'getParcelsWithin',
      tags: TAG,
      summary: 'Parcels intersecting a bounding box, cursor paginated',
      description:
        'The box spans at most 0.05 degrees per side. Parcels are returned by `id`, `page_size` at a time; when ' +
        'more exist the answer carries `next_cursor`: send it back as `cursor` with the same box and filters ' +
        'for the next page. A cursor from another query or dataset is a 400.',
      request: { query: WithinQuerySchema },
      geojson: true,
      responses: { 200: { description: 'One page of parcels.', schema: LookupEnvelopeSchema } },
    },
    guards,
    (c, { query }) => parcelsWithin(c, service(c), query),
  )
}

/** One page of the parcels in the box, after the cursor's last id. */
function parcelsWithin(c: Context<AppEnv>, s: ParcelQueries, query: z.infer<typeof WithinQuerySchema>): Response {
  const f = filterOf(query)
  const box = { minX: query.min_lng, minY: query.min_lat, maxX: query.max_lng, maxY: query.max_lat }
  const signature = JSON.stringify([box.minX, box.minY, box.maxX, box.maxY, f.all, f.type ?? null])
  const after = query.cursor ? decodeCursor(query.cursor, s.version, signature) : 0
  const page = s.within(box, after, query.page_size, f)
  const body: Record<string, unknown> = {
    parcels: page.parcels,
    message: page.parcels.length
      ? `${plural(page.parcels.length, 'parcel')} in the box${page.more ? ' (more: use next_cursor)' : ''}`
      : 'No parcel intersects the box',
    dataset_version: s.version,
  }
  if (page.more) body.next_cursor = encodeCursor({ v: s.version, q: signature, after: page.lastId })
  return isGeoJson(c) ? parcelsGeoJson(c, s, body, page.parcels) : json(c, body)
}

/**
 * Opaque cursor of a paged parcel list (/within, the OGC API collection): the last id served,
 * bound to the dataset and to the query it was issued for (`q`: its box and filter).
 */
export function encodeCursor(state: { v: string; q: string; after: number }): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url')
}
/** The last id a cursor names; a ValidationError naming `cursor` when it is not one issued for this query. */
export function decodeCursor(cursor: string, v: string, q: string): number {
  let state: unknown
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    state = null
  }
  const s = state as { v?: unknown; q?: unknown; after?: unknown } | null
  if (!s || typeof s.after !== 'number' || !Number.isSafeInteger(s.after) || s.after < 0) {
    throw new ApiError('ValidationError', 'invalid request: cursor', [
      { field: 'cursor', message: 'cursor is not one this service issued' },
    ])
  }
  if (s.v !== v || s.q !== q) {
    throw new ApiError('ValidationError', 'invalid request: cursor', [
      {
        field: 'cursor',
        message:
          'cursor belongs to another query or dataset; send it with the same box and filters, or start again ' +
          'without it',
      },
    ])
  }
  return s.after
}
