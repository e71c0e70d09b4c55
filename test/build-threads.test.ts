import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { PARCEL_TILES_FILE } from '../src/data/parcel-tiles.js'
import { PARCEL_FILES } from '../src/data/parcels-format.js'
import { PLOT_TILES_FILE } from '../src/data/plot-tiles.js'

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex')

describe('build passes on worker threads', () => {
  it('the bundled build gives the same parcels, relations and overlaps on worker threads as in the thread', () => {
    const work = mkdtempSync(join(inject('workDir'), 'threads-'))
    // the fixture export, with rows the layer pass rejects among the good ones of one layer
    const source = join(work, 'source')
    cpSync(inject('sourceDir'), source, { recursive: true })
    const layer = readdirSync(join(source, 'south_africa/cadastre'), { recursive: true, encoding: 'utf8' }).find((f) =>
      f.endsWith('erf.geojsonl'),
    )!
    const lines = readFileSync(join(source, 'south_africa/cadastre', layer), 'utf8')
      .trimEnd()
      .split('\n')
    const bad = [
      '{"type":"Feature", bad',
      '{"type":"Feature","properties":{"id":"not an lpi","lstatus":"R"},"geometry":null}',
    ]
    writeFileSync(
      join(source, 'south_africa/cadastre', layer),
      [lines[0], bad[0], ...lines.slice(1, 3), bad[1], ...lines.slice(3)].join('\n') + '\n',
    )
    const build = (threads: number) => {
      const out = join(work, `t${threads}`)
      const r = spawnSync(
        process.execPath,
        ['dist/build-index.js', '--source', source, '--out', out, '--allow-rejects'],
        {
          env: { ...process.env, LANDDATA_BUILD_THREADS: String(threads) },
          encoding: 'utf8',
        },
      )
      expect(r.status, r.stderr).toBe(0)
      return { out, log: r.stdout + r.stderr }
    }
    const one = build(1)
    const two = build(2)
    expect(one.log).not.toContain('worker threads')
    expect(two.log).toContain('overlaps on 2 worker threads')
    expect(two.log).toContain('relations on 2 worker threads')
    expect(two.log).toContain('layers prepared on 2 worker threads')
    expect(two.log).toMatch(/parcels\/tiles: \d+ blocks on 2 worker threads/)
    expect(two.log).toMatch(/plots\/tiles: \d+ blocks on 2 worker threads/)
    // parcel rows (ids in source order), touching pairs, beacon ring positions and General Plan
    // links, byte for byte; the index, flags and prefilter of the layer pass too
    const rejected = (log: string) => log.split('\n').filter((l) => l.startsWith('rejected '))
    expect(rejected(two.log)).toEqual(rejected(one.log))
    expect(rejected(one.log).filter((l) => l.includes(layer))).toEqual([
      expect.stringMatching(new RegExp(`${layer}:2: invalid JSON: `)),
      expect.stringMatching(new RegExp(`${layer}:5: id "NOT AN LPI" is not a 21-character LPI`)),
    ])
    for (const f of Object.values(PARCEL_FILES)) expect(sha(join(two.out, f)), f).toBe(sha(join(one.out, f)))
    // the tile stores, cut block by block on the workers
    for (const f of [PARCEL_TILES_FILE, PLOT_TILES_FILE]) expect(sha(join(two.out, f)), f).toBe(sha(join(one.out, f)))
    expect(sha(join(two.out, 'encumbrances/encumbrances.sqlite'))).toBe(
      sha(join(one.out, 'encumbrances/encumbrances.sqlite')),
    )
    expect(sha(join(two.out, 'manifest.json'))).toBe(sha(join(one.out, 'manifest.json')))
  }, 120_000)
})
