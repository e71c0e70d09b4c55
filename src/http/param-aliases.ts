import { z } from '@hono/zod-openapi'
import type { FieldError } from './errors.js'

/**
 * One spelling per idea, the old ones kept (docs/api.md "Parameter aliases"). The services spell
 * the same idea differently, as their specs do: a point is `latitude`/`longitude` in three of
 * them and `lat`/`lon` in the jurisdiction service; a box is `min_lat…max_lng`,
 * `north…west` or `bbox`; a page size `page_size` or `limit`; a radius `radius` or `radius_m`.
 * Every route accepts the other spellings of each idea it has, beside its own, which stays the
 * canonical name (the one the spec gives, in the docs and the OpenAPI).
 *
 * This module is the one table of spellings ({@link ALIAS_PAIRS}, {@link BOXES}) and the step
 * the router runs on the query before validation ({@link AliasPlan.apply}): an alias is renamed
 * to its canonical name, so the route, its validation and its answer never see it. A request that
 * gives both spellings with different values is a ValidationError naming both; the same value
 * twice is accepted. An error in a value sent under an alias names the alias. The plan of a
 * route is made once, from its query schema; a request that uses no alias pays a few property
 * reads.
 *
 * @module
 */

/** Two spellings of one idea: the route's own is canonical, the other its alias. */
interface AliasPair {
  readonly names: readonly [string, string]
  /** only on a paged list (a query with `cursor`): `limit` elsewhere is not a page size */
  readonly paged?: true
}

/** The spellings of a point, a radius and a page size (either may be a route's own). */
export const ALIAS_PAIRS: readonly AliasPair[] = [
  { names: ['latitude', 'lat'] },
  { names: ['longitude', 'lon'] },
  { names: ['radius', 'radius_m'] },
  { names: ['page_size', 'limit'], paged: true },
]

/** The name of a box as one parameter, `minlon,minlat,maxlon,maxlat` (OGC API Features' `bbox`). */
export const BBOX = 'bbox'

/** The boxes spelt as four parameters, in `bbox` order: west, south, east, north. */
export const BOXES: readonly (readonly [string, string, string, string])[] = [
  ['min_lng', 'min_lat', 'max_lng', 'max_lat'],
  ['west', 'south', 'east', 'north'],
]

const BBOX_SHAPE = 'minlon,minlat,maxlon,maxlat'
// the strict number grammar of the query (params.ts): no hex, no Infinity, no blanks
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

/** Two values of one parameter are the same when equal as text, or as numbers. */
function sameValue(a: string, b: string): boolean {
  const x = a.trim()
  const y = b.trim()
  return x === y || (DECIMAL.test(x) && DECIMAL.test(y) && Number(x) === Number(y))
}

const shown = (v: string) => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)

/** The two details of a conflict: one per field, each naming both. */
function conflict(canonical: string, alias: string, canonicalValue: string, aliasValue: string): FieldError[] {
  const message =
    `${alias} is another spelling of ${canonical}, and the two differ (${canonical}=${shown(canonicalValue)}, ` +
    `${alias}=${shown(aliasValue)}): send one of them`
  return [
    { field: canonical, message },
    { field: alias, message },
  ]
}

/** A `bbox` value as its four numbers' texts (west, south, east, north), or the error naming `bbox`. */
export function readBbox(raw: string): { parts: string[] } | { error: string } {
  const parts = raw.split(',').map((p) => p.trim())
  if (parts.length !== 4 || parts.some((p) => !DECIMAL.test(p) || !Number.isFinite(Number(p))))
    return { error: `bbox must be four numbers ${BBOX_SHAPE}` }
  const [w, s, e, n] = parts.map(Number)
  if ([w, e].some((x) => x < -180 || x > 180) || [s, n].some((y) => y < -90 || y > 90))
    return { error: 'bbox longitudes must be within -180..180 and latitudes within -90..90' }
  if (w > e || s > n) return { error: `bbox minimums must not be above maximums (${BBOX_SHAPE})` }
  return { parts }
}

/** What the alias step made of a query that used an alias. */
export interface Aliased {
  /** the query under canonical names */
  query: Record<string, string>
  /** conflicts and malformed boxes: the request is a ValidationError with these */
  errors: FieldError[]
  /** per canonical name, the alias its value came under (`bbox` for a box's four) */
  sentAs: Map<string, string>
}

/** The aliases of one route's query, made once (see the module comment). */
export class AliasPlan {
  /** every name that is an alias on this route, to screen a query cheaply */
  private readonly keys: string[]

  private constructor(
    /** alias -> canonical */
    readonly renames: ReadonlyMap<string, string>,
    /** the four canonical names `bbox` stands for, in its order; null: no box alias */
    readonly box: readonly [string, string, string, string] | null,
  ) {
    this.keys = [...renames.keys()]
    if (box) this.keys.push(BBOX)
  }

  /**
   * The plan of a query schema (an object of parameters), or null when it has no idea with
   * another spelling. A pair applies when the schema has exactly one of its names; a box when it
   * has all four names and no `bbox`.
   */
  static of(query: z.ZodType | undefined): AliasPlan | null {
    const shape = (query as unknown as { shape?: Record<string, unknown> } | undefined)?.shape
    if (!shape) return null
    const has = (k: string) => k in shape
    const renames = new Map<string, string>()
    for (const { names, paged } of ALIAS_PAIRS) {
      if (paged && !has('cursor')) continue
      const [a, b] = names
      if (has(a) && !has(b)) renames.set(b, a)
      else if (has(b) && !has(a)) renames.set(a, b)
    }
    const box = has(BBOX) ? null : (BOXES.find((names) => names.every(has)) ?? null)
    return renames.size || box ? new AliasPlan(renames, box) : null
  }

  /** Aliases in the order the OpenAPI lists them: `[alias, canonical]` (`bbox` names its four). */
  entries(): [string, string][] {
    const out = [...this.renames]
    if (this.box) out.push([BBOX, this.box.join(', ')])
    return out
  }

  /** null when `query` uses no alias (the common case: a few reads), else the query renamed. */
  apply(query: Record<string, string>): Aliased | null {
    let used = false
    for (const k of this.keys) if (query[k] !== undefined) used = true
    if (!used) return null
    const out: Record<string, string> = { ...query }
    const errors: FieldError[] = []
    const sentAs = new Map<string, string>()
    for (const [alias, canonical] of this.renames) {
      const v = out[alias]
      if (v === undefined) continue
      delete out[alias]
      const own = out[canonical]
      if (own !== undefined && !sameValue(own, v)) errors.push(...conflict(canonical, alias, own, v))
      else if (own === undefined) {
        out[canonical] = v
        sentAs.set(canonical, alias)
      }
    }
    const raw = out[BBOX]
    if (this.box && raw !== undefined) {
      delete out[BBOX]
      const box = readBbox(raw)
      if ('error' in box) {
        errors.push({ field: BBOX, message: box.error })
        // the four it stood for are missing: told as the bbox they were sent in
        for (const name of this.box) if (out[name] === undefined) sentAs.set(name, BBOX)
      } else
        this.box.forEach((name, i) => {
          const own = out[name]
          if (own !== undefined && !sameValue(own, box.parts[i]))
            errors.push(...conflict(name, BBOX, own, `${box.parts[i]} (in ${raw})`))
          else if (own === undefined) {
            out[name] = box.parts[i]
            sentAs.set(name, BBOX)
          }
        })
    }
    return { query: out, errors, sentAs }
  }
}

/**
 * The details of a query that failed validation under canonical names, told in the names the
 * client sent: a field whose value came under an alias is named by the alias (one entry per
 * field, the first message kept).
 */
export function detailsAsSent(details: FieldError[], sentAs: ReadonlyMap<string, string>): FieldError[] {
  const out = new Map<string, FieldError>()
  for (const d of details) {
    const alias = sentAs.get(d.field)
    const e = alias === undefined ? d : { field: alias, message: `${d.message} (sent as ${alias})` }
    if (!out.has(e.field)) out.set(e.field, e)
  }
  return [...out.values()]
}

/**
 * The URL (from its path on) that names the same answer under canonical names: each alias
 * renamed where it stands, `bbox` written as its four, and an alias whose canonical name was
 * also sent (with the same value) left out. The answer's ETag is made from it, so a request
 * that uses an alias shares the tag of the one that does not.
 */
export function canonicalUrl(url: string, plan: AliasPlan, aliased: Aliased): string {
  const q = url.indexOf('?')
  if (q < 0) return url
  const parts: string[] = []
  for (const part of url.slice(q + 1).split('&')) {
    const eq = part.indexOf('=')
    const name = decodeName(eq < 0 ? part : part.slice(0, eq))
    const canonical = plan.renames.get(name)
    if (canonical !== undefined) {
      if (aliased.sentAs.get(canonical) === name) parts.push(`${canonical}${eq < 0 ? '' : part.slice(eq)}`)
    } else if (name === BBOX && plan.box) {
      for (const n of plan.box)
        if (aliased.sentAs.get(n) === BBOX) parts.push(`${n}=${encodeURIComponent(aliased.query[n])}`)
    } else parts.push(part)
  }
  return `${url.slice(0, q)}?${parts.join('&')}`
}

function decodeName(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '))
  } catch {
    return s
  }
}

/**
 * The query schema as the OpenAPI document describes it: the route's own parameters, then each
 * alias as an optional parameter marked `x-alias-of` (validation never sees an alias: the plan
 * renames it first).
 */
export function withAliasDocs(query: z.ZodType, plan: AliasPlan): z.ZodType {
  const extra: Record<string, z.ZodType> = {}
  for (const [alias, canonical] of plan.entries()) {
    const box = alias === BBOX
    extra[alias] = z
      .string()
      .optional()
      .openapi({
        type: 'string',
        description: box
          ? `Alias: the box as one parameter, \`${BBOX_SHAPE}\` in WGS84 degrees, for ${canonical}. ` +
            `Giving both with different values is a 400 naming both.`
          : `Alias of \`${canonical}\`, the same rule and value. Giving both with different values is a 400 ` +
            'naming both.',
        ...(box ? { example: '28.03,-26.21,28.06,-26.19' } : {}),
        'x-alias-of': box ? canonical.split(', ') : canonical,
      } as never)
  }
  return (query as unknown as z.ZodObject).extend(extra)
}
