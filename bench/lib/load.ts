/**
 * HTTP load generators, loopback only, bounded in time: `wrk` (Debian package; C, one
 * thread, far cheaper per request than a Node client, so it leaves the second core to the
 * server) when installed, else autocannon (npm). Both rotate through a seeded list of request
 * paths. Errors = socket errors + timeouts + non-2xx answers (wrk counts 3xx as success; the
 * API sends none).
 *
 * @module
 */
import { execFileSync, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import autocannon from 'autocannon'

export interface LoadOptions {
  port: number
  paths: string[]
  headers: Record<string, string>
  connections: number
  durationS: number
  /** for the wrk script file */
  workDir: string
}

export interface LoadResult {
  tool: 'wrk' | 'autocannon'
  connections: number
  durationS: number
  requests: number
  reqPerS: number
  p50Ms: number
  p99Ms: number
  meanMs: number
  errors: number
  non2xx: number
}

/** The load generator a run uses: wrk when installed (or the one `--tool` names), else autocannon. */
export function loadTool(opts: { tool: 'auto' | 'wrk' | 'autocannon' }): 'wrk' | 'autocannon' {
  return opts.tool === 'auto' ? (findWrk() ? 'wrk' : 'autocannon') : opts.tool
}

let wrkPath: string | null | undefined
/** The wrk binary, or null when not installed. */
export function findWrk(): string | null {
  if (wrkPath === undefined) {
    try {
      wrkPath = execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim() || null
    } catch {
      wrkPath = null
    }
  }
  return wrkPath
}

const luaString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`

/** Runs wrk with a Lua script that rotates the paths and prints one JSON summary line. */
export function runWrk(o: LoadOptions): Promise<LoadResult> {
  const wrk = findWrk()
  if (!wrk) throw new Error('wrk is not installed')
  const script = join(o.workDir, `wrk-${o.port}-${o.connections}.lua`)
  writeFileSync(
    script,
    [
      `local paths = {${o.paths.map(luaString).join(',\n')}}`,
      'local n = #paths',
      'local i = 0',
      ...Object.entries(o.headers).map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`),
      'request = function()',
      '  i = i + 1',
      '  if i > n then i = 1 end',
      '  return wrk.format("GET", paths[i])',
      'end',
      'done = function(summary, latency, requests)',
      '  local e = summary.errors',
      '  io.write(string.format("BENCH_JSON ' +
        '{\\"requests\\":%d,\\"duration_us\\":%d,\\"socket\\":%d,\\"status\\":%d,\\"timeout\\":%d,\\"p50_us\\":%d,\\"p99_us\\":%d,\\"mean_us\\":%f}\\n",',
      '    summary.requests, summary.duration, e.connect + e.read + e.write, e.status, e.timeout,',
      '    latency:percentile(50), latency:percentile(99), latency.mean))',
      'end',
      '',
    ].join('\n'),
  )
  // wrk takes whole seconds only
  const args = [
    '-t1',
    `-c${o.connections}`,
    `-d${Math.max(1, Math.round(o.durationS))}s`,
    '--timeout',
    '5s',
    '-s',
    script,
    `http://127.0.0.1:${o.port}`,
  ]
  return new Promise((done, fail) => {
    const child = spawn(wrk, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (b: Buffer) => (out += b.toString()))
    child.stderr.on('data', (b: Buffer) => (out += b.toString()))
    child.on('error', fail)
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('BENCH_JSON '))
      if (code !== 0 || !line) return fail(new Error(`wrk failed (status ${code}): ${out.trim()}`))
      const j = JSON.parse(line.slice('BENCH_JSON '.length)) as Record<string, number>
      done({
        tool: 'wrk',
        connections: o.connections,
        durationS: j.duration_us / 1e6,
        requests: j.requests,
        reqPerS: j.requests / (j.duration_us / 1e6),
        p50Ms: j.p50_us / 1000,
        p99Ms: j.p99_us / 1000,
        meanMs: j.mean_us / 1000,
        errors: j.socket + j.timeout + j.status,
        non2xx: j.status,
      })
    })
  })
}

/** Runs autocannon in this process (it needs about one core itself; docs/benchmarks.md "Performance floors"). */
export async function runAutocannon(o: LoadOptions): Promise<LoadResult> {
  let i = 0
  const r = await autocannon({
    url: `http://127.0.0.1:${o.port}`,
    connections: o.connections,
    duration: o.durationS,
    timeout: 5,
    headers: o.headers,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          req.path = o.paths[i++ % o.paths.length]
          return req
        },
      },
    ],
  })
  const non2xx = r.non2xx
  return {
    tool: 'autocannon',
    connections: o.connections,
    durationS: r.duration,
    requests: r.requests.total,
    reqPerS: r.requests.total / r.duration,
    // autocannon's latency histogram has whole-millisecond resolution
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    meanMs: r.latency.average,
    errors: r.errors + r.timeouts + non2xx,
    non2xx,
  }
}

export function runLoad(tool: 'wrk' | 'autocannon', o: LoadOptions): Promise<LoadResult> {
  return tool === 'wrk' ? runWrk(o) : runAutocannon(o)
}
