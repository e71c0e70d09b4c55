/**
 * Starting and stopping the server (docs/operations.md "Running in production"): one process,
 * or a cluster primary that checks the dataset once, owns the rate-limit counters and supervises
 * its workers. A stop (SIGTERM, SIGINT) drains: `/readyz` answers 503 at once, listening stops,
 * in-flight requests finish within SHUTDOWN_TIMEOUT_S, then the process exits 0.
 */
import cluster from 'node:cluster'
import { existsSync, mkdirSync, readFileSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { basename, dirname } from 'node:path'
import { createApp } from './app.js'
import { SqliteKeyStore } from './auth/key-store.js'
import type { Config } from './config.js'
import { FAILURE_EXIT_AFTER_MS, type IntegrityMonitor, integrityStatus, verifyOnStart } from './data/integrity.js'
import { DatasetError, DatasetHandle, openDataset } from './data/open-dataset.js'
import { trustedProxies } from './http/client-address.js'
import { createLogger } from './http/log.js'
import { createHttpServer } from './http/node-server.js'
import { createMetrics } from './metrics/metrics.js'
import {
  answerPrimaryScrapes,
  clusterMetrics,
  type MetricsAddress,
  type MetricsSource,
  processMetrics,
  serveMetrics,
} from './metrics/serve.js'
import { TimedKeyVerifier, TimedRateLimiter } from './metrics/timed.js'
import { ClusterRateLimiter, serveRateLimitsFromPrimary } from './rate-limit/cluster.js'
import { MemoryRateLimiter } from './rate-limit/memory.js'
import type { RateLimiter } from './rate-limit/types.js'
import { openSharedState } from './redis/shared-state.js'
import type { KeyVerifier } from './auth/types.js'
import { datasetSwitcher, isSwitchMessage, primarySwitcher, SERVED_BUILD_ENV } from './dataset-switch.js'
import { buildServices, loadServices } from './services.js'
import { superviseWorkers } from './supervise.js'
import type { JobRunner } from './jobs/runner.js'
import { RowThreads } from './jobs/thread-rows.js'
import { LazyJobStore } from './jobs/lazy-store.js'
import { openRedisJobs } from './jobs/redis-jobs.js'
import type { JobStore } from './jobs/types.js'

/** The exit code of a server stopped because a dataset file does not match its manifest. */
export const INTEGRITY_EXIT = 3

export interface RunningServer {
  port: number
  /** Stops accepting, lets in-flight requests finish (at most `timeoutMs`), then closes the files. */
  drain(timeoutMs: number): Promise<void>
  close(): Promise<void>
  /**
   * Switches to the build DATASET_DIR names now, if another, or to `checked`, a build the cluster
   * primary has hashed already (src/dataset-switch.ts); never throws.
   */
  reload(checked?: string): Promise<void>
}

/** A start the configuration or the files make impossible: one line, no stack trace. */
export class StartError extends Error {}

/**
 * Opens the key store the server verifies against. It must exist (`npm run keys -- init`
 * creates it), so a mistyped KEYS_DB never serves with an empty store; a read-only or locked
 * file fails naming it.
 */
export function openKeyStore(path: string): SqliteKeyStore {
  if (path !== ':memory:' && !existsSync(path))
    throw new StartError(
      `the key store ${path} does not exist: create it with \`npm run keys -- init\` (KEYS_DB=${path}), ` +
        'or point KEYS_DB at the existing one',
    )
  try {
    return new SqliteKeyStore(path)
  } catch (err) {
    throw new StartError(`the key store ${path} cannot be used: ${(err as Error).message}`)
  }
}

/**
 * The job store of JOBS_DIR, opened on first use (the first upload makes the directory); one
 * there already is opened now, so a store that cannot be used fails the start naming it.
 */
export function openJobStore(dir: string): LazyJobStore {
  try {
    const store = new LazyJobStore(dir)
    store.get('')
    return store
  } catch (err) {
    throw new StartError(`the bulk job store in ${dir} (JOBS_DIR) cannot be used: ${(err as Error).message}`)
  }
}

/** Serves the metrics on `address`, or fails the start naming it (a port in use, a bad host). */
async function listenForMetrics(
  address: MetricsAddress,
  source: MetricsSource,
  log: { info(o: object, msg: string): void; error(o: object, msg: string): void },
): Promise<Server> {
  try {
    const { server, port } = await serveMetrics(address, source, (err) =>
      log.error({ err: err.message }, 'metrics scrape failed'),
    )
    log.info({ host: address.host, port }, 'metrics listening')
    return server
  } catch (err) {
    throw new StartError(
      `the metrics cannot listen on ${address.host}:${address.port} (METRICS_PORT): ${(err as Error).message}`,
    )
  }
}

/**
 * Closes the server gracefully: no new connections, idle keep-alive connections closed at once
 * and as they fall idle, connections still busy after `timeoutMs` cut.
 */
function drainServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((done) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 100)
    const cut = setTimeout(() => server.closeAllConnections(), timeoutMs)
    server.close(() => {
      clearInterval(sweep)
      clearTimeout(cut)
      done()
    })
    server.closeIdleConnections()
  })
}

/** The directory a DATASET_DIR symlink names (a missing one as given: openDataset says why). */
function realPath(dir: string): string {
  return existsSync(dir) ? realpathSync(dir) : dir
}

/**
 * Opens the dataset and key store and serves on one process. `dir`: the build to open, as
 * checked (runServer's start-up check, or the cluster primary's for its workers); by default
 * the one DATASET_DIR names now.
 */
export async function startServer(
  config: Config,
  opts: { inCluster?: boolean; dir?: string } = {},
): Promise<RunningServer> {
  const log = createLogger(config.LOG_LEVEL)
  // its files are opened by their real path, so a moved symlink changes nothing until a switch
  // (src/dataset-switch.ts)
  const openOptions = { mmapBytes: config.SQLITE_MMAP_MB * 2 ** 20, mapIndexes: config.INDEX_MMAP }
  const open = (dir: string) => openDataset(dir, openOptions)
  const dataset = open(opts.dir ?? realPath(config.DATASET_DIR))
  const build = basename(dataset.dir)
  const data = new DatasetHandle(dataset, buildServices, await loadServices(dataset), build)
  // REDIS_URL: keys and counts shared by every instance (src/redis/shared-state.ts)
  let uncounted: ((n: number) => void) | undefined
  const shared = config.REDIS_URL
    ? await openSharedState({
        url: config.REDIS_URL,
        timeoutMs: config.REDIS_TIMEOUT_MS,
        failOpen: config.RATE_LIMIT_ON_STORE_ERROR === 'open',
        log,
        onUncounted: (n) => uncounted?.(n),
      })
    : null
  const keys: KeyVerifier = shared ? shared.keys : openKeyStore(config.KEYS_DB)
  const limiter: RateLimiter = shared
    ? shared.limiter
    : opts.inCluster
      ? new ClusterRateLimiter()
      : new MemoryRateLimiter()
  const reload = datasetSwitcher({ dir: config.DATASET_DIR, data, open, log })
  // METRICS_PORT (docs/operations.md "Metrics"): one process serves its own; a cluster worker
  // answers its primary, which serves them all summed
  const metrics = config.METRICS_PORT ? createMetrics(build, dataset.manifest) : undefined
  if (metrics) uncounted = (n) => metrics.rateLimitUncounted.inc(n)
  let metricsServer: Server | null = null
  if (metrics && config.METRICS_PORT) {
    if (opts.inCluster) answerPrimaryScrapes()
    else metricsServer = await listenForMetrics(config.METRICS_PORT, processMetrics, log)
  }
  let draining = false
  // bulk jobs (docs/operations.md "Bulk jobs"): one store and runner per JOBS_DIR, or with
  // REDIS_URL the records and the BullMQ queue in Redis, one runner per host
  const redisJobs = config.REDIS_URL
    ? await openRedisJobs({ url: config.REDIS_URL, timeoutMs: config.REDIS_TIMEOUT_MS, dir: config.JOBS_DIR, log })
    : null
  const jobStore: JobStore = redisJobs ? redisJobs.store : openJobStore(config.JOBS_DIR)
  let runner = null as JobRunner | null
  // the threads answering the jobs' rows (src/jobs/thread-rows.ts), started by the first job
  const threads =
    config.JOBS_WORKERS > 0
      ? new RowThreads({
          threads: config.JOBS_THREADS,
          cpuShare: config.JOBS_CPU_SHARE,
          logLevel: config.LOG_LEVEL,
          open: openOptions,
          log,
        })
      : undefined
  const app = createApp({
    log,
    keys: metrics ? new TimedKeyVerifier(keys, metrics.keyStore) : keys,
    limiter: metrics ? new TimedRateLimiter(limiter, metrics.rateLimit) : limiter,
    data,
    integrity: integrityStatus(),
    readiness: () => (draining ? 'shutting down' : null),
    // failing closed, Redis away means no request is served: out of rotation, saying why
    unavailable: shared && config.RATE_LIMIT_ON_STORE_ERROR === 'closed' ? shared.reason : undefined,
    build,
    trustedProxies: trustedProxies(config.TRUSTED_PROXIES),
    metrics,
    corsOrigins: config.CORS_ORIGINS,
    tileRatePerMinute: config.TILE_RATE_PER_MINUTE,
    rateLimitHeaders: config.RATE_LIMIT_HEADERS,
    jobs: {
      store: jobStore,
      dir: config.JOBS_DIR,
      maxRows: config.JOBS_MAX_ROWS,
      maxBytes: config.JOBS_MAX_MB * 2 ** 20,
      maxRunningPerKey: config.JOBS_MAX_RUNNING_PER_KEY,
      rowsPerDay: config.JOBS_ROWS_PER_DAY,
      retentionMs: config.JOBS_RETENTION_DAYS * 86_400_000,
      threads,
      runner: (make) => {
        if (config.JOBS_WORKERS > 0) runner = make({ workers: config.JOBS_WORKERS, log, queue: redisJobs?.queue })
      },
    },
  })
  runner?.start()
  const server = createHttpServer(
    app.fetch,
    log,
    {
      headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: config.KEEPALIVE_TIMEOUT_S * 1000,
      send: { sendTimeoutMs: config.SEND_TIMEOUT_S * 1000, maxUnsentBytes: config.UNSENT_MAX_MB * 2 ** 20 },
    },
    config.HOST,
  )
  const closeFiles = async () => {
    // a running job stops where it is; the next start resumes it from its checkpoint
    await runner?.stop()
    await threads?.stop()
    jobStore.close()
    await redisJobs?.close()
    metricsServer?.close()
    data.current().dataset.close()
    keys.close()
    limiter.close?.()
    shared?.close()
  }
  return new Promise((resolve) => {
    server.listen(config.PORT, config.HOST, () => {
      const info = server.address() as AddressInfo
      log.info(
        {
          port: info.port,
          dataset: config.DATASET_DIR,
          build,
          domains: Object.keys(dataset.manifest.domains),
          indexes: dataset.indexes,
        },
        'listening',
      )
      let drained: Promise<void> | null = null
      const drain = (timeoutMs: number) => {
        if (!drained) {
          draining = true
          log.info({ timeoutMs }, 'draining: not ready, finishing in-flight requests')
          drained = drainServer(server, timeoutMs).then(closeFiles)
        }
        return drained
      }
      resolve({ port: info.port, drain, close: () => drain(0), reload })
    })
  })
}

/**
 * Turns SIGTERM and SIGINT into a drain and exit 0. On its own, a second signal exits at once (a
 * second Ctrl-C); a cluster worker gets the terminal's signal and its primary's, so it ignores
 * the second.
 */
function stopOnSignals(server: RunningServer, timeoutMs: number, inCluster: boolean): void {
  let stopping = false
  const stop = () => {
    if (stopping) {
      if (!inCluster) process.exit(1)
      return
    }
    stopping = true
    void server.drain(timeoutMs).then(() => process.exit(0))
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

/**
 * The pid `npm run reload` signals (scripts/reload.ts), written at start and removed at exit
 * when it still names this process.
 */
function writePidFile(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, `${process.pid}\n`)
  } catch (err) {
    console.error(`cannot start: PID_FILE ${path} cannot be written: ${(err as Error).message}`)
    process.exit(1)
  }
  process.on('exit', () => {
    try {
      if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path)
    } catch {
      // gone already
    }
  })
}

/**
 * SIGHUP switches the served build (docs/operations.md "Swapping datasets"): a cluster primary
 * checks the build once and tells every worker to switch to it (primarySwitcher); a lone process
 * checks and switches itself. Listened for from the first moment (Node's default for SIGHUP is
 * to exit): a switch asked for while the process starts is made once it serves, which it says by
 * calling the returned function with its reload (`checked`: a build the primary checked).
 */
function reloadOnSignal(): (reload: (checked?: string) => void) => void {
  let reload: ((checked?: string) => void) | null = null
  let pending: { checked?: string } | null = null
  const ask = (checked?: string) => (reload ? reload(checked) : (pending = { checked }))
  process.on('SIGHUP', () => ask())
  if (cluster.isWorker)
    process.on('message', (m) => {
      if (isSwitchMessage(m)) ask(m.dir)
    })
  return (r) => {
    reload = r
    if (pending) r(pending.checked)
  }
}

/**
 * WORKERS > 1: the primary checks the dataset and the key store once (so a damaged dataset or
 * a missing store stops the start with one clear line), owns the rate-limit counters, forks the
 * workers and supervises them (src/supervise.ts).
 */
export async function runServer(config: Config): Promise<void> {
  const serving = reloadOnSignal()
  if (cluster.isPrimary && config.PID_FILE) writePidFile(config.PID_FILE)
  let integrity: IntegrityMonitor | null = null
  // the build itself, not a symlink that may be moved to another while it is checked: the one
  // this process (or, in a worker, its primary) checks and serves
  const dir = cluster.isPrimary ? realPath(config.DATASET_DIR) : process.env[SERVED_BUILD_ENV]
  if (cluster.isPrimary) {
    try {
      const checked = openDataset(dir!)
      checked.close()
      integrity = await verifyOnStart(dir!, checked.manifest, config.VERIFY_ON_START, createLogger(config.LOG_LEVEL))
      // with REDIS_URL the keys live in Redis: no KEYS_DB file is needed
      if (!config.REDIS_URL) openKeyStore(config.KEYS_DB).close()
      // with REDIS_URL the jobs live in Redis: JOBS_DIR holds only their files
      if (!config.REDIS_URL) openJobStore(config.JOBS_DIR).close()
    } catch (err) {
      if (err instanceof DatasetError || err instanceof StartError) {
        console.error(`cannot start: ${err.message}`)
        process.exit(1)
      }
      throw err
    }
  }
  // a file found damaged while serving (VERIFY_ON_START=background): /readyz answers 503 naming
  // it at once; FAILURE_EXIT_AFTER_MS later, once load balancers have seen that, drain and exit
  // 3 so the supervisor restarts on a good build
  let onFailure: (() => void) | null = null
  let failedEarly = false
  integrity?.onFailure(() => {
    setTimeout(() => (onFailure ? onFailure() : (failedEarly = true)), FAILURE_EXIT_AFTER_MS)
  })
  const timeoutMs = config.SHUTDOWN_TIMEOUT_S * 1000
  if (config.WORKERS <= 1) {
    const server = await startServer(config, { dir })
    stopOnSignals(server, timeoutMs, false)
    serving((checked) => void server.reload(checked))
    onFailure = () => void server.drain(timeoutMs).then(() => process.exit(INTEGRITY_EXIT))
  } else if (cluster.isPrimary) {
    // with REDIS_URL each worker counts in Redis itself
    if (!config.REDIS_URL) serveRateLimitsFromPrimary()
    if (config.METRICS_PORT) {
      const log = createLogger(config.LOG_LEVEL)
      try {
        await listenForMetrics(config.METRICS_PORT, clusterMetrics(), log)
      } catch (err) {
        console.error(`cannot start: ${(err as Error).message}`)
        process.exit(1)
      }
    }
    // the primary hashes a new build once and hands it to the workers; a worker forked later (a
    // replacement) is told the build the others serve
    const switcher = primarySwitcher(config.DATASET_DIR, createLogger(config.LOG_LEVEL), dir!, (m) => {
      for (const w of Object.values(cluster.workers ?? {})) if (w?.isConnected()) w.send(m)
    })
    const supervisor = superviseWorkers(config.WORKERS, timeoutMs, () => ({ [SERVED_BUILD_ENV]: switcher.served() }))
    serving(() => void switcher())
    onFailure = () => supervisor.stop(INTEGRITY_EXIT)
  } else {
    if (!dir) throw new StartError(`a cluster worker needs ${SERVED_BUILD_ENV}, the build its primary checked`)
    const server = await startServer(config, { inCluster: true, dir })
    stopOnSignals(server, timeoutMs, true)
    serving((checked) => void server.reload(checked))
  }
  if (failedEarly) onFailure?.()
}
