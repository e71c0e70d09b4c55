/**
 * Builds, once per test run, what the end-to-end tests serve: the bundled CLIs in dist/, and a
 * dataset made by build-index itself from the tiny synthetic export plus the hand-made rows of
 * test/fixtures (so writer/reader drift shows up in tests).
 */
import { execFileSync } from 'node:child_process'
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { buildDataset } from '../build-index/build.js'
import { runSynth } from '../build-index/synth/synth.js'
import { encumbranceFixtureLines } from './fixtures/encumbrance-fixtures.js'
import { jurisdictionParcelLines } from './fixtures/jurisdiction-fixtures.js'
import { parcelFixtureLines } from './fixtures/parcel-fixtures.js'
import { ervenCsvRows, plotCsvRows } from './fixtures/plot-fixtures.js'

declare module 'vitest' {
  export interface ProvidedContext {
    datasetDir: string
    sourceDir: string
    workDir: string
    plotsOnlyDatasetDir: string
  }
}

function appendRows(file: string, rows: string): void {
  if (!existsSync(file)) {
    writeFileSync(file, rows)
    return
  }
  const text = readFileSync(file, 'utf8')
  appendFileSync(file, (text === '' || text.endsWith('\n') ? '' : '\n') + rows)
}

/**
 * Adds the hand-made parcels to the Western Cape cadastre folder, naming a cadastre export if the generator did not.
 */
function addParcelFixtures(source: string): void {
  const dir = join(source, 'south_africa', 'cadastre', 'WC')
  mkdirSync(dir, { recursive: true })
  for (const [layer, lines] of parcelFixtureLines()) appendRows(join(dir, `${layer}.geojsonl`), lines)
  for (const [layer, lines] of jurisdictionParcelLines()) appendRows(join(dir, `${layer}.geojsonl`), lines)
  const exportFile = join(source, 'export.json')
  const exports = JSON.parse(readFileSync(exportFile, 'utf8'))
  if (!exports.cadastre) {
    exports.cadastre = { export_id: 'csg-fixture', as_of: '2026-09-30' }
    writeFileSync(exportFile, JSON.stringify(exports, null, 2) + '\n')
  }
}

/**
 * Adds the hand-made encumbrances to the Western Cape encumbrance folder, naming an encumbrance export if the generator
 * did not.
 */
function addEncumbranceFixtures(source: string): void {
  const dir = join(source, 'south_africa', 'encumbrances', 'WC')
  mkdirSync(dir, { recursive: true })
  for (const [cls, lines] of encumbranceFixtureLines()) appendRows(join(dir, `${cls}.geojsonl`), lines)
  const exportFile = join(source, 'export.json')
  const exports = JSON.parse(readFileSync(exportFile, 'utf8'))
  if (!exports.encumbrances) {
    exports.encumbrances = { export_id: 'csg-enc-fixture', as_of: '2026-11-14' }
    writeFileSync(exportFile, JSON.stringify(exports, null, 2) + '\n')
  }
}

interface Built {
  work: string
  source: string
  dataset: string
  plotsOnly: string
}

/** The shared build and how many projects still use it (vitest.config.ts runs two projects). */
const shared = globalThis as typeof globalThis & { landdataTestBuild?: { built: Promise<Built>; users: number } }

async function build(): Promise<Built> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' })
  const work = mkdtempSync(join(tmpdir(), 'landdata-test-'))
  const source = join(work, 'source')
  await runSynth({ scale: 'tiny', seed: 42, out: source, log: () => {} })
  appendRows(join(source, 'botswana', 'plots.csv'), plotCsvRows())
  appendRows(join(source, 'south_africa', 'erven.csv'), ervenCsvRows())
  addParcelFixtures(source)
  addEncumbranceFixtures(source)
  const dataset = join(work, 'dataset')
  await buildDataset({ source, out: dataset, log: () => {} })
  if (!existsSync(join(dataset, 'manifest.json'))) throw new Error('test dataset was not built')
  // the same plot layers without the cadastre, for the missing-domain answers
  const plotsOnlySource = join(work, 'source-plots-only')
  mkdirSync(join(plotsOnlySource, 'botswana'), { recursive: true })
  mkdirSync(join(plotsOnlySource, 'south_africa'), { recursive: true })
  cpSync(join(source, 'botswana', 'plots.csv'), join(plotsOnlySource, 'botswana', 'plots.csv'))
  cpSync(join(source, 'south_africa', 'erven.csv'), join(plotsOnlySource, 'south_africa', 'erven.csv'))
  const exports = JSON.parse(readFileSync(join(source, 'export.json'), 'utf8'))
  writeFileSync(join(plotsOnlySource, 'export.json'), JSON.stringify({ plots: exports.plots }))
  const plotsOnly = join(work, 'dataset-plots-only')
  await buildDataset({ source: plotsOnlySource, out: plotsOnly, log: () => {} })
  return { work, source, dataset, plotsOnly }
}

/**
 * Each project of the run calls this; the first builds, the others wait for that build, and the
 * last to finish removes it.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  shared.landdataTestBuild ??= { built: build(), users: 0 }
  const use = shared.landdataTestBuild
  use.users++
  const { work, source, dataset, plotsOnly } = await use.built
  project.provide('plotsOnlyDatasetDir', plotsOnly)
  project.provide('datasetDir', dataset)
  project.provide('sourceDir', source)
  project.provide('workDir', work)
  return () => {
    if (--use.users === 0) rmSync(work, { recursive: true, force: true })
  }
}
