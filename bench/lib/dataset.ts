/**
 * The dataset a benchmark runs over: `bench/.work/<scale>/` holds the generated source export
 * (`source/`) and the built dataset (`dataset/`). Both are made when absent and reused
 * otherwise. The build runs in a child process so its wall time and peak RSS are its own
 * (issue 7 item 5); they are kept in `build.json` beside the dataset and reported on reuse.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildDataset } from '../../build-index/build.js'
import { LAYERS } from '../../build-index/synth/layers/index.js'
import { SCALES, isScaleName } from '../../build-index/synth/scales.js'
import { runSynth } from '../../build-index/synth/synth.js'
import { readManifest } from '../../src/data/open-dataset.js'

/** The generator seed of every bench dataset (the probe sets take `--seed`). */
export const DATASET_SEED = 1

/** How the dataset was built, measured when it was. */
export interface BuildRecord {
  builtAt: string
  synthMs: number
  buildWallMs: number
  buildPeakRssBytes: number
  sourceBytes: number
  /** seconds per build phase, from build-index's progress lines (absent in older records) */
  phases?: Record<string, number>
}

export interface DatasetInfo {
  dir: string
  scale: string
  /** rows per plot layer, from the manifest */
  counts: { botswana: number; south_africa: number }
  /** bytes of the built dataset directory */
  sizeBytes: number
  /** null for a dataset given with --dataset */
  build: BuildRecord | null
  /** true when an existing dataset was reused */
  reused: boolean
  /**
   * Set when the reused dataset was made by other code than this checkout's (see
   * codeFingerprints): what changed. Reported next to every figure measured on it.
   */
  staleCode?: string
}

/**
 * Content fingerprints of the code that makes a bench dataset, kept in `code.json` beside it, so
 * a dataset made by older code is not reused silently (the preset stamp only sees the generator's
 * presets and layer names). `generator`: the generator and the real geography it reads; `builder`:
 * build-index (which the generator also borrows its CSV writer and row transforms from), the
 * dataset formats in src/data and the geometry in src/geo. Test files are left out.
 */
export interface CodeFingerprints {
  generator: string | null
  builder: string | null
}

const GENERATOR_CODE = ['build-index/synth', 'data/real']
const BUILDER_CODE = ['build-index', 'src/data', 'src/geo']

/**
 * SHA-256 over the paths and contents of the files under `roots` (null when a root is missing: no checkout to compare).
 */
export function fingerprintTree(roots: string[], skip: string[] = [], base = process.cwd()): string | null {
  const files: string[] = []
  for (const root of roots) {
    const dir = resolve(base, root)
    if (!existsSync(dir)) return null
    for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!e.isFile() || e.name.endsWith('.test.ts')) continue
      const rel = join(e.parentPath, e.name)
        .slice(base.length + 1)
        .split('\\')
        .join('/')
      if (skip.some((s) => rel.startsWith(s + '/'))) continue
      files.push(rel)
    }
  }
  files.sort()
  const h = createHash('sha256')
  for (const f of files)
    h.update(f)
      .update('\0')
      .update(readFileSync(resolve(base, f)))
      .update('\0')
  return h.digest('hex').slice(0, 16)
}

/** This checkout's fingerprints. */
export function codeFingerprints(base = process.cwd()): CodeFingerprints {
  return {
    generator: fingerprintTree(GENERATOR_CODE, [], base),
    builder: fingerprintTree(BUILDER_CODE, GENERATOR_CODE, base),
  }
}

/**
 * What differs between the code that made a cached dataset and this checkout's, or null when
 * nothing does (or a side is unknown: a cache made before fingerprints were kept, or no checkout).
 */
export function staleCodeOf(made: Partial<CodeFingerprints> | null, now: CodeFingerprints): string | null {
  if (!made) return null
  const changed: string[] = []
  if (made.generator && now.generator && made.generator !== now.generator)
    changed.push('the generator (build-index/synth, data/real) changed since the source export was made')
  if (made.builder && now.builder && made.builder !== now.builder)
    changed.push('build-index, src/data or src/geo changed since the dataset was built')
  return changed.length ? changed.join('; ') : null
}

/** Total size of the files under a directory. */
export function dirSize(dir: string): number {
  let total = 0
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size
  }
  return total
}

export function describeDataset(dir: string, scale: string, build: BuildRecord | null, reused: boolean): DatasetInfo {
  const m = readManifest(dir)
  const layers = m.domains.plots?.layers ?? {}
  return {
    dir,
    scale,
    counts: { botswana: layers.botswana?.rows ?? 0, south_africa: layers.south_africa?.rows ?? 0 },
    sizeBytes: dirSize(dir),
    build,
    reused,
  }
}

/** Path of the bundled bench script (dist/bench.js), for re-invoking itself in a child. */
export function benchScript(): string {
  return fileURLToPath(import.meta.url)
}

/**
 * What the generator would make at a scale: its preset and layers. A cached source export made
 * by another generator (a layer added since, a preset changed) is regenerated, not reused.
 */
function generatorStamp(scale: string): string {
  return JSON.stringify({
    preset: isScaleName(scale) ? SCALES[scale] : scale,
    layers: LAYERS.map((l) => l.name),
    seed: DATASET_SEED,
  })
}

/**
 * Generates and builds `bench/.work/<scale>/` when absent (or made by another generator);
 * otherwise reuses it. `rebuild`: build the dataset again from the cached source export.
 */
export async function ensureDataset(
  scale: string,
  log: (line: string) => void,
  opts: { rebuild?: boolean } = {},
): Promise<DatasetInfo> {
  const work = resolve('bench', '.work', scale)
  const source = join(work, 'source')
  const dataset = join(work, 'dataset')
  const recordFile = join(work, 'build.json')
  const stampFile = join(work, 'generator.json')
  const codeFile = join(work, 'code.json')
  const stamp = generatorStamp(scale)
  const code = codeFingerprints()
  const made = (): Partial<CodeFingerprints> | null =>
    existsSync(codeFile) ? (JSON.parse(readFileSync(codeFile, 'utf8')) as Partial<CodeFingerprints>) : null
  if (existsSync(work) && (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp)) {
    log(`dataset: ${work} was made by another generator (layers or preset differ); regenerating`)
    rmSync(work, { recursive: true, force: true })
  }
  if (opts.rebuild) rmSync(dataset, { recursive: true, force: true })
  if (existsSync(join(dataset, 'manifest.json'))) {
    const build = existsSync(recordFile) ? (JSON.parse(readFileSync(recordFile, 'utf8')) as BuildRecord) : null
    log(`dataset: reusing ${dataset}`)
    const recorded = made()
    const stale = staleCodeOf(recorded, code)
    if (!recorded)
      log(
        `dataset: ${codeFile} is absent (made before code fingerprints were kept): cannot tell whether newer code ` +
          `would build it differently; --rebuild or delete ${work} to be sure`,
      )
    if (stale)
      log(
        `dataset: WARNING: reusing a dataset made by other code: ${stale}. Its figures are marked in RESULTS.md; ` +
          `--rebuild (or delete ${work} to regenerate the ` +
          `source too) to measure this code's output`,
      )
    return { ...describeDataset(dataset, scale, build, true), ...(stale ? { staleCode: stale } : {}) }
  }
  const previous = existsSync(recordFile) ? (JSON.parse(readFileSync(recordFile, 'utf8')) as BuildRecord) : null
  let synthMs = previous?.synthMs ?? 0
  if (!existsSync(join(source, 'export.json'))) {
    log(`dataset: generating the ${scale} source export in ${source} (seed ${DATASET_SEED}) …`)
    const t0 = performance.now()
    await runSynth({ scale, seed: DATASET_SEED, out: source, log })
    synthMs = performance.now() - t0
    writeFileSync(stampFile, stamp)
    writeFileSync(codeFile, JSON.stringify({ generator: code.generator }) + '\n')
  }
  log(`dataset: building ${dataset} in a child process …`)
  const r = await buildInChild(source, dataset)
  const build: BuildRecord = {
    builtAt: new Date().toISOString(),
    synthMs,
    buildWallMs: r.wallMs,
    buildPeakRssBytes: r.maxRssBytes,
    sourceBytes: dirSize(source),
    phases: r.phases,
  }
  writeFileSync(recordFile, JSON.stringify(build, null, 2) + '\n')
  // the source export's generator stays as recorded when the dataset is only rebuilt from it
  writeFileSync(codeFile, JSON.stringify({ generator: made()?.generator ?? null, builder: code.builder }) + '\n')
  log(`dataset: built in ${(r.wallMs / 1000).toFixed(1)} s, peak RSS ${(r.maxRssBytes / 2 ** 20).toFixed(0)} MiB`)
  return describeDataset(dataset, scale, build, false)
}

/**
 * What `build-index --reuse` did to a domain, from its log line (`parcels: reused from DIR (…)`,
 * `encumbrances: rebuilt: <why>`), or null for another line. Exported for tests.
 */
export function reuseOutcome(line: string): { domain: string; outcome: string } | null {
  const m = /^([a-z_]+): (reused from .*|rebuilt: .*)$/.exec(line.trim())
  return m ? { domain: m[1], outcome: m[2].startsWith('reused') ? 'reused' : m[2] } : null
}

/** What a build in a child process took, and what `--reuse` did per domain. */
export interface ChildBuild {
  wallMs: number
  maxRssBytes: number
  phases: Record<string, number>
  /** per domain, `reused` or `rebuilt: <why>` (only with `reuse`) */
  domains: Record<string, string>
}

/**
 * Builds `source` into `out` in a child process (its peak RSS is its own), optionally reusing
 * the unchanged domains of the build `reuse` (`build-index --reuse`).
 */
export function buildInChild(source: string, out: string, reuse?: string): Promise<ChildBuild> {
  return new Promise((done, fail) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, [benchScript(), '__build', source, out, ...(reuse ? [reuse] : [])], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()))
    // progress goes on to the bench's stderr as before; finished steps are summed by phase
    const phases = new PhaseTimes()
    const domains: Record<string, string> = {}
    const read = (line: string) => {
      phases.add(line)
      const r = reuseOutcome(line)
      if (r) domains[r.domain] = r.outcome
    }
    let partial = ''
    child.stderr.on('data', (b: Buffer) => {
      process.stderr.write(b)
      const lines = (partial + b.toString()).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) read(line)
    })
    child.on('error', fail)
    child.on('exit', (code) => {
      const wallMs = performance.now() - t0
      if (code !== 0) return fail(new Error(`dataset build exited with status ${code}`))
      read(partial)
      const last = stdout.trim().split('\n').pop() ?? '{}'
      const { maxRssBytes } = JSON.parse(last) as { maxRssBytes: number }
      done({ wallMs, maxRssBytes, phases: phases.totals, domains })
    })
  })
}

/**
 * Seconds per build phase from build-index's progress lines: a finished step prints
 * `<domain>/<…>/<step>: <what> in <s> s`; steps per province or layer (`parcels/GP/erf`) add up
 * to `<domain> layers`, the others (`parcels/relations`, `encumbrances/overlaps`) are phases of
 * their own. Exported for tests.
 */
export class PhaseTimes {
  readonly totals: Record<string, number> = {}
  add(line: string): void {
    const m = /^([a-z_]+)\/([^:\s]+): .* in ([0-9.]+) s$/.exec(line.trim())
    if (!m) return
    const [, domain, rest, secs] = m
    const name = rest.includes('/') ? `${domain} layers` : `${domain}/${rest}`
    this.totals[name] = Math.round(((this.totals[name] ?? 0) + Number(secs)) * 10) / 10
  }
}

/** The child side of {@link buildInChild}: builds, then prints its own peak RSS as JSON. */
export async function runChildBuild(source: string, out: string, reuse?: string): Promise<void> {
  await buildDataset({ source, out, force: true, ...(reuse ? { reuse } : {}) })
  // resourceUsage().maxRSS is in kilobytes
  process.stdout.write(JSON.stringify({ maxRssBytes: process.resourceUsage().maxRSS * 1024 }) + '\n')
}
