import cluster from 'node:cluster'
import type { AddressInfo } from 'node:net'
import { createApp } from './app.js'
import { SqliteKeyStore } from './auth/key-store.js'
import type { Config } from './config.js'
import { integrityStatus, verifyOnStart } from './data/integrity.js'
import { DatasetError, DatasetHandle, openDataset } from './data/open-dataset.js'
import { createLogger } from './http/log.js'
import { createHttpServer } from './http/node-server.js'
import { ClusterRateLimiter, serveRateLimitsFromPrimary } from './rate-limit/cluster.js'
import { MemoryRateLimiter } from './rate-limit/memory.js'
import { buildServices, loadServices } from './services.js'
import type { RateLimiter } from './rate-limit/types.js'

export interface RunningServer {
  port: number
  close(): Promise<void>
}

/** Opens the dataset and key store and serves on one process. */
export async function startServer(config: Config, opts: { inCluster?: boolean } = {}): Promise<RunningServer> {
  const log = createLogger(config.LOG_LEVEL)
  const dataset = openDataset(config.DATASET_DIR, {
    mmapBytes: config.SQLITE_MMAP_MB * 2 ** 20,
    mapIndexes: config.INDEX_MMAP,
  })
  const data = new DatasetHandle(dataset, buildServices, await loadServices(dataset))
  const keys = new SqliteKeyStore(config.KEYS_DB)
  const limiter: RateLimiter = opts.inCluster ? new ClusterRateLimiter() : new MemoryRateLimiter()
  const app = createApp({ log, keys, limiter, data, integrity: integrityStatus() })
  const server = createHttpServer(
    app.fetch,
    log,
    { headersTimeoutMs: config.HEADERS_TIMEOUT_MS, requestTimeoutMs: config.REQUEST_TIMEOUT_MS },
    config.HOST,
  )
  return new Promise((resolve) => {
    server.listen(config.PORT, config.HOST, () => {
      const info = server.address() as AddressInfo
      log.info(
        {
          port: info.port,
          dataset: config.DATASET_DIR,
          domains: Object.keys(dataset.manifest.domains),
          indexes: dataset.indexes,
        },
        'listening',
      )
      resolve({
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => {
              data.dataset.close()
              keys.close()
              limiter.close?.()
              done()
            })
          }),
      })
    })
  })
}

/**
 * WORKERS > 1: the primary checks the dataset once (so a damaged dataset stops the start with
 * one clear message), owns the rate-limit counters, forks the workers and replaces any that die.
 */
export async function runServer(config: Config): Promise<void> {
  try {
    if (cluster.isPrimary) {
      const checked = openDataset(config.DATASET_DIR)
      checked.close()
      await verifyOnStart(config.DATASET_DIR, checked.manifest, config.VERIFY_ON_START, createLogger(config.LOG_LEVEL))
    }
  } catch (err) {
    if (err instanceof DatasetError) {
      console.error(`cannot start: ${err.message}`)
      process.exit(1)
    }
    throw err
  }
  if (config.WORKERS <= 1) {
    const server = await startServer(config)
    // a graceful stop (docker stop, Ctrl-C): finish in-flight requests, close the files
    const stop = () => void server.close().then(() => process.exit(0))
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
    return
  }
  if (cluster.isPrimary) {
    serveRateLimitsFromPrimary()
    let stopping = false
    for (let i = 0; i < config.WORKERS; i++) cluster.fork()
    cluster.on('exit', (w, code, signal) => {
      if (stopping) return
      console.error(`worker ${w.process.pid} exited (${signal ?? code}); starting a replacement`)
      cluster.fork()
    })
    const stop = () => {
      stopping = true
      for (const w of Object.values(cluster.workers ?? {})) w?.kill()
      process.exit(0)
    }
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
  } else {
    await startServer(config, { inCluster: true })
  }
}
