/**
 * A jobs worker thread (bundled as dist/row-thread.js, started by thread-rows.ts): answers
 * batches of job rows through an app of its own over the job's build, opened here from the same
 * directory the server serves it from, so a row's answer is the online answer byte for byte
 * (app-rows.ts). It keeps to its share of a core (JOBS_CPU_SHARE): after every `sliceMs` of work
 * it rests long enough that work is that share of its time, and it answers one message at a
 * time, in the order they came.
 *
 * A build stays open until the pool says no job of this thread uses it any more, so a job keeps
 * its build across a live switch (the server keeps it pinned too, app-rows.ts `pinnedExecutors`).
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { parentPort, workerData } from 'node:worker_threads'
import pino from 'pino'
import { createApp } from '../app.js'
import type { KeyVerifier } from '../auth/types.js'
import { Pacer } from '../data/file-hash.js'
import { DatasetHandle, type DatasetSnapshot, openDataset } from '../data/open-dataset.js'
import { createLogger } from '../http/log.js'
import { MemoryRateLimiter } from '../rate-limit/memory.js'
import { buildServices, loadServices, type Services } from '../services.js'
import { askApp, type Fetcher } from './app-rows.js'
import type { FromRowThread, RowThreadData, ToRowThread } from './thread-messages.js'
import type { RowAnswer } from './runner.js'

const data = workerData as RowThreadData
const port = parentPort!
const log = data.logLevel === 'silent' ? pino({ level: 'silent' }) : createLogger(data.logLevel)
const pacer = new Pacer(data.sliceMs, data.cpuShare)
// idle until the first batch
pacer.pause()

/**
 * Rows are internal requests: they carry their job's key and are never authenticated or counted
 * again (src/http/internal-request.ts), so this app has no key store; a request that asked for a
 * key would be refused.
 */
const NO_KEYS: KeyVerifier = { verify: () => ({ ok: false, code: 'NOT_FOUND' }), close: () => {} }

type Batch = Extract<ToRowThread, { type: 'batch' }>

interface Served {
  app: Fetcher
  snapshot: DatasetSnapshot<Services>
}

/** The builds open here, by directory. */
const builds = new Map<string, Promise<Served>>()

async function open(dir: string, build: string): Promise<Served> {
  const dataset = openDataset(dir, data.open)
  try {
    const handle = new DatasetHandle(dataset, buildServices, await loadServices(dataset), build)
    const app = createApp({ log, keys: NO_KEYS, limiter: new MemoryRateLimiter(), data: handle })
    return { app, snapshot: handle.current() }
  } catch (err) {
    dataset.close()
    throw err
  }
}

function served(dir: string, build: string): Promise<Served> {
  let s = builds.get(dir)
  if (!s) {
    s = open(dir, build)
    // a build that failed to open is tried again by the next batch
    s.catch(() => builds.delete(dir))
    builds.set(dir, s)
  }
  return s
}

type Outcome = { type: 'answers'; answers: RowAnswer[] } | { type: 'failed'; message: string }

async function answer(m: Batch): Promise<Outcome> {
  try {
    const { app, snapshot } = await served(m.dir, m.build)
    const internal = { key: m.key, snapshot }
    const answers: RowAnswer[] = []
    for (const url of m.urls) {
      answers.push(await askApp(app, url, internal))
      const rest = pacer.rest()
      if (rest > 0) {
        await sleep(rest)
        pacer.resume()
      }
    }
    return { type: 'answers', answers }
  } catch (err) {
    return { type: 'failed', message: (err as Error).message }
  }
}

/** µs spent on batches so far, from taking each up to answering it, rests included */
let answeringMicros = 0

/** A batch's answer, with the thread's CPU time and time spent answering so far. */
async function timed(m: Batch): Promise<FromRowThread> {
  const start = performance.now()
  // the wait for this batch was rest, not work
  pacer.unpause()
  const outcome = await answer(m)
  pacer.pause()
  answeringMicros += Math.round((performance.now() - start) * 1000)
  const cpu = process.threadCpuUsage()
  return { ...outcome, id: m.id, cpuMicros: cpu.user + cpu.system, answeringMicros }
}

async function release(dir: string): Promise<void> {
  const s = builds.get(dir)
  builds.delete(dir)
  const opened = await s?.catch(() => null)
  opened?.snapshot.dataset.close()
}

// one message at a time, in order: a release never closes a build under a batch sent before it
let queue: Promise<void> = Promise.resolve()
port.on('message', (m: ToRowThread) => {
  if (m?.type === 'batch') queue = queue.then(async () => port.postMessage(await timed(m)))
  else if (m?.type === 'release') queue = queue.then(() => release(m.dir))
  // a message of no known kind is a bug of the pool: the thread fails, and with it its batches' jobs
  else throw new Error(`the jobs thread got a message it does not know: ${JSON.stringify(m)?.slice(0, 200)}`)
})
