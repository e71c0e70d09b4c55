/**
 * `build-index --reuse` after a weekly encumbrance export (one encumbrance file loses a row,
 * export.json a new export_id), against the full build of the same source; fails the run when
 * a changed domain is reused or an unchanged one rebuilt.
 *
 * @module
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { buildInChild, type ChildBuild } from '../../lib/dataset.js'
import { fmt, mib } from '../../lib/stats.js'
import type { SuiteContext } from '../../lib/suite.js'

export interface IncrementalData {
  /** the full build: measured in this run, or taken from the bench dataset's build record */
  fullS: number
  fullFrom: 'this run' | 'build record'
  fullPeakRssBytes: number
  incrementalS: number
  incrementalPeakRssBytes: number
  phases: Record<string, number>
  domains: Record<string, string>
  /** what the weekly export changed */
  changed: string
}

/** The largest line-delimited encumbrance file of the source, or null. */
function largestEncumbranceFile(source: string): string | null {
  let best: string | null = null
  let size = 0
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (p.includes('/encumbrances/') && p.endsWith('.geojsonl') && statSync(p).size > size) {
        best = p
        size = statSync(p).size
      }
    }
  }
  walk(source)
  return best
}

/** Rewrites a hard-linked file without touching the original: unlinked first, then written. */
function rewrite(path: string, text: string): void {
  unlinkSync(path)
  writeFileSync(path, text)
}

export async function runIncremental(ctx: SuiteContext, work: string): Promise<IncrementalData | string> {
  const source = join(dirname(ctx.dataset.dir), 'source')
  if (!ctx.dataset.build || !existsSync(join(source, 'export.json')))
    return 'incremental build: skipped (no cached source export beside the dataset)'
  // the weekly export: the same files (hard links) but one encumbrance file and export.json
  const week = join(work, 'week-source')
  execFileSync('cp', ['-al', source, week])
  const file = largestEncumbranceFile(week)
  if (!file) return 'incremental build: skipped (no line-delimited encumbrance file to change)'
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
  rewrite(file, `${lines.slice(0, -1).join('\n')}\n`)
  const exportFile = join(week, 'export.json')
  const exp = JSON.parse(readFileSync(exportFile, 'utf8')) as { encumbrances: { export_id: string } }
  exp.encumbrances.export_id += '-week'
  rewrite(exportFile, `${JSON.stringify(exp, null, 2)}\n`)
  const changed = `${file.slice(week.length + 1)} lost its last row (${lines.length} → ${lines.length - 1}), export.json's encumbrance export_id`

  // the previous build must have recorded its inputs digests, or nothing can be reused
  const manifest = JSON.parse(readFileSync(join(ctx.dataset.dir, 'manifest.json'), 'utf8')) as { inputs?: unknown }
  let previous = ctx.dataset.dir
  let full: Pick<ChildBuild, 'wallMs' | 'maxRssBytes'> = {
    wallMs: ctx.dataset.build.buildWallMs,
    maxRssBytes: ctx.dataset.build.buildPeakRssBytes,
  }
  let fullFrom: IncrementalData['fullFrom'] = 'build record'
  if (!manifest.inputs) {
    ctx.log('operations: the bench dataset records no inputs digests; a full build first …')
    previous = join(work, 'full')
    full = await buildInChild(source, previous)
    fullFrom = 'this run'
  }
  ctx.log('operations: incremental build of the weekly export …')
  const inc = await buildInChild(week, join(work, 'incremental'), previous)
  if (inc.domains.encumbrances === 'reused') ctx.fail('operations: the changed encumbrances were reused')
  for (const d of ['plots', 'parcels', 'jurisdiction'])
    if (inc.domains[d] && inc.domains[d] !== 'reused') ctx.fail(`operations: unchanged ${d} was ${inc.domains[d]}`)
  return {
    fullS: full.wallMs / 1000,
    fullFrom,
    fullPeakRssBytes: full.maxRssBytes,
    incrementalS: inc.wallMs / 1000,
    incrementalPeakRssBytes: inc.maxRssBytes,
    phases: inc.phases,
    domains: inc.domains,
    changed,
  }
}

export function renderIncremental(d: IncrementalData): string[] {
  const domains = Object.entries(d.domains)
    .map(([k, v]) => `${k} ${v}`)
    .join('; ')
  return [
    '### Incremental build (`build-index --reuse`)',
    '',
    `The weekly encumbrance export: ${d.changed}. Full build (${d.fullFrom}): **${fmt(d.fullS)} s**, peak RSS ` +
      `${mib(d.fullPeakRssBytes)}. Incremental build reusing it: **${fmt(d.incrementalS)} s**, peak RSS ` +
      `${mib(d.incrementalPeakRssBytes)} (${fmt((d.incrementalS / d.fullS) * 100, 0)} % of the full build). ` +
      `Domains: ${domains}.`,
    '',
    `Phases of the incremental build (s): ${Object.entries(d.phases)
      .map(([k, v]) => `${k} ${fmt(v)}`)
      .join(', ')}.`,
  ]
}
