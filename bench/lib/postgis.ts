/**
 * A private PostgreSQL + PostGIS cluster for the side-by-side benchmark: installs PostGIS from
 * Debian packages when its extension is missing, runs initdb / pg_ctl as the `postgres` system
 * user on a data directory in a fresh temporary directory, listens on 127.0.0.1 on a free port
 * (unix socket in the same temporary directory), and stops and removes everything on `stop()`.
 *
 * Nothing here throws for an environment that cannot run PostGIS: {@link preparePostgis} and
 * {@link startCluster} answer `{ skipped: reason }` instead, so the suite can report a skip.
 *
 * @module
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Samples, type Summary } from './stats.js'

/** Set to 1 to skip the PostGIS suite at once (no apt, no cluster). */
export const NO_POSTGIS_ENV = 'LANDDATA_BENCH_NO_POSTGIS'
/** The system user that owns the cluster (initdb refuses to run as root). */
const PG_USER = 'postgres'

export interface PostgisInstall {
  /** directory of initdb, pg_ctl, postgres */
  bindir: string
  /** server version line, e.g. "PostgreSQL 15.18 (Debian 15.18-0+deb12u1)" */
  version: string
  /** the server's share directory (extensions under `extension/`) */
  sharedir: string
  /** PostGIS package that was installed by this run, or null when it was already there */
  installed: string | null
  /** wall time of apt-get update + install, ms (0 when nothing was installed) */
  installMs: number
}

export interface Cluster {
  /** directory of the server's binaries (pgbench among them, when installed) */
  bindir: string
  port: number
  host: string
  /** pg_stat_statements is preloaded (server-side execution times can be read) */
  statStatements: boolean
  user: string
  dir: string
  /** the connection settings for `pg.Client` */
  connection: { host: string; port: number; user: string; database: string }
  /** stops the server (fast shutdown) and removes the temporary directory; never throws */
  stop(): void
}

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, {
    encoding: 'utf8',
    cwd: opts.cwd ?? tmpdir(),
    timeout: opts.timeoutMs ?? 120_000,
    env: opts.env ?? process.env,
  })
}

function ok(r: SpawnSyncReturns<string>): boolean {
  return !r.error && r.status === 0
}

function tail(r: SpawnSyncReturns<string>): string {
  const text = `${r.error ? r.error.message : ''}\n${r.stderr ?? ''}\n${r.stdout ?? ''}`.trim()
  return text.split('\n').slice(-3).join(' | ').slice(0, 400)
}

/** `pg_config`'s answers: server binaries, extension directory and major version; null when absent. */
function pgConfig(): { bindir: string; sharedir: string; pkglibdir: string; version: string; major: number } | null {
  const r = run('pg_config', ['--bindir', '--sharedir', '--pkglibdir', '--version'])
  if (!ok(r)) return null
  const [bindir, sharedir, pkglibdir, version] = r.stdout.trim().split('\n')
  const major = Number(/PostgreSQL (\d+)/.exec(version ?? '')?.[1])
  if (!bindir || !sharedir || !pkglibdir || !Number.isFinite(major)) return null
  return { bindir, sharedir, pkglibdir, version, major }
}

const hasServer = (bindir: string) =>
  existsSync(join(bindir, 'initdb')) && existsSync(join(bindir, 'pg_ctl')) && existsSync(join(bindir, 'postgres'))
/** the extension's SQL scripts and its library (two Debian packages) */
const hasPostgis = (cfg: { sharedir: string; pkglibdir: string }) =>
  existsSync(join(cfg.sharedir, 'extension', 'postgis.control')) &&
  readdirSync(cfg.pkglibdir).some((f) => /^postgis-\d+\.so$/.test(f))

/**
 * Finds the PostgreSQL server and makes sure PostGIS matches its extension directory, running
 * `apt-get update` once and `apt-get install -y postgresql-<major>-postgis-3` (plus the Debian
 * server itself when no server is installed) when needed.
 */
export function preparePostgis(log: (line: string) => void): PostgisInstall | { skipped: string } {
  if (process.env[NO_POSTGIS_ENV] === '1') return { skipped: `${NO_POSTGIS_ENV}=1` }
  if (process.platform !== 'linux')
    return { skipped: `PostGIS is installed from Debian packages; this is ${process.platform}` }
  let cfg = pgConfig()
  if (cfg && hasServer(cfg.bindir) && hasPostgis(cfg))
    return { bindir: cfg.bindir, version: cfg.version, sharedir: cfg.sharedir, installed: null, installMs: 0 }

  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  if (!isRoot) return { skipped: 'PostGIS is not installed and installing it needs root (apt-get)' }
  if (!ok(run('apt-get', ['--version']))) return { skipped: 'PostGIS is not installed and apt-get is not available' }
  const serverMissing = !cfg || !hasServer(cfg.bindir)
  // the Debian server of the packaged major version when there is none; else PostGIS for the server we have
  const major = cfg && !serverMissing ? cfg.major : null
  const packages = major ? [`postgresql-${major}-postgis-3`] : ['postgresql', 'postgresql-postgis']
  const t0 = performance.now()
  log(`postgis: installing ${packages.join(' ')} (apt-get update + install) …`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const upd = run('apt-get', ['update', '-q'], { timeoutMs: 300_000, env })
  if (!ok(upd)) return { skipped: `apt-get update failed: ${tail(upd)}` }
  const inst = run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], {
    timeoutMs: 600_000,
    env,
  })
  if (!ok(inst)) return { skipped: `apt-get install ${packages.join(' ')} failed: ${tail(inst)}` }
  const installMs = performance.now() - t0
  cfg = pgConfig()
  // pg_config may be the client's (libpq-dev) while the server lives under /usr/lib/postgresql/<major>
  if (cfg && !hasServer(cfg.bindir)) {
    const alt = `/usr/lib/postgresql/${cfg.major}/bin`
    if (hasServer(alt)) cfg = { ...cfg, bindir: alt }
  }
  if (!cfg || !hasServer(cfg.bindir))
    return { skipped: `installed ${packages.join(' ')}, but no PostgreSQL server binaries were found` }
  if (!hasPostgis(cfg))
    return {
      skipped: `installed ${packages.join(' ')}, but the postgis extension is still missing from ${cfg.sharedir}/extension or ${cfg.pkglibdir}`,
    }
  log(`postgis: installed in ${(installMs / 1000).toFixed(1)} s (${cfg.version})`)
  return { bindir: cfg.bindir, version: cfg.version, sharedir: cfg.sharedir, installed: packages.join(' '), installMs }
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

function ensureUser(): string | null {
  if (ok(run('id', ['-u', PG_USER]))) return null
  const r = run('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', PG_USER])
  return ok(r) ? null : `could not create the ${PG_USER} system user: ${tail(r)}`
}

/**
 * initdb + pg_ctl start of a throwaway cluster: trust auth on 127.0.0.1 only, fsync off, modest
 * shared_buffers. The caller must call `stop()` (in a finally).
 */
export async function startCluster(
  install: PostgisInstall,
  log: (line: string) => void,
): Promise<Cluster | { skipped: string }> {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  if (isRoot) {
    const e = ensureUser()
    if (e) return { skipped: e }
  }
  const as = (bin: string, args: string[], timeoutMs = 120_000) =>
    isRoot
      ? run('runuser', ['-u', PG_USER, '--', join(install.bindir, bin), ...args], { cwd: dir, timeoutMs })
      : run(join(install.bindir, bin), args, { cwd: dir, timeoutMs })
  const dir = mkdtempSync(join(tmpdir(), 'landdata-bench-pg-'))
  const data = join(dir, 'data')
  const cleanup = () => rmSync(dir, { recursive: true, force: true })
  chmodSync(dir, 0o755)
  if (isRoot) {
    const r = run('chown', [PG_USER, dir])
    if (!ok(r)) {
      cleanup()
      return { skipped: `chown ${PG_USER} ${dir} failed: ${tail(r)}` }
    }
  }
  const init = as('initdb', ['-D', data, '-U', PG_USER, '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync'])
  if (!ok(init)) {
    cleanup()
    return { skipped: `initdb failed: ${tail(init)}` }
  }
  const port = await freePort()
  const options = [
    `-c listen_addresses=127.0.0.1`,
    `-p ${port}`,
    `-c unix_socket_directories=${dir}`,
    `-c fsync=off`,
    `-c synchronous_commit=off`,
    `-c full_page_writes=off`,
    `-c shared_buffers=256MB`,
    `-c max_connections=40`,
    `-c max_wal_size=2GB`,
    `-c maintenance_work_mem=256MB`,
    `-c jit=off`,
  ]
  // server-side execution time per statement, to tell the engine's cost from the round trip
  const statStatements = existsSync(join(install.sharedir, 'extension', 'pg_stat_statements.control'))
  if (statStatements) options.push('-c shared_preload_libraries=pg_stat_statements', '-c pg_stat_statements.track=top')
  const optionLine = options.join(' ')
  const start = as(
    'pg_ctl',
    ['start', '-w', '-t', '60', '-D', data, '-l', join(dir, 'server.log'), '-o', optionLine],
    90_000,
  )
  let stopped = false
  const stop = () => {
    if (stopped) return
    stopped = true
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    const r = as('pg_ctl', ['stop', '-w', '-t', '60', '-m', 'fast', '-D', data], 90_000)
    if (!ok(r)) as('pg_ctl', ['stop', '-w', '-m', 'immediate', '-D', data], 30_000)
    cleanup()
  }
  // an interrupted bench still stops its cluster
  const onSignal = (signal: NodeJS.Signals) => {
    stop()
    process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  if (!ok(start)) {
    stop()
    return { skipped: `pg_ctl start failed: ${tail(start)}` }
  }
  log(`postgis: private cluster on 127.0.0.1:${port} in ${dir}`)
  return {
    bindir: install.bindir,
    port,
    host: '127.0.0.1',
    statStatements,
    user: PG_USER,
    dir,
    connection: { host: '127.0.0.1', port, user: PG_USER, database: 'postgres' },
    stop,
  }
}

/** `SRID=4326;MULTIPOLYGON(...)` for a GeoJSON-style multipolygon (rings of [lon, lat]). */
export function multiPolygonEwkt(mp: number[][][][]): string {
  const ring = (r: number[][]) => `(${r.map((p) => `${p[0]} ${p[1]}`).join(',')})`
  return `SRID=4326;MULTIPOLYGON(${mp.map((poly) => `(${poly.map(ring).join(',')})`).join(',')})`
}

/** `SRID=4326;MULTILINESTRING(...)` for lines of [lon, lat] positions. */
export function multiLineStringEwkt(lines: number[][][]): string {
  return `SRID=4326;MULTILINESTRING(${lines.map((l) => `(${l.map((p) => `${p[0]} ${p[1]}`).join(',')})`).join(',')})`
}

/** `LINESTRING(...)` (WKT, no SRID) for one line of [lon, lat] positions. */
export function lineStringWkt(line: number[][]): string {
  return `LINESTRING(${line.map((p) => `${p[0]} ${p[1]}`).join(',')})`
}

// ---------------------------------------------------------------- pgbench

/**
 * The 8-connection pass through `pg` shares the bench's one Node thread among its clients, and
 * `pg`'s per-query work (protocol, parsing, promises) can cap PostGIS's throughput before PostGIS
 * does. pgbench, PostgreSQL's own C client (in the server package), is to PostGIS what wrk is to
 * our HTTP server: a load generator too cheap to be the limit. It runs the same statement as a
 * prepared statement with the same parameters; each transaction draws a probe number at random
 * and picks that probe's parameters in pgbench itself (see {@link pgbenchScript}), so the server
 * does exactly what it does for `pg`.
 */
export interface PgbenchResult {
  /** transactions (= queries) per second, without the initial connection time */
  qps: number
  latencyMeanUs: number
  /** per-transaction latency from pgbench's transaction log (-l) */
  latency: Summary
  transactions: number
  failed: number
  clients: number
  threads: number
  seconds: number
}

/** `pgbench` next to the server's binaries, or null. */
export function findPgbench(bindir: string): string | null {
  const p = join(bindir, 'pgbench')
  return existsSync(p) ? p : null
}

/**
 * A pgbench script asking `sql` (parameters written `$n::type`, every one cast) once per
 * transaction for one of the probes, drawn at random: `\set k random(0, n - 1)`, then each
 * parameter `pn` set to probe k's value by a balanced tree of `case when :k <= m` (13 comparisons
 * for 5,000 probes, evaluated by pgbench, nothing asked of the server), then the statement with
 * `:pn` for `$n` (sent as `$n` parameters with `-M prepared`). pgbench sends a number with 15
 * significant digits: a coordinate moves by at most ~1e-13 degrees.
 */
export function pgbenchScript(sql: string, probes: number[][]): string {
  if (!probes.length) throw new Error('pgbench script: no probes')
  const statement = sql.replace(/\$(\d+)::(\w+)/g, (_, n: string, type: string) => `:p${n}::${type}`)
  if (/\$\d/.test(statement)) throw new Error(`a parameter without a cast in: ${sql.slice(0, 200)}`)
  const width = probes[0].length
  const lines = [`\\set k random(0, ${probes.length - 1})`]
  for (let j = 0; j < width; j++) {
    const values = probes.map((p) => {
      const v = p[j]
      if (typeof v !== 'number' || !Number.isFinite(v))
        throw new Error(`pgbench script: probe parameter ${j + 1} is not a finite number: ${String(v)}`)
      return v
    })
    lines.push(`\\set p${j + 1} ${caseTree(values, 0, values.length - 1)}`)
  }
  lines.push(`${statement.replace(/\s+/g, ' ').trim()};`)
  return lines.join('\n') + '\n'
}

/** pgbench expression giving values[k] for :k in lo..hi. */
function caseTree(values: number[], lo: number, hi: number): string {
  if (lo === hi) return pgbenchNumber(values[lo])
  const mid = (lo + hi) >> 1
  return `case when :k <= ${mid} then ${caseTree(values, lo, mid)} else ${caseTree(values, mid + 1, hi)} end`
}

/** A number as a pgbench literal: no exponent (pgbench's lexer reads digits and a point), a unary minus in brackets. */
function pgbenchNumber(v: number): string {
  const a = Math.abs(v)
  const t = /e/.test(String(a)) ? a.toFixed(20).replace(/\.?0+$/, '') : String(a)
  return v < 0 ? `(-${t})` : t
}

/** The figures of a pgbench run's report (PostgreSQL 15's wording), or null when it has none. */
export function parsePgbench(out: string): Omit<PgbenchResult, 'clients' | 'threads' | 'seconds' | 'latency'> | null {
  const num = (re: RegExp) => {
    const m = re.exec(out)
    return m ? Number(m[1]) : NaN
  }
  const qps = num(/^tps = ([\d.]+)/m)
  const latencyMs = num(/^latency average = ([\d.]+) ms/m)
  const transactions = num(/^number of transactions actually processed: (\d+)/m)
  const failedRaw = num(/^number of failed transactions: (\d+)/m)
  if (!Number.isFinite(qps) || !Number.isFinite(latencyMs) || !Number.isFinite(transactions)) return null
  return { qps, latencyMeanUs: latencyMs * 1000, transactions, failed: Number.isFinite(failedRaw) ? failedRaw : 0 }
}

/**
 * Per-transaction latencies (µs, the third field) of pgbench transaction log lines
 * (`client_id transaction_no time script_no time_epoch time_us`).
 */
export function pgbenchLogLatencies(text: string, into: Samples): void {
  for (const line of text.split('\n')) {
    const f = line.split(' ')
    if (f.length < 6) continue
    const us = Number(f[2])
    if (Number.isFinite(us)) into.push(us / 1000)
  }
}

/**
 * Runs pgbench against the cluster with one script, bounded in time, its transaction log written
 * to (and read back and removed from) `logDir`; an error message instead of throwing.
 */
export function runPgbench(
  pgbench: string,
  cluster: Pick<Cluster, 'connection'>,
  script: string,
  o: { clients: number; threads: number; seconds: number; seed: number; logDir: string },
): PgbenchResult | { error: string } {
  const c = cluster.connection
  const prefix = `pgbench-${process.pid}-${Date.now()}`
  const r = run(
    pgbench,
    [
      '-n',
      '-h',
      c.host,
      '-p',
      String(c.port),
      '-U',
      c.user,
      '-c',
      String(o.clients),
      '-j',
      String(o.threads),
      '-M',
      'prepared',
      '-T',
      String(o.seconds),
      `--random-seed=${o.seed}`,
      '-l',
      `--log-prefix=${join(o.logDir, prefix)}`,
      '-f',
      script,
      c.database,
    ],
    { timeoutMs: (o.seconds + 60) * 1000 },
  )
  const logs = readdirSync(o.logDir).filter((f) => f.startsWith(prefix))
  const samples = new Samples(1 << 16)
  for (const f of logs) {
    pgbenchLogLatencies(readFileSync(join(o.logDir, f), 'utf8'), samples)
    rmSync(join(o.logDir, f), { force: true })
  }
  const parsed = ok(r) ? parsePgbench(r.stdout) : null
  if (!parsed) return { error: `pgbench failed: ${tail(r)}` }
  if (!samples.length) return { error: 'pgbench wrote no transaction log' }
  return { ...parsed, latency: samples.summary(), clients: o.clients, threads: o.threads, seconds: o.seconds }
}
