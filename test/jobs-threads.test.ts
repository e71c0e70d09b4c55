/**
 * Bulk job rows on worker threads (docs/operations.md "Bulk jobs", src/jobs/thread-rows.ts):
 * answered on a thread of the pool, not on the thread that runs the job; a thread that fails
 * fails its job and nothing else; a thread keeps to JOBS_CPU_SHARE of a core (its CPU time, not
 * the wall clock, so it holds on a loaded machine); a job keeps its build across a live switch.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { threadId, type Worker } from 'node:worker_threads'
import { describe, expect, inject, it } from 'vitest'
import { openDataset } from '../src/data/open-dataset.js'
import { RowThreads } from '../src/jobs/thread-rows.js'
import { POINTS } from './fixtures/parcel-fixtures.js'
import { json, makeTestApp } from './helpers.js'

type TestApp = ReturnType<typeof makeTestApp>

/** `n` rows of points in and around erf 1 (some in no parcel: 404 rows). */
function points(n: number): string {
  const rows = ['latitude,longitude']
  for (let i = 0; i < n; i++)
    rows.push(`${(POINTS.inErf1.latitude - (i % 50) * 1e-4).toFixed(6)},${POINTS.inErf1.longitude.toFixed(6)}`)
  return `${rows.join('\n')}\n`
}

async function submit(t: TestApp, key: string, n: number): Promise<string> {
  const res = await t.app.request('/api/v1/jobs?operation=getParcelAt', {
    method: 'POST',
    headers: { 'X-API-KEY': key, 'Content-Type': 'text/csv' },
    body: points(n),
  })
  expect(res.status, await res.clone().text()).toBe(202)
  return (await json(res)).id as string
}

/** Waits (bounded) until `ok` holds. */
async function until(ok: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(1)
  }
}

const linesOf = (text: string) =>
  text
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as {
          row: number
          status: number
          input: { latitude: string; longitude: string }
          result?: object
          error?: object
        },
    )

describe('rows on a worker thread', () => {
  it('answers a job on a thread of the pool, started by the job, the answers the online ones', async () => {
    const t = makeTestApp()
    const { key } = t.issue()
    expect(t.threads!.workers()).toEqual([])
    const id = await submit(t, key, 1000)
    await t.runner.wake()
    await t.runner.idle()
    expect(t.jobStore.get(id)).toMatchObject({ status: 'done', rowsDone: 1000 })
    // one thread, not this one, did the rows' work
    const [used] = t.threads!.usage()
    expect(t.threads!.usage()).toHaveLength(1)
    expect(used!.threadId).not.toBe(threadId)
    expect(used!.cpuMicros).toBeGreaterThan(0)
    const lines = linesOf(await (await t.get(`/api/v1/jobs/${id}/results`, key)).text())
    for (const i of [0, 1, 49, 500, 999]) {
      const { latitude, longitude } = lines[i]!.input
      const online = await t.get(`/api/v1/parcels/at?latitude=${latitude}&longitude=${longitude}`, key)
      expect(lines[i]!.status).toBe(online.status)
      const want = await json(online)
      expect(lines[i]!.result ?? { ...lines[i]!.error, requestId: 0 }).toEqual(
        online.status === 200 ? want : { ...want, requestId: 0 },
      )
    }
    await t.threads!.stop()
  })

  it('stops a thread no job has used for idleMs; the next job starts another', async () => {
    const threads = new RowThreads({ threads: 1, cpuShare: 1, idleMs: 50 })
    const t = makeTestApp({ jobs: { threads } })
    const { key } = t.issue()
    await submit(t, key, 10)
    await t.runner.wake()
    await t.runner.idle()
    const first = threads.usage()[0]!.threadId
    await until(() => threads.workers().length === 0, 'the idle thread to stop')
    const id = await submit(t, key, 10)
    await t.runner.wake()
    await t.runner.idle()
    expect(t.jobStore.get(id)).toMatchObject({ status: 'done', rowsDone: 10 })
    expect(threads.usage()[0]!.threadId).not.toBe(first)
    await threads.stop()
  })
})

describe('a thread that fails', () => {
  // slow rows (1 ms of work, 9 of rest), so what the test does to the thread lands mid-batch
  const slowThreads = () => new RowThreads({ threads: 1, cpuShare: 0.1, sliceMs: 1 })

  for (const [how, hurt, error] of [
    [
      'an uncaught error',
      (w: Worker) => w.postMessage({ type: 'no such message' }),
      /^the jobs thread answering the rows failed: the jobs thread got a message it does not know/,
    ],
    ['an exit', (w: Worker) => void w.terminate(), /^the jobs thread answering the rows stopped \(exit code \d+\)$/],
  ] as const)
    it(`(${how}) fails only its job, saying so; the server answers on, and the next job runs`, async () => {
      const threads = slowThreads()
      const t = makeTestApp({ jobs: { threads } })
      const { key } = t.issue()
      const id = await submit(t, key, 5000)
      void t.runner.wake()
      // the job's first batch is posted with the thread's start
      await until(() => threads.workers().length === 1, 'the thread to start')
      hurt(threads.workers()[0]!)
      await t.runner.idle()
      const job = t.jobStore.get(id)!
      expect(job.status).toBe('failed')
      expect(job.error).toMatch(error)
      expect(job.rowsDone).toBeLessThan(5000)
      // the status answer names it
      expect(await json(await t.get(`/api/v1/jobs/${id}`, key))).toMatchObject({ status: 'failed' })
      // online requests are untouched
      const online = await t.get(
        `/api/v1/parcels/at?latitude=${POINTS.inErf1.latitude}&longitude=${POINTS.inErf1.longitude}`,
        key,
      )
      expect(online.status).toBe(200)
      // the next job gets a new thread
      const next = await submit(t, key, 20)
      await t.runner.wake()
      await t.runner.idle()
      expect(t.jobStore.get(next)).toMatchObject({ status: 'done', rowsDone: 20 })
      await threads.stop()
    })
})

describe('a thread that cannot start', () => {
  it('fails the job naming the missing script and what builds it', async () => {
    const threads = new RowThreads({ threads: 1, cpuShare: 1, script: '/nowhere/row-thread.js' })
    const t = makeTestApp({ jobs: { threads } })
    const { key } = t.issue()
    const id = await submit(t, key, 5)
    await t.runner.wake()
    await t.runner.idle()
    expect(t.jobStore.get(id)).toMatchObject({
      status: 'failed',
      rowsDone: 0,
      error: "the jobs thread's script /nowhere/row-thread.js is missing: build it with `npm run build`",
    })
    expect(threads.workers()).toEqual([])
  })
})

describe('JOBS_CPU_SHARE', () => {
  it('keeps a thread to its share of a core: its CPU time over its time with work, a long job through', async () => {
    // the lowest share allowed: a thread that ignored it would take several times as much
    const share = 0.1
    const threads = new RowThreads({ threads: 1, cpuShare: share })
    const t = makeTestApp({ jobs: { threads } })
    const { key } = t.issue()
    const id = await submit(t, key, 3000)
    void t.runner.wake()
    // from the first batch answered (the thread's start and the build's opening left out) ...
    await until(() => (threads.usage()[0]?.cpuMicros ?? 0) > 0, 'the first batch')
    const [first] = threads.usage()
    const wall0 = performance.now()
    // ... to the last, seconds later
    await until(() => t.jobStore.get(id)?.status === 'done', 'the job', 180_000)
    const [last] = threads.usage()
    const wallMicros = (performance.now() - wall0) * 1000
    expect(t.jobStore.get(id)!.rowsDone).toBe(3000)
    const cpu = last!.cpuMicros - first!.cpuMicros
    const answering = last!.answeringMicros - first!.answeringMicros
    expect(answering).toBeGreaterThan(1_000_000)
    expect(cpu).toBeGreaterThan(0)
    // on a loaded machine the thread gets less CPU than it asks for, never more; the job as a
    // whole (the rows' results written between batches) takes less still
    expect(cpu / answering).toBeLessThan(share + 0.1)
    expect(cpu / wallMicros).toBeLessThan(share + 0.1)
    await threads.stop()
  }, 240_000)
})

describe('a job and a live switch', () => {
  it('keeps the build it started on to its last row, on its thread', async () => {
    const threads = new RowThreads({ threads: 1, cpuShare: 0.5 })
    const t = makeTestApp({ jobs: { threads } })
    const { key } = t.issue()
    const id = await submit(t, key, 4000)
    void t.runner.wake()
    await until(() => (t.jobStore.get(id)?.rowsDone ?? 0) > 0, 'the first checkpoint')
    // a build without parcels now serves: online, /parcels/at answers 503
    t.data.swap(openDataset(inject('plotsOnlyDatasetDir')))
    const online = await t.get(
      `/api/v1/parcels/at?latitude=${POINTS.inErf1.latitude}&longitude=${POINTS.inErf1.longitude}`,
      key,
    )
    expect(online.status).toBe(503)
    await t.runner.idle()
    const job = t.jobStore.get(id)!
    expect(job).toMatchObject({ status: 'done', rowsDone: 4000, build: 'dataset' })
    const lines = linesOf(await (await t.get(`/api/v1/jobs/${id}/results`, key)).text())
    expect(lines).toHaveLength(4000)
    expect(lines.filter((l) => l.status !== 200 && l.status !== 404)).toEqual([])
    await threads.stop()
  })
})
