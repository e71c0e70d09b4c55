/**
 * The generator driver: loads the real geography, runs the registered layers into the output
 * folder, and writes `export.json` and `SYNTH.json`.
 *
 * Same scale and seed give byte-identical files: every random stream derives from the seed and
 * a label, and nothing run-dependent (time, paths) is written.
 *
 * @module
 */
import { UsageError } from '../../src/cli/spec.js'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createContext, type ExportDomain, type LayerSummary } from './context.js'
import { loadGeography } from './geography.js'
import { LAYERS } from './layers/index.js'
import { SCALES, SCALE_NAMES, isScaleName, type ScaleName } from './scales.js'

/** Options of {@link runSynth}. */
export interface SynthOptions {
  /** `tiny`, `sample` or `national`. */
  scale: ScaleName | string
  /** Unsigned 32-bit integer. */
  seed: number
  /** Output folder (created). */
  out: string
  /** Layer names to run (default all), e.g. `['plots', 'erven']`. */
  only?: string[]
  /** Receives progress lines. Default: discard. */
  log?: (line: string) => void
  /** Project root holding `data/real`. Default {@link resolveProjectRoot}. */
  root?: string
}

/** One entry of `export.json`. */
export interface ExportEntry {
  export_id: string
  as_of: string
}

/** What {@link runSynth} did. */
export interface SynthSummary {
  scale: ScaleName
  seed: number
  /** Absolute output folder. */
  out: string
  layers: LayerSummary[]
  /** The `export.json` written. */
  exports: Partial<Record<ExportDomain, ExportEntry>>
  durationMs: number
}

/** Thrown for bad options; the CLI prints the message and exits with status 2. */
export class SynthUsageError extends UsageError {
  override name = 'SynthUsageError'
}

/** Fixed as-of dates per export family (the docs/source-formats.md example's), so output is reproducible. */
export const EXPORT_AS_OF: Readonly<Record<ExportDomain, string>> = {
  plots: '2026-11-01',
  cadastre: '2026-09-30',
  encumbrances: '2026-11-14',
  boundaries: '2026-10-01',
}

const DOMAIN_ORDER: readonly ExportDomain[] = ['plots', 'cadastre', 'encumbrances', 'boundaries']

/**
 * How each family's export ids start, after the publishers in the docs/source-formats.md example
 * (`csg-2026q3`, `csg-enc-2026w46`, `mdb-2026-10`): clients and tests tell a CSG cadastre
 * export by its `csg-` prefix.
 */
const EXPORT_ID_PREFIX: Readonly<Record<ExportDomain, string>> = {
  plots: 'plots',
  cadastre: 'csg',
  encumbrances: 'csg-enc',
  boundaries: 'mdb',
}

/** The export id of a synthetic export, e.g. `plots-synth-sample-s1`, `csg-synth-sample-s1`. */
export function exportIdFor(domain: ExportDomain, scale: ScaleName, seed: number): string {
  return `${EXPORT_ID_PREFIX[domain]}-synth-${scale}-s${seed}`
}

/**
 * The project root: `LANDDATA_ROOT` when set, else the working directory (commands run from
 * the project root).
 */
export function resolveProjectRoot(): string {
  return resolve(process.env.LANDDATA_ROOT || process.cwd())
}

function readJsonIfPresent(path: string): Record<string, unknown> | null {
  if (!existsSync(path)) return null
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/**
 * Generates a synthetic source export.
 *
 * With `only`, the other layers' files are left alone; `export.json` and `SYNTH.json` keep the
 * entries of a previous run into the same folder when it used the same scale and seed.
 *
 * @example
 * await runSynth({ scale: 'tiny', seed: 1, out: '/tmp/synth' })
 */
export async function runSynth(opts: SynthOptions): Promise<SynthSummary> {
  const started = Date.now()
  const log = opts.log ?? (() => {})
  if (!isScaleName(opts.scale))
    throw new SynthUsageError(`unknown scale "${opts.scale}" (expected ${SCALE_NAMES.join(', ')})`)
  const scale = SCALES[opts.scale]
  if (!Number.isInteger(opts.seed) || opts.seed < 0 || opts.seed > 0xffffffff) {
    throw new SynthUsageError(`seed must be an integer from 0 to 4294967295, got ${opts.seed}`)
  }
  if (!opts.out) throw new SynthUsageError('an output folder is required')
  const known = LAYERS.map((l) => l.name)
  const only = opts.only?.map((s) => s.trim()).filter(Boolean)
  if (only) {
    const unknown = only.filter((n) => !known.includes(n))
    if (unknown.length > 0)
      throw new SynthUsageError(`unknown layer(s) ${unknown.join(', ')} (expected ${known.join(', ')})`)
    if (only.length === 0) throw new SynthUsageError('--only names no layer')
  }
  const layers = only ? LAYERS.filter((l) => only.includes(l.name)) : LAYERS

  const outDir = resolve(opts.out)
  mkdirSync(outDir, { recursive: true })
  const root = opts.root ? resolve(opts.root) : resolveProjectRoot()
  const geography = loadGeography(join(root, 'data', 'real'))
  const ctx = createContext({ scale, seed: opts.seed, outDir, geography, log })
  log(`synth: scale ${scale.name}, seed ${opts.seed}, layers ${layers.map((l) => l.name).join(', ')} -> ${outDir}`)

  const summaries: LayerSummary[] = []
  for (const layer of layers) {
    const t0 = Date.now()
    const s = await layer.generate(ctx)
    summaries.push(s)
    const files = s.files
      .map((f) => `${f.path} ${f.rows.toLocaleString('en-US')} rows, ${(f.bytes / 1_048_576).toFixed(1)} MiB`)
      .join('; ')
    log(`  ${layer.name}: ${files} (${((Date.now() - t0) / 1000).toFixed(1)}s)`)
  }

  // keep a previous run's entries only when it was the same scale and seed
  const prevSynth = readJsonIfPresent(join(outDir, 'SYNTH.json'))
  const sameRun = prevSynth?.scale === scale.name && prevSynth?.seed === opts.seed
  const prevExports = sameRun ? (readJsonIfPresent(join(outDir, 'export.json')) ?? {}) : {}
  const prevLayers =
    sameRun && prevSynth?.layers && typeof prevSynth.layers === 'object'
      ? (prevSynth.layers as Record<string, unknown>)
      : {}

  const written = new Set(summaries.map((s) => s.domain))
  const exports: Partial<Record<ExportDomain, ExportEntry>> = {}
  for (const d of DOMAIN_ORDER) {
    if (written.has(d)) exports[d] = { export_id: exportIdFor(d, scale.name, opts.seed), as_of: EXPORT_AS_OF[d] }
    else if (prevExports[d]) exports[d] = prevExports[d] as ExportEntry
  }
  writeFileSync(join(outDir, 'export.json'), JSON.stringify(exports, null, 2) + '\n')

  const layerRecords: Record<string, unknown> = {}
  for (const l of LAYERS) {
    const s = summaries.find((x) => x.layer === l.name)
    if (s) layerRecords[l.name] = { domain: s.domain, files: s.files, counts: s.counts, details: s.details ?? null }
    else if (prevLayers[l.name]) layerRecords[l.name] = prevLayers[l.name]
  }
  const synthRecord = {
    generator: 'landdata-synth',
    format_version: 1,
    scale: scale.name,
    seed: opts.seed,
    preset: scale,
    layers: layerRecords,
  }
  writeFileSync(join(outDir, 'SYNTH.json'), JSON.stringify(synthRecord, null, 2) + '\n')

  const durationMs = Date.now() - started
  log(`synth: done in ${(durationMs / 1000).toFixed(1)}s`)
  return { scale: scale.name, seed: opts.seed, out: outDir, layers: summaries, exports, durationMs }
}
