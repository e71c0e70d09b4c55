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
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

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

function run(cmd: string, args: string[], opts: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { encoding: 'utf8', cwd: opts.cwd ?? tmpdir(), timeout: opts.timeoutMs ?? 120_000, env: opts.env ?? process.env })
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

const hasServer = (bindir: string) => existsSync(join(bindir, 'initdb')) && existsSync(join(bindir, 'pg_ctl')) && existsSync(join(bindir, 'postgres'))
/** the extension's SQL scripts and its library (two Debian packages) */
const hasPostgis = (cfg: { sharedir: string; pkglibdir: string }) =>
  existsSync(join(cfg.sharedir, 'extension', 'postgis.control')) && readdirSync(cfg.pkglibdir).some((f) => /^postgis-\d+\.so$/.test(f))

/**
 * Finds the PostgreSQL server and makes sure PostGIS matches its extension directory, running
 * `apt-get update` once and `apt-get install -y postgresql-<major>-postgis-3` (plus the Debian
 * server itself when no server is installed) when needed.
 */
export function preparePostgis(log: (line: string) => void): PostgisInstall | { skipped: string } {
  if (process.env[NO_POSTGIS_ENV] === '1') return { skipped: `${NO_POSTGIS_ENV}=1` }
  if (process.platform !== 'linux') return { skipped: `PostGIS is installed from Debian packages; this is ${process.platform}` }
  let cfg = pgConfig()
  if (cfg && hasServer(cfg.bindir) && hasPostgis(cfg)) return { bindir: cfg.bindir, version: cfg.version, sharedir: cfg.sharedir, installed: null, installMs: 0 }

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
  const inst = run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], { timeoutMs: 600_000, env })
  if (!ok(inst)) return { skipped: `apt-get install ${packages.join(' ')} failed: ${tail(inst)}` }
  const installMs = performance.now() - t0
  cfg = pgConfig()
  // pg_config may be the client's (libpq-dev) while the server lives under /usr/lib/postgresql/<major>
  if (cfg && !hasServer(cfg.bindir)) {
    const alt = `/usr/lib/postgresql/${cfg.major}/bin`
    if (hasServer(alt)) cfg = { ...cfg, bindir: alt }
  }
  if (!cfg || !hasServer(cfg.bindir)) return { skipped: `installed ${packages.join(' ')}, but no PostgreSQL server binaries were found` }
  if (!hasPostgis(cfg)) return { skipped: `installed ${packages.join(' ')}, but the postgis extension is still missing from ${cfg.sharedir}/extension or ${cfg.pkglibdir}` }
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
export async function startCluster(install: PostgisInstall, log: (line: string) => void): Promise<Cluster | { skipped: string }> {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  if (isRoot) {
    const e = ensureUser()
    if (e) return { skipped: e }
  }
  const as = (bin: string, args: string[], timeoutMs = 120_000) =>
    isRoot ? run('runuser', ['-u', PG_USER, '--', join(install.bindir, bin), ...args], { cwd: dir, timeoutMs }) : run(join(install.bindir, bin), args, { cwd: dir, timeoutMs })
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
  const start = as('pg_ctl', ['start', '-w', '-t', '60', '-D', data, '-l', join(dir, 'server.log'), '-o', optionLine], 90_000)
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
  return { port, host: '127.0.0.1', statStatements, user: PG_USER, dir, connection: { host: '127.0.0.1', port, user: PG_USER, database: 'postgres' }, stop }
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
