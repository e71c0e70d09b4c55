/** `GET /jurisdiction/at`: the chain at a point, its answer written around the cached item bytes. */
import type { Context } from 'hono'
import type { AppEnv } from '../../../http/env.js'
import { ApiError } from '../../../http/errors.js'
import { isGeoJson } from '../../../http/geojson.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json, reply } from '../../../http/reply.js'
import { chainGeoJson } from '../geojson.js'
import type { BatchItem, JurisdictionQueries } from '../queries.js'
import { ChainEnvelopeSchema } from '../answers.js'
import { AtQuerySchema } from '../schemas.js'
import { chainMessage, envOf, TAG, today, type JurisdictionRouteContext } from './common.js'

/** The tails of `/jurisdiction/at` answers per open dataset (see atAnswer). */
const AT_TAILS = new WeakMap<JurisdictionQueries, Map<string, Buffer>>()

export function registerAtRoute(router: ApiRouter, { guards, service }: JurisdictionRouteContext): void {
  router.add(
    {
      method: 'get',
      path: '/jurisdiction/at',
      operationId: 'getJurisdictionAt',
      tags: TAG,
      summary: 'Chain of administrative authority at a point',
      description:
        'Province, district municipality, local municipality, ward, registration division, Deeds Office and ' +
        'township, each a link object or null. ' +
        "Without `as_at`, today's boundaries (Africa/Johannesburg) answer; with it, only boundary sets in force on " +
        'that date (`effective_from` inclusive, `effective_to` exclusive). ' +
        'The ward is found by point-in-polygon on the ward layer in force and its municipality, district and ' +
        'province follow from its codes; the municipal layer answers where no ward does. ' +
        'A point on a shared edge takes the boundary with the lowest code, so a coordinate always gives the same ' +
        'chain. ' +
        'A metro (category A) answers `district_municipality` null with a note; a null Deeds Office outside the ' +
        'published areas (FS, GP, NC) carries a note; between the 2016 and 2021 elections the ward is null with ' +
        'a note (the 2016 delimitation has no geometry here). ' +
        'An `as_at` earlier than the earliest installed set answers an empty chain with a note. A point that only ' +
        'the cadastral register holds (registration division, Deeds Office, township) answers 200 with those ' +
        'links, null dated links and a note. Outside every layer: 404 NoJurisdictionAtPoint with `details.nearest`.',
      request: { query: AtQuerySchema },
      geojson: true,
      responses: {
        200: { description: 'The chain.', schema: ChainEnvelopeSchema },
        404: {
          description: 'NoJurisdictionAtPoint: `details.nearest` = {boundary_type, code, name, distance_meters}.',
        },
        503: { description: 'JurisdictionDataUnavailable.' },
      },
    },
    guards,
    (c, { query }) => chainAtPoint(c, service(c), query.lat, query.lon, query.as_at),
  )
}

/**
 * The chain at (latitude, longitude) on `asAt` (default today), or 404 NoJurisdictionAtPoint naming the nearest
 * boundary.
 */
function chainAtPoint(
  c: Context<AppEnv>,
  s: JurisdictionQueries,
  latitude: number,
  longitude: number,
  asAt: string | undefined,
): Response {
  const d = asAt ?? today()
  // the chain and notes as cached UTF-8 bytes (shared with the batch), the rest of the
  // answer as cached bytes per date: the same text JSON.stringify gives, without building it
  const geo = isGeoJson(c)
  const item = geo ? null : s.resolveItem(longitude, latitude, d)
  if (item) return reply(c, atAnswer(s, item, d), 200, 'application/json')
  const r = s.resolve(longitude, latitude, d)
  if (!r.found && s.earliest !== null && d >= s.earliest) {
    const nearest = s.nearest(longitude, latitude, d)
    throw new ApiError(
      'NoJurisdictionAtPoint',
      nearest
        ? `no boundary in force on ${d} contains the point; the nearest is ` +
            `${nearest.boundary_type} ${nearest.code} (${nearest.name}), ${nearest.distance_meters} m away`
        : `no boundary in force on ${d} contains the point`,
      nearest ? { nearest } : undefined,
    )
  }
  const body = {
    jurisdiction: r.jurisdiction,
    notes: r.notes,
    as_at: d,
    message: chainMessage(r.found, d),
    ...envOf(s),
  }
  return geo ? chainGeoJson(c, s, r, body) : json(c, body)
}

/**
 * `GET /jurisdiction/at`'s answer `{"jurisdiction":…,"notes":[…],"as_at":…,"message":…,"as_of":…,"dataset_version":…}`:
 * the item's bytes with their closing brace dropped, then the tail `,"as_at":…}` cached per
 * dataset, date and found (the same text JSON.stringify gives for the whole answer).
 */
function atAnswer(s: JurisdictionQueries, item: BatchItem, d: string): Uint8Array {
  let tails = AT_TAILS.get(s)
  if (!tails) AT_TAILS.set(s, (tails = new Map()))
  const key = item.found ? `+${d}` : `-${d}`
  let tail = tails.get(key)
  if (!tail) {
    if (tails.size >= 1000) tails.clear()
    const text = JSON.stringify({ as_at: d, message: chainMessage(item.found, d), ...envOf(s) })
    tails.set(key, (tail = Buffer.from(`,${text.slice(1)}`, 'utf8')))
  }
  const head = item.bytes.length - 1
  const out = Buffer.allocUnsafe(head + tail.length)
  item.bytes.copy(out, 0, 0, head)
  tail.copy(out, head)
  return out
}
