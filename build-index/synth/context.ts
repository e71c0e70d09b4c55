/**
 * The contract between the generator driver (`synth.ts`) and its layers.
 *
 * A layer is one module in `layers/` exporting a {@link LayerGenerator}, listed once in
 * `layers/index.ts`. It gets a {@link SynthContext}, writes its files under `ctx.outDir` in the
 * docs/source-formats.md layout, and returns a {@link LayerSummary}.
 *
 * @module
 */
import { join } from 'node:path'
import { CsvWriter, LineWriter } from './csv.js'
import type { Geography } from './geography.js'
import { Random } from './random.js'
import type { ScalePreset } from './scales.js'

/** The export families of `export.json` (docs/source-formats.md). */
export type ExportDomain = 'plots' | 'cadastre' | 'encumbrances' | 'boundaries'

/** One written file. */
export interface WrittenFile {
  /** Path relative to the output folder, with `/` separators. */
  path: string
  rows: number
  bytes: number
}

/** What a layer reports back; goes into SYNTH.json and the run summary. */
export interface LayerSummary {
  /** The layer's {@link LayerGenerator.name}. */
  layer: string
  domain: ExportDomain
  files: WrittenFile[]
  /** Headline numbers (rows, towns, townships …). */
  counts: Record<string, number>
  /** Optional structured detail (small: written to SYNTH.json). */
  details?: unknown
}

/** Reports progress on one long loop. */
export type ProgressFn = (done: number) => void

/** What every layer gets. */
export interface SynthContext {
  scale: ScalePreset
  /** The `--seed` value. */
  seed: number
  /** Output folder (the source export root). */
  outDir: string
  /** Real geography from `data/real`. */
  geography: Geography
  /** A random stream for `label`, independent of every other label and of layer order. */
  random(label: string): Random
  /** Writes a log line (the CLI prints it; tests usually drop it). */
  log(line: string): void
  /**
   * A progress reporter for `total` steps that logs about every 5 %, only for loops large
   * enough to be worth watching (≥ 100 000 steps).
   */
  progress(label: string, total: number): ProgressFn
  /** Opens a buffered CSV writer at `relPath` under the output folder, writing `header`. */
  openCsv(relPath: string, header: readonly string[]): CsvWriter
  /** Opens a buffered line writer at `relPath` under the output folder (e.g. GeoJSONSeq). */
  openLines(relPath: string): LineWriter
}

/** A generator for one layer of the source export. */
export interface LayerGenerator {
  /** Short name, used by `--only` (e.g. `plots`, `erven`). */
  name: string
  /** The export.json family its files belong to. */
  domain: ExportDomain
  /** One line for `--help`. */
  description: string
  generate(ctx: SynthContext): Promise<LayerSummary>
}

const PROGRESS_MIN_TOTAL = 100_000

/** Builds a {@link SynthContext}. */
export function createContext(opts: {
  scale: ScalePreset
  seed: number
  outDir: string
  geography: Geography
  log: (line: string) => void
}): SynthContext {
  const { scale, seed, outDir, geography, log } = opts
  return {
    scale,
    seed,
    outDir,
    geography,
    log,
    random: (label) => new Random(seed, label),
    progress(label, total) {
      if (total < PROGRESS_MIN_TOTAL) return () => {}
      const started = Date.now()
      let nextPct = 5
      return (done) => {
        const pct = (done / total) * 100
        if (pct < nextPct) return
        while (nextPct <= pct) nextPct += 5
        const secs = ((Date.now() - started) / 1000).toFixed(1)
        log(
          `  ${label}: ${Math.min(100, Math.floor(pct))}% (${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')}, ${secs}s)`,
        )
      }
    },
    openCsv: (relPath, header) => new CsvWriter(join(outDir, relPath), header),
    openLines: (relPath) => new LineWriter(join(outDir, relPath)),
  }
}
