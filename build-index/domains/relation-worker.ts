/**
 * Worker thread of the parcel relation pass (parcel-relations.ts): opens the scratch parcel
 * database read-only and the shared parcel Flatbush once, then answers each run of parcels with
 * its relation rows (their buffers transferred, not copied).
 */
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import { createRelationComputer, type RelationWorkerData } from './parcel-relations.js'

const data = workerData as RelationWorkerData
const db = new Database(data.sqlite, { readonly: true })
db.pragma('mmap_size = 2147483647')
const computer = createRelationComputer(db, Flatbush.from(data.index))
parentPort!.on('message', (m: { chunk: number; first: number; boxes: Float64Array }) => {
  const rows = computer.relationsOf(m.first, m.boxes)
  parentPort!.postMessage({ chunk: m.chunk, rows, count: m.boxes.length / 4 }, [
    rows.pairs.buffer,
    rows.beacons.buffer,
    rows.plans.buffer,
  ] as ArrayBuffer[])
})
