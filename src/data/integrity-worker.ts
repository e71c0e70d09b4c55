/**
 * The background integrity check's worker thread (bundled as dist/integrity-worker.js): hashes
 * the files it is given one chunk at a time, resting as long as it worked (about half of one
 * core, so the server's requests are not starved), and posts the first mismatch or, when every
 * file matches, how much it read. See src/data/integrity.ts.
 *
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads'
import { checkFileDigestSync, HASH_CHUNK, Pacer } from './file-hash.js'
import type { ManifestFile } from './manifest.js'

/** What the thread is started with. */
export interface IntegrityJob {
  dir: string
  files: ManifestFile[]
  /** rest as long as it works (background), or hash flat out */
  paced: boolean
}

/** What it posts, once: the first file that does not match, or the totals. */
export type IntegrityAnswer = { failed: string; reason: string } | { done: true; files: number; bytes: number }

const job = workerData as IntegrityJob
const buf = Buffer.allocUnsafe(HASH_CHUNK)
const pacer = new Pacer()
const nap = new Int32Array(new SharedArrayBuffer(4))
const pace = job.paced
  ? () => {
      const rest = pacer.rest()
      if (rest > 0) {
        Atomics.wait(nap, 0, 0, rest)
        pacer.resume()
      }
    }
  : undefined

function run(): IntegrityAnswer {
  let bytes = 0
  for (const f of job.files) {
    const reason = checkFileDigestSync(job.dir, f, buf, pace)
    if (reason) return { failed: f.path, reason }
    bytes += f.size
  }
  return { done: true, files: job.files.length, bytes }
}

parentPort!.postMessage(run())
