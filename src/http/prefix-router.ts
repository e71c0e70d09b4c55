import type { Result, Router } from 'hono/router'
import { PatternRouter } from 'hono/router/pattern-router'

/**
 * A Hono router that first picks the routes of one service by the path segment after the API
 * root (`/api/v1/plots/...` → the plot routes), then matches among those with a PatternRouter.
 *
 * Why: PatternRouter tries one regular expression per route in registration order, so a
 * jurisdiction request, registered last, paid for every plot, parcel and encumbrance route
 * before its own (4–5 % of a small request's CPU). The default SmartRouter cannot use the
 * RegExpRouter here (the plot route's `:plot_number{.+}` accepts `123/4`) and falls back to
 * TrieRouter, which costs more still.
 *
 * Order is kept: a route whose path names a service (`/api/v1/<literal>/...`) goes to that
 * service's router only; any other route (`/healthz`, `/api/v1/:x/...`) goes to every router,
 * and a service router created later first replays those, so each router holds its routes in
 * registration order and a match finds first the handler a single router would find first.
 *
 * Only the first route handler is returned. Every route of the app is one handler that always
 * answers (src/http/front-door.ts), so a second one could never run, and Hono calls a lone
 * handler directly instead of through its middleware chain (an async function and a promise
 * per link): `/api/v1/plots/reverse` also matches `/api/v1/plots/:plot_number{.+}`.
 *
 * Ordinary Hono middleware (`app.use`, `app.all`: method ALL) is accepted and kept apart: a
 * request whose path some middleware matches gets every matching middleware, in registration
 * order and always before the route whatever the order they were added in, then the route's
 * first handler, and Hono runs them as its chain. Middleware runs outside the front door (no
 * request id yet; an answer it makes itself is not in the access log). A request that no
 * middleware matches keeps the lone-handler fast path, and with none registered `match` pays
 * one length check.
 *
 * On a miss, `allowed` says which other methods the path has routes for: the 405 and its
 * `Allow` header (docs/api.md "Errors"). A request that finds its route never asks. A literal
 * path (no parameter) belongs to its own routes: another method on it is a 405 listing theirs,
 * even where a parameter route of that method would match the same path.
 */
/** A match that found nothing. */
const NO_ROUTE = [[]] as unknown as Result<unknown>

/** Whether a literal path's routes answer `method` (HEAD: the GET route). */
const ownedBy = (methods: readonly string[], method: string): boolean =>
  methods.includes(method) || (method === 'HEAD' && methods.includes('GET'))

export class PrefixRouter<T> implements Router<T> {
  name = 'PrefixRouter'
  private readonly general: [string, string, T][] = []
  private readonly fallback = new PatternRouter<T>()
  private readonly services = new Map<string, PatternRouter<T>>()
  /** middleware (method ALL), matched apart from the routes */
  private readonly middleware = new PatternRouter<T>()
  private middlewareCount = 0
  /** every method some route has, sorted (HEAD is answered by the GET routes) */
  private readonly methods: string[] = []
  /**
   * The methods of each literal route path (no parameter): such a path belongs to its own
   * routes, so `GET /api/v1/parcels/batch` is a 405 naming POST, never the parameter route
   * `GET /api/v1/parcels/:lpi` answering that "batch" is no LPI
   */
  private readonly literal = new Map<string, string[]>()

  constructor(private readonly root: string) {
    if (!root.startsWith('/') || root.endsWith('/')) throw new Error(`router root must look like /api/v1, got ${root}`)
  }

  add(method: string, path: string, handler: T): void {
    if (method === 'ALL') {
      this.middleware.add(method, path, handler)
      this.middlewareCount++
      return
    }
    if (!this.methods.includes(method)) {
      this.methods.push(method)
      this.methods.sort()
    }
    if (!/[:*{}()?[\]|+\\]/.test(path)) {
      const ms = this.literal.get(path) ?? []
      if (!ms.includes(method)) ms.push(method)
      this.literal.set(path, ms.sort())
    }
    const service = this.serviceOf(path, true)
    if (service === null) {
      this.general.push([method, path, handler])
      this.fallback.add(method, path, handler)
      for (const r of this.services.values()) r.add(method, path, handler)
      return
    }
    let r = this.services.get(service)
    if (!r) {
      r = new PatternRouter<T>()
      for (const [m, p, h] of this.general) r.add(m, p, h)
      this.services.set(service, r)
    }
    r.add(method, path, handler)
  }

  match(method: string, path: string): Result<T> {
    const result = this.route(method, path)
    if (this.middlewareCount === 0) return result
    const chain = this.middleware.match(method, path)[0]
    if (chain.length === 0) return result
    return [[...chain, ...result[0]]] as unknown as Result<T>
  }

  /** The first route handler for the request, without middleware. */
  private route(method: string, path: string): Result<T> {
    const own = this.literal.get(path)
    if (own !== undefined && !ownedBy(own, method)) return NO_ROUTE as Result<T>
    const service = this.serviceOf(path, false)
    const r = service === null ? this.fallback : (this.services.get(service) ?? this.fallback)
    const result = r.match(method, path)
    const handlers = result[0]
    return handlers.length > 1 ? ([[handlers[0]]] as unknown as Result<T>) : result
  }

  /**
   * The `Allow` value for a request that found no route: the methods with a route for `path`
   * (`GET, HEAD` for GET), or null when there is none (a 404, not a 405).
   */
  allowed(method: string, path: string): string | null {
    let allow: string | null = null
    for (const m of this.literal.get(path) ?? this.methods) {
      if (m === method || (m === 'GET' && method === 'HEAD')) continue
      if (this.route(m, path)[0].length === 0) continue
      const value = m === 'GET' ? 'GET, HEAD' : m
      allow = allow === null ? value : `${allow}, ${value}`
    }
    return allow
  }

  /**
   * The service segment of a path under the root, or null. For a route pattern (`pattern`
   * true) only a literal segment counts: `/api/v1/:x/...` or `/api/v1/*` may match any service.
   */
  private serviceOf(path: string, pattern: boolean): string | null {
    const root = this.root
    if (path.length <= root.length + 1 || !path.startsWith(root) || path.charCodeAt(root.length) !== 47 /* / */)
      return null
    const end = path.indexOf('/', root.length + 1)
    const seg = end < 0 ? path.slice(root.length + 1) : path.slice(root.length + 1, end)
    if (seg === '') return null
    if (pattern && /[:*{}()?[\]|+\\]/.test(seg)) return null
    return seg
  }
}
