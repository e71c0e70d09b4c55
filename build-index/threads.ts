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
 * Runs `chunks` chunks on `threads` workers of `script` (each started with `workerData`, two
 * chunks in flight each) and hands every answer to `done` in chunk order, whatever order they
 * finish in. A worker answers chunk k with a message carrying `chunk: k`.
 */
export async function runChunksOnWorkers<A extends { chunk: number }>(
  script: string,
  threads: number,
  workerData: unknown,
  chunks: number,
  messageOf: (k: number) => ChunkMessage,
  done: (answer: A) => void,
): Promise<void> {
  const workers = Array.from({ length: threads }, () => new Worker(script, { workerData }))
  const pending = new Map<number, A>()
  let nextToSend = 0
  let nextDone = 0
  try {
    await new Promise<void>((resolve, reject) => {
      const send = (w: Worker) => {
        if (nextToSend >= chunks) return
        const m = messageOf(nextToSend++)
        w.postMessage(m.message, m.transfer)
      }
      for (const w of workers) {
        w.on('message', (a: A) => {
          pending.set(a.chunk, a)
          while (pending.has(nextDone)) {
            const p = pending.get(nextDone)!
            pending.delete(nextDone)
            done(p)
            nextDone++
          }
          if (nextDone === chunks) resolve()
          else send(w)
        })
        w.on('error', reject)
        w.on('exit', (code) => {
          if (code !== 0 && nextDone < chunks) reject(new Error(`a worker thread of ${script} exited with code ${code}`))
        })
        send(w)
        send(w)
      }
      if (chunks === 0) resolve()
    })
  } finally {
    await Promise.all(workers.map((w) => w.terminate()))
  }
}
