/**
 * Worker thread of the encumbrance overlap pass (encumbrance-overlaps.ts): opens the built parcel
 * files once, then answers each chunk of encumbrances with their `parcel_overlap` rows.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads'
import { fallbacks } from '../../src/geo/clip.js'
import {
  createOverlapComputer,
  type EncumbranceInput,
  type OverlapInsert,
  type ParcelPaths,
} from './encumbrance-overlaps.js'

const computer = createOverlapComputer(workerData as ParcelPaths)
parentPort!.on('message', (m: { chunk: number; recs: EncumbranceInput[] }) => {
  const rows: OverlapInsert[] = []
  for (const r of m.recs) for (const row of computer.rowsOf(r)) rows.push(row)
  // fallbacks: this thread's running count of clips polygon-clipping handed to polyclip-ts
  parentPort!.postMessage({ chunk: m.chunk, rows, count: m.recs.length, fallbacks: fallbacks(), thread: threadId })
})
