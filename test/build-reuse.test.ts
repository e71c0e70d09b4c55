/**
 * `build-index --reuse` (docs/operations.md "Building and verifying"): a build reusing the
 * domains of a previous build whose inputs did not change gives the same bytes as a full build,
 * with the reused files hard-linked to the previous build's.
 */
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { buildDataset } from '../build-index/build.js'
import { addWeeklyEncumbrance } from './fixtures/weekly.js'

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort()
}

function expectSameBytes(a: string, b: string): void {
  const files = listFiles(a)
  expect(files).toEqual(listFiles(b))
  expect(files).toContain('manifest.json')
  for (const f of files) expect(readFileSync(join(a, f)).equals(readFileSync(join(b, f))), f).toBe(true)
}

async function build(source: string, out: string, reuse?: string): Promise<{ lines: string[]; ms: number }> {
  const lines: string[] = []
  const t0 = performance.now()
  await buildDataset({ source, out, reuse, log: (l) => lines.push(l) })
  return { lines, ms: performance.now() - t0 }
}

const said = (lines: string[], domain: string, what: 'reused' | 'rebuilt') =>
  lines.some((l) => l.startsWith(`${domain}: ${what}`))

describe('build-index --reuse', () => {
  it('rebuilds only the changed encumbrances, byte-identical to a full build, linking the rest', async () => {
    const work = mkdtempSync(join(inject('workDir'), 'reuse-'))
    const src = join(work, 'src')
    cpSync(inject('sourceDir'), src, { recursive: true })
    const a = await build(src, join(work, 'a'))

    // the weekly encumbrance export: one more servitude in the Western Cape
    addWeeklyEncumbrance(src)
    const b = await build(src, join(work, 'b'))
    const c = await build(src, join(work, 'c'), join(work, 'a'))

    expectSameBytes(join(work, 'b'), join(work, 'c'))
    const manifest = JSON.parse(readFileSync(join(work, 'c', 'manifest.json'), 'utf8'))
    expect(Object.keys(manifest.inputs).sort()).toEqual(['encumbrances', 'jurisdiction', 'parcels', 'plots'])
    expect(readFileSync(join(work, 'a', 'encumbrances', 'encumbrances.sqlite'))).not.toEqual(
      readFileSync(join(work, 'c', 'encumbrances', 'encumbrances.sqlite')),
    )
    for (const d of ['plots', 'parcels', 'jurisdiction']) expect(said(c.lines, d, 'reused'), d).toBe(true)
    expect(said(c.lines, 'encumbrances', 'rebuilt')).toBe(true)
    for (const file of manifest.files as { path: string }[]) {
      const linked = statSync(join(work, 'a', file.path)).ino === statSync(join(work, 'c', file.path)).ino
      expect(linked, file.path).toBe(!file.path.startsWith('encumbrances/'))
    }
    console.log(
      `reuse test builds: full A ${a.ms.toFixed(0)} ms, full B ${b.ms.toFixed(0)} ms, ` +
        `C with --reuse A ${c.ms.toFixed(0)} ms; ${c.lines.find((l) => l.startsWith('inputs:'))}`,
    )

    // a changed cadastre layer rebuilds the parcels and, through the overlaps, the encumbrances
    const cadastre = join(src, 'south_africa', 'cadastre', 'WC')
    const layer = readdirSync(cadastre).find((n) => n.endsWith('.geojsonl'))!
    const first = readFileSync(join(cadastre, layer), 'utf8').split('\n')[0]
    appendFileSync(join(cadastre, layer), `${first}\n`) // an exact duplicate: dropped and counted
    const d = await build(src, join(work, 'd'), join(work, 'c'))
    const e = await build(src, join(work, 'e'))
    expectSameBytes(join(work, 'd'), join(work, 'e'))
    expect(said(d.lines, 'parcels', 'rebuilt')).toBe(true)
    expect(said(d.lines, 'encumbrances', 'rebuilt')).toBe(true)
    expect(said(d.lines, 'jurisdiction', 'reused')).toBe(true)
    console.log(
      `reuse test builds after a cadastre change: full ${e.ms.toFixed(0)} ms, with --reuse ${d.ms.toFixed(0)} ms; ` +
        d.lines.filter((l) => / (reused|rebuilt)/.test(l)).join('; '),
    )
  }, 120_000)
})
