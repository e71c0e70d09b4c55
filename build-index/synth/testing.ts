/**
 * Helpers for the generator's tests: run a scale into a temp folder once per process, read the
 * CSVs back, and measure distances independently of the code under test.
 *
 * @module
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll } from 'vitest'
import { runSynth, type SynthSummary } from './synth.js'

const runs = new Map<string, Promise<SynthSummary>>()
const tempDirs: string[] = []
// registered while the importing test file is collected: its folders go when the file ends
afterAll(() => {
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A fresh folder under the OS temp dir, removed after the test file. */
export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), `${prefix}-`))
  tempDirs.push(d)
  return d
}

/** Runs the generator into a fresh temp folder, once per (scale, seed, only) per test process. */
export function synthOnce(scale: string, seed: number, only?: string[]): Promise<SynthSummary> {
  const key = `${scale}/${seed}/${only?.join(',') ?? ''}`
  let run = runs.get(key)
  if (!run) {
    const out = tempDir(`synth-${scale}-${seed}`)
    run = runSynth({ scale, seed, out, only })
    runs.set(key, run)
  }
  return run
}

/** Reads a generated CSV (no quoted fields expected) into header + rows of strings. */
export function readCsvFile(path: string): { header: string[]; rows: string[][] } {
  const lines = readFileSync(path, 'utf8').split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  const header = lines.shift()!.split(',')
  return { header, rows: lines.map((l) => l.split(',')) }
}

/** SHA-256 of every file under `dir`, keyed by relative path. */
export function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out[relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex')
    }
  }
  walk(dir)
  return out
}

/** Haversine distance in metres (mean Earth radius), written separately from geo-math on purpose. */
export function distanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180
  const a =
    Math.sin(((lat2 - lat1) * r) / 2) ** 2 +
    Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2
  return 2 * 6_371_000 * Math.asin(Math.sqrt(a))
}
