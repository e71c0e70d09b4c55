/**
 * `npm start`: the quick start. With DATASET_DIR unset it generates the sample source export
 * (data/sources/sample) and builds the sample dataset (data/datasets/sample) when they are
 * absent, issues a demo key when the key store (KEYS_DB, or Redis with REDIS_URL) is empty
 * (printing it once, with example curl lines), then serves. Later starts reuse what exists. With DATASET_DIR set it serves that
 * dataset and generates nothing (and issues no demo key: issue keys with `npm run keys`).
 */
import cluster from 'node:cluster'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { buildDataset } from '../build-index/build.js'
import { exportIsCurrent } from '../build-index/synth/current.js'
import { runSynth } from '../build-index/synth/synth.js'
import { type KeyAdmin, openRedisKeyStore } from '../src/auth/cli-store.js'
import { SqliteKeyStore } from '../src/auth/key-store.js'
import { ConfigError, loadConfig } from '../src/config.js'
import { runServer } from '../src/server.js'
import { runMain } from '../src/cli/run.js'
import { formatDuration } from '../build-index/progress.js'

const SAMPLE_SOURCE = 'data/sources/sample'
const SAMPLE_DATASET = 'data/datasets/sample'
const SAMPLE_SEED = 1

async function prepareSample(): Promise<void> {
  if (existsSync(SAMPLE_SOURCE) && !exportIsCurrent(SAMPLE_SOURCE, 'sample', SAMPLE_SEED)) {
    console.error(
      `${SAMPLE_SOURCE} was made by an older generator (preset or layers differ); generating the sample again`,
    )
    rmSync(SAMPLE_SOURCE, { recursive: true, force: true })
    rmSync(SAMPLE_DATASET, { recursive: true, force: true })
  }
  if (!existsSync(join(SAMPLE_SOURCE, 'export.json'))) {
    console.error(`generating the sample source export in ${SAMPLE_SOURCE} …`)
    await runSynth({ scale: 'sample', seed: SAMPLE_SEED, out: SAMPLE_SOURCE, log: (l) => console.error(l) })
  }
  if (!existsSync(join(SAMPLE_DATASET, 'manifest.json'))) {
    console.error(`building the sample dataset in ${SAMPLE_DATASET} …`)
    const started = performance.now()
    await buildDataset({ source: SAMPLE_SOURCE, out: SAMPLE_DATASET, force: true })
    console.error(`built the sample dataset in ${formatDuration(performance.now() - started)}`)
  }
}

/**
 * The demo key goes into the store the server will verify against: the SQLite file at KEYS_DB,
 * or with REDIS_URL the Redis the instances share.
 */
async function issueDemoKey(keysDb: string, redisUrl: string | undefined, port: number): Promise<void> {
  const store: KeyAdmin = redisUrl ? await openRedisKeyStore(redisUrl) : new SqliteKeyStore(keysDb)
  try {
    if ((await store.count()) > 0) return
    const { key, record } = await store.issue({
      products: ['plots', 'parcels', 'encumbrance', 'jurisdiction'],
      countries: ['BOTSWANA', 'SOUTH_AFRICA'],
    })
    const base = `http://localhost:${port}/api/v1`
    console.log(
      [
        '',
        `Demo API key (id ${record.id}, every product, both countries, ${record.ratePerMinute} requests/minute).`,
        'It is shown this once and stored only as a hash:',
        '',
        `  ${key}`,
        '',
        'Try:',
        `  curl -H 'X-API-KEY: ${key}' '${base}/plots/search-given-coordinates?latitude=-24.6545&longitude=25.9086&radius=500&limit=5'`,
        `  curl -H 'X-API-KEY: ${key}' '${base}/plots/reverse?latitude=-19.9833&longitude=23.4167'`,
        `  curl -H 'X-API-KEY: ${key}' '${base}/cities?country=ALL'`,
        '',
        `API documentation: http://localhost:${port}/docs`,
        `Map: http://localhost:${port}/map (paste the key above when it asks)`,
        '',
      ].join('\n'),
    )
  } finally {
    store.close()
  }
}

async function main(): Promise<void> {
  const explicit = Boolean(process.env.DATASET_DIR)
  // serving the sample, npm start writes the pid `npm run reload` signals (data/server.pid)
  const config = loadConfig({
    ...process.env,
    DATASET_DIR: process.env.DATASET_DIR || SAMPLE_DATASET,
    PID_FILE: process.env.PID_FILE ?? (explicit ? '' : 'data/server.pid'),
  })
  if (cluster.isPrimary) {
    if (!explicit) {
      await prepareSample()
      await issueDemoKey(config.KEYS_DB, config.REDIS_URL, config.PORT)
      // the bulk jobs' directory beside the key store (a server otherwise makes it on the first upload)
      mkdirSync(config.JOBS_DIR, { recursive: true })
    }
  }
  await runServer(config)
}

runMain(
  {
    name: 'start',
    summary: 'The quick start: the sample dataset and a demo key when missing, then serve.',
    description: `With DATASET_DIR unset: generates the sample source export (data/sources/sample) and builds
the sample dataset (data/datasets/sample) when absent, issues a demo key when the key store
is empty (printed once), then serves. With DATASET_DIR set: serves that dataset, nothing
else. Otherwise configured by the environment (docs/operations.md "Configuration").`,
    examples: ['npm start', 'PORT=9090 npm start', 'DATASET_DIR=/data/current npm start'],
    notes: 'Exit codes: 1 the start failed, 2 a bad variable.',
  },
  () =>
    main().then(
      () => 0,
      (err: unknown) => {
        console.error(`npm start failed: ${(err as Error).message}`)
        // at once: a half-started server's handles would keep the process alive
        process.exit(err instanceof ConfigError ? 2 : 1)
      },
    ),
)
