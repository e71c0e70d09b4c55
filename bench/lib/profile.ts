/**
 * Where a server's CPU goes per request: a V8 CPU profile (`node --cpu-prof`, written when the
 * process exits) summed by component. Each sample goes to the component of its innermost frame
 * that any rule claims (so time in Hono's `c.json` called from a route counts as Hono, and time
 * in a route's own code as service code); samples under start-up (module evaluation, opening
 * the dataset) and idle time are left out. Answers "what limits it" for the HTTP targets.
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface CallFrame {
  functionName: string
  url: string
  /** 0-based, of the function's start */
  lineNumber: number
  columnNumber: number
}
export interface ProfileNode {
  id: number
  callFrame: CallFrame
  children?: number[]
}
export interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/**
 * A frame of our code, as opposed to a dependency's: a TypeScript source outside node_modules
 * (see unbundle), or the server bundle itself where it has no source map.
 */
const ours = (f: CallFrame) =>
  /[/\\]dist[/\\]server\.js$/.test(f.url) || (/\.ts$/.test(f.url) && !/node_modules/.test(f.url))

/** Our functions that write answers: reply.ts, json-bytes.ts and the plot answer writers. */
const SERIALISE = /^(json|reply|plotsAnswer|writeHit|write|ascii|bytes|int|rounded|string|utf8String|digits|take|room)$/

/** Components, first match on the innermost frame wins; order matters only within one frame. */
export const COMPONENTS: { name: string; test: (f: CallFrame) => boolean }[] = [
  {
    name: 'socket writes (kernel, loopback)',
    test: (f) => /^(writev|writeUtf8String|writeLatin1String|writeBuffer)$/.test(f.functionName) && f.url === '',
  },
  { name: 'garbage collection', test: (f) => f.functionName === '(garbage collector)' },
  {
    name: 'access log (pino)',
    test: (f) => /[/\\](pino|sonic-boom)[/\\]/.test(f.url) || f.functionName === 'writeAccessLine',
  },
  {
    name: 'request validation (zod, query twins)',
    test: (f) => /[/\\]zod[/\\]/.test(f.url) || (/^(validateRequest|fastParse)$/.test(f.functionName) && ours(f)),
  },
  {
    name: 'API key check',
    test: (f) =>
      /^(authenticate|keyOrThrow|verify|lookup|hashApiKey|parseApiKey|johannesburgDate|requireProductGuard|requireCountryGuard)$/.test(
        f.functionName,
      ) && ours(f),
  },
  {
    name: 'rate limit',
    test: (f) => /^(countRequest|applyLimit|rateLimitHeaders|limit|count)$/.test(f.functionName) && ours(f),
  },
  // JSON.stringify is a builtin without a frame of its own: its time is the self time of
  // json() in src/http/reply.ts (or Hono's c.json, for the hello-world floor); the plot answers
  // are written as bytes by src/http/json-bytes.ts, called from plotsAnswer and writeHit
  {
    name: 'answer serialisation (JSON text or bytes, the Response)',
    test: (f) =>
      (f.functionName === 'json' && /[/\\]hono[/\\]dist[/\\]context\.js$/.test(f.url)) ||
      (SERIALISE.test(f.functionName) && ours(f)),
  },
  {
    name: 'Hono (routing, context, middleware chain)',
    test: (f) =>
      /[/\\]hono[/\\]dist[/\\]/.test(f.url) || (/^(enter|gated|gate|admit)$/.test(f.functionName) && ours(f)),
  },
  {
    name: '@hono/node-server (request and response bridging)',
    test: (f) => /[/\\]@hono[/\\]node-server[/\\]/.test(f.url),
  },
  { name: 'service code (index, queries, answer building)', test: ours },
]
const OTHER = 'Node HTTP parser, streams, event loop, other'

/**
 * Frames of start-up work (module evaluation, opening the dataset, loading its services, which
 * runs after an await and so outside runServer's stack): samples under them are not requests.
 */
export const STARTUP =
  /^(evaluate|runServer|startServer|buildServices|loadServices|openDataset|loadConfig|compileSourceTextModule)$/

/** Whether a frame is start-up work: a {@link STARTUP} function, or Node running the main module or loading modules. */
export const isStartupFrame = (f: CallFrame): boolean =>
  (f.functionName !== '' && STARTUP.test(f.functionName)) || /^node:internal\/(main|modules)\//.test(f.url)

export interface CpuBreakdown {
  /** busy CPU time in the profile, start-up and idle excluded, in ms */
  busyMs: number
  /** requests served while profiled */
  requests: number
  rows: { component: string; share: number; usPerRequest: number }[]
}

/** The one `.cpuprofile` in `dir`, its frames pointed at their sources (see unbundle). */
export function readCpuProfile(dir: string): CpuProfile {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
  if (files.length !== 1) throw new Error(`expected one .cpuprofile in ${dir}, found ${files.length}`)
  const p = JSON.parse(readFileSync(join(dir, files[0]), 'utf8')) as CpuProfile
  unbundle(p.nodes)
  return p
}

/** The profile's nodes by id, and each node's parent (the root has none). */
export function profileTree(p: CpuProfile): { byId: Map<number, ProfileNode>; parent: Map<number, number> } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  return { byId, parent }
}

/** Sums the one `.cpuprofile` in `dir` by component. */
export function summariseCpuProfile(dir: string, requests: number): CpuBreakdown {
  const p = readCpuProfile(dir)
  const { byId, parent } = profileTree(p)
  // the component of each node, innermost claiming frame first (memoised per node)
  const memo = new Map<number, string | null>()
  const componentOf = (id: number): string | null => {
    const known = memo.get(id)
    if (known !== undefined) return known
    const stack: number[] = []
    let cur: number | undefined = id
    let found: string | null = OTHER
    while (cur !== undefined) {
      const cached = memo.get(cur)
      if (cached !== undefined) {
        found = cached
        break
      }
      stack.push(cur)
      cur = parent.get(cur)
    }
    // walk back down from the outermost uncached frame; startup anywhere above wins
    const frames = stack.map((i) => byId.get(i)!.callFrame)
    if (found !== null && frames.some(isStartupFrame)) found = null
    if (found !== null) {
      let inner: string | undefined
      for (const f of frames) {
        inner = COMPONENTS.find((c) => c.test(f))?.name
        if (inner) break
      }
      if (inner) found = inner
    }
    if (frames[0]?.functionName === '(idle)') found = null
    memo.set(id, found)
    return found
  }
  const totals = new Map<string, number>()
  let busy = 0
  for (let i = 0; i < p.samples.length; i++) {
    const c = componentOf(p.samples[i])
    if (c === null) continue
    const dt = p.timeDeltas[i] ?? 0
    totals.set(c, (totals.get(c) ?? 0) + dt)
    busy += dt
  }
  const rows = [...totals]
    .map(([component, us]) => ({ component, share: busy ? us / busy : 0, usPerRequest: requests ? us / requests : 0 }))
    .sort((a, b) => b.share - a.share)
  return { busyMs: busy / 1000, requests, rows }
}

/**
 * Points every frame of a bundle with a source map beside it (`dist/server.js.map`) at the file
 * its function came from: the server bundle holds Hono, @hono/node-server and zod too (see
 * scripts/build.mjs), and the rules above tell them apart by their package paths.
 */
export function unbundle(nodes: ProfileNode[]): void {
  const maps = new Map<string, SourceMap | null>()
  for (const { callFrame: f } of nodes) {
    if (!f.url.startsWith('file:') || !f.url.endsWith('.js')) continue
    let map = maps.get(f.url)
    if (map === undefined) {
      const file = `${fileURLToPath(f.url)}.map`
      map = existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null
      maps.set(f.url, map)
    }
    const at = map?.findEntry(f.lineNumber, f.columnNumber)
    if (at && 'originalSource' in at && at.originalSource) f.url = at.originalSource
  }
}
