import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { beforeAll, describe, expect, it } from 'vitest'
import { runSynth, SynthUsageError } from './synth.js'
import { SCALES } from './scales.js'
import { hashTree, synthOnce, tempDir } from './testing.js'

describe('runSynth (tiny)', () => {
  it('writes byte-identical files for the same seed', async () => {
    const a = await synthOnce('tiny', 7)
    const b = await runSynth({ scale: 'tiny', seed: 7, out: tempDir('synth-again') })
    const ha = hashTree(a.out)
    const files = Object.keys(ha).sort()
    const family = (f: string) =>
      ['south_africa/cadastre/', 'south_africa/encumbrances/', 'south_africa/boundaries/'].some((p) => f.startsWith(p))
    expect(files.filter((f) => !family(f))).toEqual([
      'SYNTH.json',
      'botswana/plots.csv',
      'export.json',
      'south_africa/erven.csv',
    ])
    // eight layers in each of the nine province folders, less the holding file outside FS, GP, KZN, LP, MP and NW
    expect(files.filter((f) => f.startsWith('south_africa/cadastre/'))).toHaveLength(9 * 8 - 3)
    // nine classes in each province folder, less the spec's ten coverage gaps
    expect(files.filter((f) => f.startsWith('south_africa/encumbrances/'))).toHaveLength(9 * 9 - 10)
    // boundary sets 2011, 2016, 2018, 2020 and the register (its townships from the cadastre)
    expect(files.filter((f) => f.startsWith('south_africa/boundaries/')).map((f) => f.split('/')[2])).toEqual([
      ...Array(5).fill('2011'),
      ...Array(2).fill('2016'),
      ...Array(11).fill('2018'),
      ...Array(5).fill('2020'),
      ...Array(6).fill('register'),
    ])
    expect(hashTree(b.out)).toEqual(ha)
  })

  it('writes different data for a different seed', async () => {
    const a = hashTree((await synthOnce('tiny', 7)).out)
    const b = hashTree((await synthOnce('tiny', 8)).out)
    expect(b['botswana/plots.csv']).not.toBe(a['botswana/plots.csv'])
    expect(b['south_africa/erven.csv']).not.toBe(a['south_africa/erven.csv'])
  })

  it('names the export in export.json and records counts in SYNTH.json', async () => {
    const s = await synthOnce('tiny', 7)
    const exportJson = JSON.parse(readFileSync(join(s.out, 'export.json'), 'utf8'))
    expect(exportJson).toEqual({
      plots: { export_id: 'plots-synth-tiny-s7', as_of: '2026-11-01' },
      cadastre: { export_id: 'csg-synth-tiny-s7', as_of: '2026-09-30' },
      encumbrances: { export_id: 'csg-enc-synth-tiny-s7', as_of: '2026-11-14' },
      boundaries: { export_id: 'mdb-synth-tiny-s7', as_of: '2026-10-01' },
    })
    const synth = JSON.parse(readFileSync(join(s.out, 'SYNTH.json'), 'utf8'))
    expect(synth.scale).toBe('tiny')
    expect(synth.seed).toBe(7)
    expect(synth.layers.plots.counts.plots).toBe(SCALES.tiny.botswanaPlots)
    expect(synth.layers.erven.counts.erven).toBe(SCALES.tiny.southAfricaErven)
    expect(synth.layers.erven.counts.townships).toBe(SCALES.tiny.southAfricaTownships)
    expect(synth.layers.cadastre.counts.erf).toBeGreaterThan(SCALES.tiny.southAfricaErven)
  })

  it('writes exactly the preset row counts', async () => {
    const s = await synthOnce('tiny', 7)
    const rows = (p: string): number => readFileSync(join(s.out, p), 'utf8').trimEnd().split('\n').length - 1
    expect(rows('botswana/plots.csv')).toBe(SCALES.tiny.botswanaPlots)
    expect(rows('south_africa/erven.csv')).toBe(SCALES.tiny.southAfricaErven)
  })

  it('--only writes just that layer, identical to the full run', async () => {
    const full = await synthOnce('tiny', 7)
    const only = await runSynth({ scale: 'tiny', seed: 7, out: tempDir('synth-only'), only: ['erven'] })
    expect(existsSync(join(only.out, 'botswana/plots.csv'))).toBe(false)
    expect(hashTree(only.out)['south_africa/erven.csv']).toBe(hashTree(full.out)['south_africa/erven.csv'])
    expect(only.layers.map((l) => l.layer)).toEqual(['erven'])
  })

  it('rejects bad options with a usage error', async () => {
    const out = tempDir('synth-bad')
    await expect(runSynth({ scale: 'huge', seed: 1, out })).rejects.toThrow(SynthUsageError)
    await expect(runSynth({ scale: 'tiny', seed: -3, out })).rejects.toThrow(/seed/)
    await expect(runSynth({ scale: 'tiny', seed: 1, out, only: ['plots', 'farms'] })).rejects.toThrow(/farms/)
  })
})

describe('CLI (bundled main.ts)', () => {
  let cli = ''
  beforeAll(async () => {
    cli = join(tempDir('synth-cli'), 'synth.js')
    await build({
      entryPoints: [fileURLToPath(new URL('./main.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'esm',
      // dependencies bundled in: the bundle sits in a temp folder with no node_modules above it
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
      outfile: cli,
      logLevel: 'silent',
    })
  })
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: process.cwd() })

  it('exits 2 with a message on bad arguments', () => {
    for (const args of [
      ['--scale', 'huge', '--out', '/tmp/x'],
      ['--seed', 'abc', '--out', '/tmp/x'],
      ['--scale', 'tiny'],
      ['--bogus'],
    ]) {
      const r = run(...args)
      expect(r.status, args.join(' ')).toBe(2)
      expect(r.stderr).toMatch(/^synth: .+\n$/) // one line naming the mistake (synth --help has the usage)
    }
  })

  it('generates a tiny export and logs what it wrote', () => {
    const out = tempDir('synth-cli-out')
    const r = run('--scale', 'tiny', '--seed', '3', '--out', out, '--only', 'plots')
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('botswana/plots.csv 1,500 rows')
    expect(JSON.parse(readFileSync(join(out, 'export.json'), 'utf8')).plots.export_id).toBe('plots-synth-tiny-s3')
  })

  it('finds data/real through LANDDATA_ROOT from another working directory', () => {
    const out = tempDir('synth-cli-root')
    const r = spawnSync(process.execPath, [cli, '--scale', 'tiny', '--out', out, '--only', 'plots'], {
      encoding: 'utf8',
      cwd: tmpdir(),
      env: { ...process.env, LANDDATA_ROOT: process.cwd() },
    })
    expect(r.status, r.stderr).toBe(0)
    const bad = spawnSync(process.execPath, [cli, '--scale', 'tiny', '--out', out], {
      encoding: 'utf8',
      cwd: tmpdir(),
      env: { ...process.env, LANDDATA_ROOT: '' },
    })
    expect(bad.status).toBe(1)
    expect(bad.stderr).toMatch(/missing real-data file/)
  })
})
