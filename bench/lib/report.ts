/**
 * results.json (every suite's latest record) and RESULTS.md plus charts rendered from it.
 * A partial run (`--only`) replaces only its own suites' records, so the other sections keep
 * their numbers. Also the pieces of section bodies that several suites' `render` share.
 *
 * @module
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { machineLine } from './machine.js'
import type { OpRow } from './measure.js'
import { fmt, mib, type Summary } from './stats.js'
import type { Suite, SuiteRecord } from './suite.js'

export interface ResultsFile {
  format: 1
  suites: Record<string, SuiteRecord>
}

export function loadResults(file: string): ResultsFile {
  if (!existsSync(file)) return { format: 1, suites: {} }
  const j = JSON.parse(readFileSync(file, 'utf8')) as ResultsFile
  return j && j.format === 1 && j.suites ? j : { format: 1, suites: {} }
}

function sectionHeader(r: SuiteRecord): string {
  const c = r.dataset.counts
  return (
    `_Measured ${r.ranAt.replace('T', ' ').slice(0, 16)} UTC in ${fmt(r.durationS)} s on ${machineLine(r.machine, r.cpuCheckEndMs)}. ` +
    `Dataset **${r.dataset.scale}**: ${c.botswana.toLocaleString('en-US')} Botswana plots + ${c.south_africa.toLocaleString('en-US')} South African erven ` +
    `(${mib(r.dataset.sizeBytes)} on disk); ` +
    `probe seed ${r.seed}${r.quick ? '; **quick mode**' : ''}._` +
    (r.dataset.staleCode
      ? ` **Dataset made by older code than this run's:** ${r.dataset.staleCode} (\`--rebuild\` to refresh).`
      : '')
  )
}

export function renderMarkdown(
  results: ResultsFile,
  suites: Suite<any>[],
  pending: { area: string; what: string }[],
): string {
  const out = [
    '# Benchmark results',
    '',
    'Rewritten by `npm run bench` from `bench/results.json`; do not edit by hand. Every number below comes from a ' +
      'run of',
    '`npm run bench -- --scale tiny|sample|national [--only NAME] [--quick] [--seed N]`, with the machine, Node ' +
      'version, date and dataset next to',
    'each section. The machine is a shared 2-core VM: compare figures within one section (same run, interleaved), ' +
      'not across sections or days.',
    'Each section also gives its CPU check: one fixed single-thread workload (128 Ki seeded numbers generated, ' +
      'sorted and walked; median of 5 runs)',
    "timed when the suite started and ended. The VM's speed moves by up to 2x within an hour; a higher check means " +
      'a slower hour. It times one',
    'core, so it does not show another process competing for the machine: the load average beside it does.',
    'Performance targets are reported here, never asserted by tests.',
    '',
  ]
  for (const s of suites) {
    const r = results.suites[s.name]
    out.push(`## ${s.title} (\`--only ${s.name}\`)`, '')
    if (!r) {
      out.push(`_Not run yet: \`npm run bench -- --only ${s.name}\`._`, '')
      continue
    }
    out.push(sectionHeader(r), '')
    if (r.failures.length) out.push('**This run FAILED its checks:**', '', ...r.failures.map((f) => `- ${f}`), '')
    const chart = s.chart?.(r)
    if (chart) out.push(`![${s.title}](${chart.file})`, '')
    out.push(s.render(r), '')
  }
  if (pending.length)
    out.push(
      '## Pending (service not built yet)',
      '',
      '| area | benchmark |',
      '|---|---|',
      ...pending.map((p) => `| ${p.area} | ${p.what} — pending (service not built yet) |`),
      '',
    )
  return out.join('\n')
}

/** Writes results.json, RESULTS.md and every chart into `dir`. */
export function writeReport(
  dir: string,
  results: ResultsFile,
  suites: Suite<any>[],
  pending: { area: string; what: string }[],
): string[] {
  const written: string[] = []
  writeFileSync(join(dir, 'results.json'), JSON.stringify(results, null, 2) + '\n')
  written.push(join(dir, 'results.json'))
  for (const s of suites) {
    const r = results.suites[s.name]
    const chart = r && s.chart?.(r)
    if (chart) {
      writeFileSync(join(dir, chart.file), chart.svg)
      written.push(join(dir, chart.file))
    }
  }
  writeFileSync(join(dir, 'RESULTS.md'), renderMarkdown(results, suites, pending))
  written.push(join(dir, 'RESULTS.md'))
  return written
}

/** A target's verdict: `met`, or by how much it was missed; below national scale, that it does not apply. */
export function verdict(national: boolean, value: number, target: number, unit: string): string {
  return !national
    ? '(target is for national scale)'
    : value <= target
      ? 'met'
      : `missed by ${fmt(value - target, 2)} ${unit} (${fmt(value / target, 2)}x)`
}

/** The targets of a service's in-process table (national scale). */
export interface ServiceTargets {
  /** p50 of the `service` variant of a point query, µs */
  atP50Us: number
  /** p50 of the `whole handler` variant of a batch, ms */
  batchMs: number
}

/**
 * The Markdown table (header included) of a service's in-process rows: point queries in µs,
 * batches (an `op` starting `batch`) in ms. Only the `service` variant of a point query and the
 * `whole …` variant of a batch have a target. `meanDigits`: decimals of a point query's mean
 * results; `splitHeader`: the heading of the column that splits the p50 by probe kind.
 */
export function serviceOpTable(
  rows: OpRow[],
  targets: ServiceTargets,
  national: boolean,
  meanDigits = 1,
  splitHeader = 'p50 near / random',
): string[] {
  const lines = [
    `| query | variant | p50 | p99 | mean | ${splitHeader} | ops/s | mean results | target | verdict |`,
    '|---|---|--:|--:|--:|--:|--:|--:|--:|---|',
  ]
  for (const row of rows) {
    const batch = row.op.startsWith('batch')
    const v = (s: Summary | null) => (s ? (batch ? `${fmt(s.p50Us / 1000, 2)} ms` : `${fmt(s.p50Us)} µs`) : '')
    const target = batch
      ? row.variant.startsWith('whole')
        ? targets.batchMs
        : null
      : row.variant === 'service'
        ? targets.atP50Us
        : null
    lines.push(
      `| ${row.op} | ${row.variant} | ${v(row.all)} | ${batch ? `${fmt(row.all.p99Us / 1000, 2)} ms` : `${fmt(row.all.p99Us)} µs`} | ${batch ? `${fmt(row.all.meanUs / 1000, 2)} ms` : `${fmt(row.all.meanUs)} µs`} | ` +
        `${row.near ? `${v(row.near)} / ${v(row.random)}` : ''} | ${fmt(row.opsPerS)} | ${batch ? fmt(row.meanResults) : fmt(row.meanResults, meanDigits)} | ${target === null ? '' : batch ? `≤ ${target} ms` : `≤ ${target} µs`} | ` +
        `${target === null ? '' : batch ? verdict(national, row.all.p50Us / 1000, target, 'ms') : verdict(national, row.all.p50Us, target, 'µs')} |`,
    )
  }
  return lines
}
