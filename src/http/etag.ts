import type { Context } from 'hono'
import type { ApiKeyRecord } from '../auth/types.js'
import type { AppEnv } from './env.js'
import { requestHeader } from './request-header.js'
import { appendHeader, reply, setHeader } from './reply.js'

/**
 * Conditional JSON answers (docs/api.md "HTTP conventions"): every authenticated JSON `GET`
 * carries a strong `ETag`, `Cache-Control: private, max-age=60` and `Vary: X-API-KEY, Accept-Encoding`, and a
 * request whose `If-None-Match` names its tag answers 304 before the query runs.
 *
 * The tag is a hash of what decides the answer: the served build (its `build_digest`, or the
 * domains' `dataset_version`s for a build without one), the route's method (HEAD shares the GET
 * tag), the path and query as sent, and the key's scope (products, countries, towns: two keys of
 * the same scope share a tag). Each answer is a pure function of these, so a tag that matches
 * names the answer the client holds; a request that would fail never got a tag to send back.
 *
 * Cheap on purpose: the build's and the key's strings are made once per dataset and per key
 * record (both kept objects: DatasetHandle, the key store's cache), the build's hashed once, and
 * the hash is two 32-bit FNV-1a lanes over the URL and the scope (64 bits, no allocation but the
 * tag itself): under 1 µs a request, the three headers included (0.75 µs measured in a loop). It is not
 * cryptographic: a tag only has to change when its answer may.
 *
 * @module
 */

/**
 * `Vary` of every tagged answer. `Accept-Encoding` always, though only answers over
 * COMPRESS_MIN_BYTES are compressed: a 304 must say what its 200 says (RFC 9110 15.4.5), and it
 * cannot know the size of the answer it stands for.
 */
export const VARY_KEY = 'X-API-KEY, Accept-Encoding'

/** `Cache-Control` of every tagged JSON answer (docs/api.md "HTTP conventions"). */
export const ANSWER_CACHE_CONTROL = 'private, max-age=60'

/** What names a build: the manifest fields the tag reads (src/data/manifest.ts). */
export interface BuildIdentity {
  readonly manifest: {
    readonly build_digest?: string
    readonly domains: Readonly<Record<string, { readonly dataset_version: string } | undefined>>
  }
}

const OFFSET_A = 0x811c9dc5
const OFFSET_B = 0x050c5d1f
const PRIME_A = 0x01000193
const PRIME_B = 0x2127599b

/** The hash state after a build's string: every tag of that build starts from it. */
interface BuildSeed {
  readonly a: number
  readonly b: number
}

/** Two FNV-1a lanes over the strings of one tag, then the tag. */
class TagHash {
  private a = OFFSET_A
  private b = OFFSET_B

  /** Starts a tag from the state another one reached (a build's, see AnswerTags). */
  start(from: BuildSeed | null): this {
    this.a = from === null ? OFFSET_A : from.a
    this.b = from === null ? OFFSET_B : from.b
    return this
  }

  /** Adds `s[from..]`, then a separator, so ('ab','c') and ('a','bc') differ. */
  add(s: string, from = 0): this {
    let a = this.a
    let b = this.b
    for (let i = from; i < s.length; i++) {
      const ch = s.charCodeAt(i)
      a = Math.imul(a ^ ch, PRIME_A)
      b = Math.imul(b ^ ch, PRIME_B)
    }
    this.a = Math.imul(a ^ 0xffff, PRIME_A)
    this.b = Math.imul(b ^ 0xffff, PRIME_B)
    return this
  }

  /** The state reached, to start other tags from. */
  seed(): BuildSeed {
    return { a: this.a, b: this.b }
  }

  /** The strong tag, quoted: 16 hex digits. */
  tag(): string {
    return `"${(this.a >>> 0).toString(16).padStart(8, '0')}${(this.b >>> 0).toString(16).padStart(8, '0')}"`
  }
}

/**
 * The tag of `If-None-Match` that names `etag` (weak comparison, RFC 9110 13.1.2: `W/` ignored),
 * itself or with a coding's suffix (`"…-br"`, `"…-gzip"`: the compressed answer, reply.ts), or
 * `etag` for `*`; null when none does. The list is read as RFC 9110 8.8.3 writes it, quoted tags
 * separated by commas, so a tag may hold a comma itself (a tile's names its layers, `erf,street`).
 */
export function noneMatch(header: string, etag: string): string | null {
  if (header === etag) return etag
  const body = etag.slice(1, -1)
  for (let i = 0; i < header.length; ) {
    const ch = header[i]
    if (ch === ' ' || ch === '\t' || ch === ',') {
      i++
      continue
    }
    if (ch === '*') return etag
    if (header.startsWith('W/', i)) i += 2
    // not a quoted tag: the rest cannot be read
    if (header[i] !== '"') return null
    const end = header.indexOf('"', i + 1)
    if (end < 0) return null
    const t = header.slice(i + 1, end)
    if (t === body) return etag
    if (t.length > body.length && t.startsWith(body)) {
      const coding = t.slice(body.length)
      if (coding === '-br' || coding === '-gzip') return `"${t}"`
    }
    i = end + 1
  }
  return null
}

/** Tags JSON answers and answers 304 for them; one per app (see the module comment). */
export class AnswerTags {
  private readonly hash = new TagHash()
  private readonly builds = new WeakMap<object, BuildSeed>()
  private readonly scopes = new WeakMap<ApiKeyRecord, string>()

  /** `served`: the build that answers this request (its pinned snapshot's dataset) */
  constructor(private readonly served: (c: Context<AppEnv>) => BuildIdentity) {}

  /**
   * Sets the answer's `ETag`, `Cache-Control` and `Vary`; returns the 304 when `If-None-Match`
   * names the tag (the caller then skips the query), else null. `method`: the route's (`GET`).
   * `form`: the answer's form when a request header chose one other than the route's default
   * (`geojson`: src/http/geojson.ts), hashed too, since the URL alone does not name it; `vary`:
   * the `Vary` value (`X-API-KEY, Accept` where `Accept` chooses the form).
   */
  check(c: Context<AppEnv>, method: string, form: string | null = null, vary = VARY_KEY): Response | null {
    const url = c.req.url
    const h = this.hash
      .start(this.buildOf(this.served(c)))
      .add(method)
      .add(url, url.indexOf('/', url.indexOf(':') + 3))
      .add(this.scopeOf(c.get('apiKey')))
    const etag = (form === null ? h : h.add(form)).tag()
    setHeader(c, 'ETag', etag)
    setHeader(c, 'Cache-Control', ANSWER_CACHE_CONTROL)
    appendHeader(c, 'Vary', vary)
    const inm = requestHeader(c, 'if-none-match')
    const held = inm === undefined ? null : noneMatch(inm, etag)
    if (held === null) return null
    // the 304 names the representation the client holds (compressed or not)
    if (held !== etag) setHeader(c, 'ETag', held)
    return reply(c, null, 304)
  }

  /** The hash of the build's string, made once per dataset. */
  private buildOf(ds: BuildIdentity): BuildSeed {
    let seed = this.builds.get(ds)
    if (seed === undefined) {
      const m = ds.manifest
      const name =
        m.build_digest ??
        Object.entries(m.domains)
          .map(([domain, d]) => `${domain}=${d?.dataset_version ?? ''}`)
          .join(';')
      seed = new TagHash().start(null).add(name).seed()
      this.builds.set(ds, seed)
    }
    return seed
  }

  private scopeOf(key: ApiKeyRecord | undefined): string {
    if (key === undefined) return ''
    let s = this.scopes.get(key)
    if (s === undefined) {
      const cities = Object.entries(key.cities)
        .map(([country, towns]) => `${country}:${[...(towns ?? [])].sort().join(',')}`)
        .sort()
        .join(';')
      s = `${[...key.products].sort().join(',')}|${[...key.countries].sort().join(',')}|${cities}`
      this.scopes.set(key, s)
    }
    return s
  }
}
