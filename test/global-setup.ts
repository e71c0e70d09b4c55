/**
 * Builds, once per test run, what the end-to-end tests serve: the bundled CLIs in dist/, and a
 * dataset made by build-index itself from the tiny synthetic export plus the hand-made rows of
 * test/fixtures (so writer/reader drift shows up in tests).
 */
import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { buildDataset } from '../build-index/build.js'
import { runSynth } from '../build-index/synth/synth.js'
import { ervenCsvRows, plotCsvRows } from './fixtures/plot-fixtures.js'

declare module 'vitest' {
  export interface ProvidedContext {
    datasetDir: string
    sourceDir: string
    workDir: string
  }
}

function appendRows(file: string, rows: string): void {
  const text = readFileSync(file, 'utf8')
  appendFileSync(file, (text.endsWith('\n') ? '' : '\n') + rows)
}

export default async function setup(project: TestProject): Promise<() => void> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' })
  const work = mkdtempSync(join(tmpdir(), 'landdata-test-'))
  const source = join(work, 'source')
  await runSynth({ scale: 'tiny', seed: 42, out: source, log: () => {} })
  appendRows(join(source, 'botswana', 'plots.csv'), plotCsvRows())
  appendRows(join(source, 'south_africa', 'erven.csv'), ervenCsvRows())
  const dataset = join(work, 'dataset')
  await buildDataset({ source, out: dataset, log: () => {} })
  if (!existsSync(join(dataset, 'manifest.json'))) throw new Error('test dataset was not built')
  project.provide('datasetDir', dataset)
  project.provide('sourceDir', source)
  project.provide('workDir', work)
  return () => rmSync(work, { recursive: true, force: true })
}
