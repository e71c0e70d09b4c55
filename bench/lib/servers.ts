/**
 * Starting and stopping the processes under HTTP load: the real server (`node dist/server.js`)
 * and the hello-world floor, on loopback, with stdout (the access log) going to a file. Ready
 * means every worker printed its `listening` line.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileMapper } from '../../src/data/file-map.js'
import { freePort } from '../../scripts/lib/free-port.js'
import { benchScript } from './dataset.js'

export interface RssSample {
  pid: number
  rssBytes: number
  hwmBytes: number
  anonBytes: number
  fileBytes: number
}

export interface RunningProcess {
  port: number
  /** the spawned process (the cluster primary when workers > 1) */
  pid: number
  /** the processes that answer requests */
  workerPids: number[]
  child: ChildProcess
  /**
   * Resident set size of the spawned process and every worker, bytes: in all, its peak, and its
   * two parts: private memory (RssAnon) and mapped file pages (RssFile: the dataset's mmapped
   * SQLite pages, shared with the page cache and every other worker mapping the same file).
   */
  rss(): RssSample[]
  stop(): Promise<void>
}

export { freePort }

function statusKiB(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : NaN
  } catch {
    return NaN
  }
}

/**
 * A process's mapped file pages by file (the `Rss` of its /proc/<pid>/smaps mappings summed per
 * path), bytes; empty where there is no /proc.
 */
export function fileRss(pid: number): Map<string, number> {
  const out = new Map<string, number>()
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8')
  } catch {
    return out
  }
  let path: string | null = null
  for (const line of text.split('\n')) {
    // a mapping's header: address range, perms, offset, device, inode, then the path if any
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line)
    if (head) {
      path = head[1].startsWith('/') ? head[1].replace(/ \(deleted\)$/, '') : null
      continue
    }
    if (path === null || !line.startsWith('Rss:')) continue
    const kib = Number(/(\d+) kB/.exec(line)?.[1] ?? 0)
    if (kib > 0) out.set(path, (out.get(path) ?? 0) + kib * 1024)
  }
  return out
}

/** Stride of the touches in {@link mappingUnitKiB}: wider than any page-cache folio (2 MiB on x86-64). */
const TOUCH_STRIDE = 8 * 2 ** 20

/**
 * How much a process's RSS grows when it first reads one byte of a mapped file, KiB: the kernel
 * maps what the page cache holds around the byte (fault-around, and a large folio whole), so
 * RSS counts mapped file pages in that unit, not in 4 KiB pages. Measured in this process by
 * mapping `path` (with the server's own mapper) and touching one byte in each of up to 64
 * regions 8 MiB apart. Null where the file is smaller than 4 regions, or the mapper or /proc is
 * missing.
 */
export function mappingUnitKiB(path: string): number | null {
  const mapper = fileMapper()
  if (!mapper) return null
  let view: Uint8Array | null = new Uint8Array(mapper.map(path))
  const touches = Math.min(64, Math.floor(view.length / TOUCH_STRIDE))
  if (touches < 4) return null
  const before = statusKiB(process.pid, 'RssFile')
  let sum = 0
  // 4 KiB past each region's start, so that no touch sits on a folio's first page by chance
  for (let k = 0; k < touches; k++) sum += view[k * TOUCH_STRIDE + 4096]
  const after = statusKiB(process.pid, 'RssFile')
  view = null // unmapped when collected
  return Number.isFinite(after - before) && sum >= 0 ? Math.round((after - before) / touches) : null
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Answers once GET /healthz does (for servers whose log level hides the `listening` line). */
async function healthy(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok
  } catch {
    return false
  }
}

async function startProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  workers: number,
  logFile: string,
  port: number,
  timeoutMs = 60_000,
  quietLog = false,
): Promise<RunningProcess> {
  const out = openSync(logFile, 'w')
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', out, 'pipe'] })
  closeSync(out)
  let stderr = ''
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()))
  let exited: number | null = null
  child.on('exit', (code) => (exited = code ?? -1))
  const started = performance.now()
  let workerPids: number[] = []
  for (;;) {
    if (exited !== null)
      throw new Error(`${args.join(' ')} exited with status ${exited} before listening: ${stderr.trim()}`)
    if (performance.now() - started > timeoutMs) {
      child.kill('SIGKILL')
      throw new Error(`${args.join(' ')} did not listen within ${timeoutMs} ms: ${stderr.trim()}`)
    }
    if (existsSync(logFile)) {
      workerPids = []
      for (const line of readFileSync(logFile, 'utf8').split('\n')) {
        if (!line.includes('"listening"')) continue
        try {
          workerPids.push((JSON.parse(line) as { pid: number }).pid)
        } catch {
          // a partly written line: read again next time
        }
      }
      if (workerPids.length >= workers) break
    }
    // LOG_LEVEL above info hides the `listening` lines: one process, ready when it answers
    if (quietLog && workers === 1 && (await healthy(port))) {
      workerPids = [child.pid!]
      break
    }
    await sleep(20)
  }
  const pid = child.pid!
  return {
    port,
    pid,
    workerPids,
    child,
    rss: () =>
      [...new Set([pid, ...workerPids])].map((p) => ({
        pid: p,
        rssBytes: statusKiB(p, 'VmRSS') * 1024,
        hwmBytes: statusKiB(p, 'VmHWM') * 1024,
        anonBytes: statusKiB(p, 'RssAnon') * 1024,
        fileBytes: statusKiB(p, 'RssFile') * 1024,
      })),
    stop: () =>
      new Promise<void>((done) => {
        if (exited !== null) return done()
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
        child.once('exit', () => {
          clearTimeout(timer)
          rmSync(logFile, { force: true })
          done()
        })
        child.kill('SIGTERM')
      }),
  }
}

export interface ApiServerOptions {
  datasetDir: string
  keysDb: string
  workers: number
  logLevel?: string
  workDir: string
  /** node flags before the script, e.g. `--cpu-prof` */
  nodeArgs?: string[]
  /** further environment settings, e.g. `{ SQLITE_MMAP_MB: '0' }` */
  env?: Record<string, string>
}

/** Starts `node dist/server.js` on loopback. */
export async function startApiServer(o: ApiServerOptions): Promise<RunningProcess> {
  const port = await freePort()
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATASET_DIR: o.datasetDir,
    KEYS_DB: o.keysDb,
    WORKERS: String(o.workers),
    // the quick check only: background hashing would compete with the load for CPU, and its
    // worker thread would write a second CPU profile
    VERIFY_ON_START: 'quick',
    ...o.env,
    LOG_LEVEL: o.logLevel ?? 'info',
  }
  const server = resolve('dist', 'server.js')
  const quiet = !['info', 'debug', 'trace'].includes(env.LOG_LEVEL)
  if (quiet && o.workers > 1)
    throw new Error(`LOG_LEVEL ${env.LOG_LEVEL} with ${o.workers} workers: readiness is read from the listening lines`)
  return startProcess(
    [...(o.nodeArgs ?? []), server],
    env,
    o.workers,
    join(o.workDir, `server-${port}.log`),
    port,
    60_000,
    quiet,
  )
}

/**
 * {@link startApiServer} with its metrics listener on a free loopback port (`METRICS_PORT`):
 * with the access log at info and a key store, every feature the server has is on.
 */
export async function startApiServerWithMetrics(
  o: ApiServerOptions,
): Promise<{ p: RunningProcess; metricsPort: number }> {
  const metricsPort = await freePort()
  const p = await startApiServer({ ...o, env: { ...o.env, METRICS_PORT: `127.0.0.1:${metricsPort}` } })
  return { p, metricsPort }
}

/** Starts the hello-world floor, or with `answersFile` the same-bytes floor (see hello.ts). */
export async function startHello(
  workers: number,
  workDir: string,
  nodeArgs: string[] = [],
  answersFile?: string,
): Promise<RunningProcess> {
  const port = await freePort()
  return startProcess(
    [...nodeArgs, benchScript(), '__hello', String(port), String(workers), ...(answersFile ? [answersFile] : [])],
    process.env,
    workers,
    join(workDir, `hello-${port}.log`),
    port,
  )
}
