/**
 * Where build passes find their bundled worker scripts, and how many threads they may use.
 *
 * @module
 */
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'

/**
 * The bundled worker `dist/<name>.js` next to the running bundle, or null (the test runner and
 * unbundled sources run every pass in the thread).
 */
export function workerScript(name: string): string | null {
  const here = fileURLToPath(import.meta.url)
  if (!here.endsWith('.js')) return null
  const script = fileURLToPath(new URL(`./${name}.js`, import.meta.url))
  return existsSync(script) ? script : null
}

/**
 * LANDDATA_BUILD_THREADS: worker threads per pass (1 keeps a pass in the thread). Unset, a pass
 * uses the cores (at most 4) once its input is large; set, it applies to any size.
 */
export function buildThreads(): { threads: number; forced: boolean } {
  const asked = Number.parseInt(process.env.LANDDATA_BUILD_THREADS ?? '', 10)
  const forced = Number.isSafeInteger(asked) && asked > 0
  return { threads: forced ? asked : Math.min(availableParallelism(), 4), forced }
}

/** One chunk's message to a worker, with the buffers to transfer rather than copy. */
export interface ChunkMessage {
  message: unknown
  transfer?: ArrayBuffer[]
}

/**
 * Worker threads of `script` (each started with `workerData`) that take chunks as they are
 * submitted, two in flight per worker, and hand every answer to `done` in submission order,
 * whatever order they finish in. A chunk's message is given its number as `chunk`, and the
 * worker answers with a message carrying that `chunk`.
 *
 * `submit` waits while every worker has two chunks in flight, or while four chunks per worker
 * are submitted and not yet handed over (answers held back behind a slow chunk), so a reader
 * producing chunks never runs further ahead than that. A worker's error (or a failing `done`)
 * rejects the pending and later calls.
 */
export class OrderedWorkerPool<A extends { chunk: number }> {
  private readonly workers: Worker[]
  private readonly inFlight: number[]
  private readonly pending = new Map<number, A>()
  private submitted = 0
  private finished = 0
  private failure: Error | null = null
  private closing = false
  /** waiters, woken when an answer arrives (a slot frees) or a worker fails */
  private waiters: (() => void)[] = []

  constructor(
    script: string,
    threads: number,
    workerData: unknown,
    private readonly done: (answer: A) => void,
  ) {
    this.workers = Array.from({ length: threads }, () => new Worker(script, { workerData }))
    this.inFlight = this.workers.map(() => 0)
    this.workers.forEach((w, k) => {
      w.on('message', (a: A) => {
        this.inFlight[k]--
        this.pending.set(a.chunk, a)
        try {
          while (this.pending.has(this.finished)) {
            const p = this.pending.get(this.finished)!
            this.pending.delete(this.finished)
            this.finished++
            this.done(p)
          }
        } catch (err) {
          this.fail(err as Error)
        }
        this.notify()
      })
      w.on('error', (err) => this.fail(err instanceof Error ? err : new Error(String(err))))
      w.on('exit', (code) => {
        if (code !== 0 && !this.closing) this.fail(new Error(`a worker thread of ${script} exited with code ${code}`))
      })
    })
  }

  /** Sends one chunk (`message` gets `chunk` set) once a worker has room for it. */
  async submit(m: ChunkMessage): Promise<void> {
    for (;;) {
      if (this.failure) throw this.failure
      const k = this.submitted - this.finished < 4 * this.workers.length ? this.inFlight.findIndex((n) => n < 2) : -1
      if (k >= 0) {
        this.inFlight[k]++
        this.workers[k].postMessage({ ...(m.message as object), chunk: this.submitted++ }, m.transfer)
        return
      }
      await this.sleep()
    }
  }

  /** Waits until every submitted chunk has been handed to `done`. */
  async drain(): Promise<void> {
    while (this.finished < this.submitted) {
      if (this.failure) throw this.failure
      await this.sleep()
    }
    if (this.failure) throw this.failure
  }

  /** Stops the workers (after `drain`, or to give up). */
  async close(): Promise<void> {
    this.closing = true
    await Promise.all(this.workers.map((w) => w.terminate()))
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  private notify(): void {
    for (const w of this.waiters.splice(0)) w()
  }

  private fail(err: Error): void {
    if (this.failure) return
    this.failure = err
    this.notify()
  }
}

/**
 * Runs `chunks` chunks on `threads` workers of `script` and hands every answer to `done` in chunk
 * order (see {@link OrderedWorkerPool}); chunk k's message is `messageOf(k)`.
 */
export async function runChunksOnWorkers<A extends { chunk: number }>(
  script: string,
  threads: number,
  workerData: unknown,
  chunks: number,
  messageOf: (k: number) => ChunkMessage,
  done: (answer: A) => void,
): Promise<void> {
  const pool = new OrderedWorkerPool<A>(script, threads, workerData, done)
  try {
    for (let k = 0; k < chunks; k++) await pool.submit(messageOf(k))
    await pool.drain()
  } finally {
    await pool.close()
  }
}
