import type { Context } from 'hono'
import { z } from '@hono/zod-openapi'
import type { AppEnv } from './env.js'
import { withFastPath } from './fast-params.js'
import { reply } from './reply.js'
import { requestHeader } from './request-header.js'
import { requestOrigin } from './request-origin.js'

/**
 * GeoJSON output of the lookup routes (docs/api.md "GeoJSON output"): which form a request asks
 * for, and the RFC 7946 FeatureCollection an answer envelope becomes.
 *
 * - **The form.** `format=json` (the default) or `format=geojson`, case-insensitive; anything else
 *   is a 400 naming both. Without `format`, `Accept` decides: GeoJSON when it ranks
 *   `application/geo+json` above `application/json` ({@link prefersGeoJson}). `format` wins over
 *   `Accept`. The router (openapi.ts) adds the parameter to a route declared `geojson`, decides
 *   the form after validation (before the ETag, which names the form) and marks the request;
 *   the route asks {@link isGeoJson}.
 * - **The collection.** Each record of the envelope's list is a Feature: its fields as
 *   `properties` (less the fields its geometry was made of), its geometry (WGS84 lon/lat, or
 *   null), its stable `id`. Every other envelope field (message, cursor, counts, versions) is a
 *   foreign member of the FeatureCollection, in the envelope's order after `type` and `features`.
 * - **Read whole by GIS tools.** GDAL (so QGIS) reads `properties` as a table: a nested object
 *   would be one JSON text column, and a property `id` takes the place of the Feature's `id`. So
 *   nested objects are flattened (`legal_status.code` is `legal_status_code`) and a property `id`
 *   that is not the Feature's `id` is named `record_id` ({@link feature}). A paged list (one that
 *   takes a cursor) adds `numberReturned` and OGC API Features `links`: `self`, and `next` while
 *   more remain, absolute URLs of the GeoJSON pages ({@link pageLinks}).
 *
 * Cheap on the JSON path: a route that does not answer GeoJSON pays one `c.get`, and the
 * negotiation reads `Accept` without allocating unless it names `geo+json`.
 *
 * @module
 */

/** The media type of a GeoJSON answer (RFC 7946 §12). */
export const GEOJSON_TYPE = 'application/geo+json'

/** The values of `format`. */
export const FORMATS = ['json', 'geojson'] as const
export type Format = (typeof FORMATS)[number]

const FORMAT_MESSAGE = `format must be one of ${FORMATS.join(', ')} (case-insensitive)`

/** `format` as the routes read it: `json` or `geojson`, case-insensitive, returned lower-case; optional. */
export const FormatParam = withFastPath(
  z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .refine((s): s is Format => (FORMATS as readonly string[]).includes(s), { message: FORMAT_MESSAGE })
    .transform((s) => s as Format),
  (raw) => {
    if (raw === undefined) return undefined
    const v = raw.trim().toLowerCase()
    return v === 'json' || v === 'geojson' ? { value: v } : undefined
  },
)
  .optional()
  .openapi({
    type: 'string',
    enum: [...FORMATS],
    description:
      '`json` (default) or `geojson` (case-insensitive): an RFC 7946 FeatureCollection, `application/geo+json`. ' +
      'Without it, `Accept: application/geo+json` (ranked above `application/json`) asks for GeoJSON; `format` ' +
      'wins over `Accept`.',
  })

// cheap screen before parsing: most Accept headers never name GeoJSON
const NAMES_GEOJSON = /geo\+json/i

/**
 * Whether `Accept` ranks GeoJSON above JSON: the q of `application/geo+json` (its own range, else
 * `application/*`, else `*\/*`) above 0 and above the q of `application/json` (the same way); a
 * weight that is not a number from 0 to 1 counts as 0.
 * A tie answers JSON, the default: `application/geo+json, application/json` is JSON, and
 * `application/geo+json, application/json;q=0.9` or `application/geo+json, *\/*;q=0.1` GeoJSON.
 */
export function prefersGeoJson(accept: string | undefined): boolean {
  // a '+' first: a single-character search is a few ns, the regex tens
  if (accept === undefined || accept.indexOf('+') < 0 || !NAMES_GEOJSON.test(accept)) return false
  // q of each range: [exact geo, exact json, application/*, */*]; -1 absent
  let geo = -1
  let json = -1
  let app = -1
  let any = -1
  for (const part of accept.split(',')) {
    const semi = part.indexOf(';')
    const range = (semi < 0 ? part : part.slice(0, semi)).trim().toLowerCase()
    let q = 1
    if (semi >= 0) {
      // a weight that is not a number from 0 to 1 makes the range unacceptable
      const m = /;\s*q\s*=([^;]*)/i.exec(part.slice(semi))
      if (m) {
        const w = m[1].trim()
        q = /^[0-9.]+$/.test(w) && Number(w) <= 1 ? Number(w) : 0
        if (Number.isNaN(q)) q = 0
      }
    }
    if (range === 'application/geo+json') geo = Math.max(geo, q)
    else if (range === 'application/json') json = Math.max(json, q)
    else if (range === 'application/*') app = Math.max(app, q)
    else if (range === '*/*') any = Math.max(any, q)
  }
  const wild = app >= 0 ? app : any
  const qGeo = geo >= 0 ? geo : wild
  const qJson = json >= 0 ? json : wild
  return qGeo > 0 && qGeo > qJson
}

/** The form asked for: `format` when given (validated: `json` or `geojson`), else `Accept`. */
export function chooseGeoJson(format: string | undefined, accept: string | undefined): boolean {
  return format === undefined ? prefersGeoJson(accept) : format === 'geojson'
}

/**
 * Decides the form of a request to a route that can answer GeoJSON (the router calls it after
 * validation, `format` being the validated parameter) and marks the request; true for GeoJSON.
 * `paging`: for a paged list, the trusted proxies that may name the origin of its links.
 */
export function negotiateGeoJson(
  c: Context<AppEnv>,
  format: string | undefined,
  paging?: ReadonlySet<string>,
): boolean {
  if (!chooseGeoJson(format, format === undefined ? requestHeader(c, 'accept') : undefined)) return false
  c.set('geojson', true)
  if (paging !== undefined) c.set('geojsonPaging', paging)
  return true
}

/** Whether this request is answered as GeoJSON (see negotiateGeoJson). */
export function isGeoJson(c: Context<AppEnv>): boolean {
  return c.get('geojson') === true
}

/** A GeoJSON geometry object (RFC 7946 §3.1), positions longitude first. */
export interface Geometry {
  type: string
  coordinates: unknown
}

/** A Feature (RFC 7946 §3.2); other members are foreign members of the Feature. */
export interface Feature {
  type: 'Feature'
  id?: string | number
  geometry: Geometry | null
  properties: Record<string, unknown>
  [foreign: string]: unknown
}

/** A Point at (lon, lat). */
export function point(lon: number, lat: number): Geometry {
  return { type: 'Point', coordinates: [lon, lat] }
}

/**
 * A Feature: `id` left out when undefined; `extra` are the Feature's foreign members. Its
 * properties are flat, for GIS tools ({@link flatProperties}).
 */
export function feature(
  properties: Record<string, unknown>,
  geometry: Geometry | null,
  id?: string | number,
  extra?: Record<string, unknown>,
): Feature {
  const props = flatProperties(properties, id)
  const f: Feature =
    id === undefined
      ? { type: 'Feature', geometry, properties: props }
      : { type: 'Feature', id, geometry, properties: props }
  return extra ? Object.assign(f, extra) : f
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * `properties` as a GIS tool reads them whole: a nested object's fields become fields named
 * `<field>_<member>` in place (`label_point: {latitude, longitude}` is `label_point_latitude`,
 * `label_point_longitude`), and a field `id` whose value is not the Feature's `id` is named
 * `record_id` (GDAL would take it for the Feature's id: a parcel's row id for its LPI). Arrays
 * stay as they are. The object itself when nothing changes.
 */
export function flatProperties(properties: Record<string, unknown>, id?: string | number): Record<string, unknown> {
  let flat = true
  for (const k in properties)
    if (isObject(properties[k]) || (k === 'id' && properties[k] !== id)) {
      flat = false
      break
    }
  if (flat) return properties
  const out: Record<string, unknown> = {}
  const put = (name: string, v: unknown): void => {
    if (isObject(v)) for (const k in v) put(`${name}_${k}`, v[k])
    else out[name] = v
  }
  for (const k in properties) put(k === 'id' && properties[k] !== id ? 'record_id' : k, properties[k])
  return out
}

/**
 * `record` without the field `key` (where the geometry came from, so properties never repeat it);
 * the other fields in their order.
 */
export function without(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k in record) if (k !== key) out[k] = record[k]
  return out
}

/** Members a FeatureCollection may not carry as foreign members (RFC 7946 §3.3, §7.1; a page's OGC members). */
const RESERVED = new Set([
  'type',
  'features',
  'geometry',
  'properties',
  'coordinates',
  'geometries',
  'bbox',
  'links',
  'numberReturned',
])

/** An OGC API Features link of a page. */
export interface PageLink {
  rel: 'self' | 'next'
  href: string
  type: typeof GEOJSON_TYPE
}

/**
 * The request's absolute URL (its origin as the client used it, request-origin.ts): its path,
 * its parameters as sent less those named in `drop`, then `add` (each `name=value`, encoded).
 */
export function requestUrlWith(
  c: Context,
  trusted: ReadonlySet<string>,
  drop: readonly string[],
  add: readonly string[],
): string {
  const url = c.req.url
  const q = url.indexOf('?')
  const start = url.indexOf('/', url.indexOf(':') + 3)
  const path = url.slice(start, q < 0 ? undefined : q)
  const kept: string[] = []
  if (q >= 0)
    for (const part of url.slice(q + 1).split('&')) {
      const name = part.slice(0, part.indexOf('=') < 0 ? undefined : part.indexOf('='))
      if (part !== '' && !drop.includes(name)) kept.push(part)
    }
  kept.push(...add)
  return `${requestOrigin(c, trusted)}${path}${kept.length ? `?${kept.join('&')}` : ''}`
}

/** The value of `cursor` in the request's query as sent (still encoded), or undefined. */
function sentCursor(c: Context): string | undefined {
  const url = c.req.url
  const q = url.indexOf('?')
  return q < 0 ? undefined : /(?:^|&)cursor=([^&]*)/.exec(url.slice(q + 1))?.[1]
}

/**
 * The links of a GeoJSON page: `self`, and `next` when `next` (the envelope's `next_cursor`) is
 * given. Each is the request's absolute URL (requestUrlWith) with its parameters as sent,
 * `format=geojson` (whether `format` or `Accept` chose the form: a GIS tool following the link
 * sends neither reliably) and, for `next`, `cursor` set to it.
 */
export function pageLinks(c: Context, trusted: ReadonlySet<string>, next: unknown): PageLink[] {
  const drop = ['format', 'cursor']
  const cursor = sentCursor(c)
  const self = requestUrlWith(
    c,
    trusted,
    drop,
    cursor === undefined ? ['format=geojson'] : ['format=geojson', `cursor=${cursor}`],
  )
  const links: PageLink[] = [{ rel: 'self', href: self, type: GEOJSON_TYPE }]
  if (next !== undefined && next !== null)
    links.push({
      rel: 'next',
      href: requestUrlWith(c, trusted, drop, ['format=geojson', `cursor=${encodeURIComponent(String(next))}`]),
      type: GEOJSON_TYPE,
    })
  return links
}

/**
 * The FeatureCollection of an answer envelope: `features`, then every envelope field but the
 * list `listKey` as a foreign member, in the envelope's order. A field named as a GeoJSON
 * member would change the collection's meaning: it is a programming error, thrown. `links`: a
 * page's (pageLinks), with `numberReturned`, after `features`.
 */
export function featureCollection(
  envelope: Record<string, unknown>,
  listKey: string,
  features: Feature[],
  links?: PageLink[],
): Record<string, unknown> {
  const fc: Record<string, unknown> = { type: 'FeatureCollection', features }
  if (links) {
    fc.numberReturned = features.length
    fc.links = links
  }
  for (const k in envelope) {
    if (k === listKey) continue
    if (RESERVED.has(k)) throw new Error(`envelope field ${k} is a GeoJSON member`)
    fc[k] = envelope[k]
  }
  return fc
}

/** The GeoJSON answer of `envelope` (see featureCollection), `application/geo+json`. */
export function geoJsonReply(
  c: Context<AppEnv>,
  envelope: Record<string, unknown>,
  listKey: string,
  features: Feature[],
): Response {
  const paging = c.get('geojsonPaging')
  const links = paging === undefined ? undefined : pageLinks(c, paging, envelope.next_cursor)
  return reply(c, JSON.stringify(featureCollection(envelope, listKey, features, links)), 200, GEOJSON_TYPE)
}

const GeometrySchema = z
  .object({
    type: z.string().openapi({ example: 'MultiPolygon' }),
    coordinates: z.array(z.any()).openapi({ description: 'Positions are [longitude, latitude] (WGS84).' }),
  })
  .openapi('GeoJsonGeometry')

/** The `application/geo+json` answer of the routes that can give one (OpenAPI). */
export const FeatureCollectionSchema = z
  .object({
    type: z.literal('FeatureCollection'),
    features: z.array(
      z
        .object({
          type: z.literal('Feature'),
          id: z
            .union([z.string(), z.number()])
            .optional()
            .openapi({ description: 'The record’s stable identifier (LPI, encumbrance uid, plot id, type/code).' }),
          geometry: GeometrySchema.nullable().openapi({ description: 'null for a record without geometry.' }),
          properties: z.record(z.string(), z.unknown()).openapi({
            description:
              'The record’s fields as in the JSON answer, less its geometry, flat: a nested object’s members are ' +
              'fields `<field>_<member>` (`legal_status_code`, `label_point_latitude`), and a field `id` that is not ' +
              'the Feature’s `id` is `record_id` (a parcel’s row id; its `id` is the LPI).',
          }),
        })
        .catchall(z.unknown())
        .openapi('GeoJsonFeature'),
    ),
    numberReturned: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Paged lists: the Features on this page (OGC API Features).' }),
    links: z
      .array(
        z
          .object({
            rel: z.enum(['self', 'next']),
            href: z.string().openapi({ description: 'Absolute URL of the GeoJSON page.' }),
            type: z.literal(GEOJSON_TYPE),
          })
          .openapi('GeoJsonPageLink'),
      )
      .optional()
      .openapi({
        description:
          'Paged lists (OGC API Features): `self`, and `next` while more remain: the same request with ' +
          '`format=geojson` and `cursor` set to `next_cursor`.',
      }),
  })
  .catchall(z.unknown())
  .openapi('GeoJsonFeatureCollection', {
    description:
      'RFC 7946 FeatureCollection: one Feature per record of the JSON answer, in the same order; the JSON ' +
      'envelope’s other fields (message, cursors, counts, dataset_version…) are foreign members at the top level.',
  })
