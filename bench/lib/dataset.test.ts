import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PhaseTimes, codeFingerprints, fingerprintTree, reuseOutcome, staleCodeOf } from './dataset.js'

describe('PhaseTimes', () => {
  it('sums finished steps by phase from build-index progress lines, layers per domain together', () => {
    const p = new PhaseTimes()
    for (const line of [
      'plots/botswana: 20% (160000 rows)',
      'plots/botswana: 800000 rows, 0 rejected in 3.3 s',
      'plots/south_africa: 6800000 rows, 0 rejected in 33.3 s',
      'parcels/EC/erf: 888037 parcels, 430 repaired, 0 rejected in 34.2 s',
      'parcels/GP/farm_portion: 10 parcels, 0 repaired, 0 rejected in 1.05 s',
      'parcels/relations: 12107686 touching pairs in 229.9 s',
      'encumbrances/overlaps: 11630521 parcel overlaps in 551.5 s',
      'boundaries/2011/ward: 4277 boundaries, 160 repaired, 0 rejected in 0.4 s',
      'boundaries/write: 20254 rows in 0.8 s',
      'encumbrances: 536882 records; computing parcel overlaps',
      '[1229.3 s] dataset: built in 1226.7 s, peak RSS 6224 MiB',
    ])
      p.add(line)
    expect(p.totals).toEqual({
      'plots/botswana': 3.3,
      'plots/south_africa': 33.3,
      'parcels layers': 35.3,
      'parcels/relations': 229.9,
      'encumbrances/overlaps': 551.5,
      'boundaries layers': 0.4,
      'boundaries/write': 0.8,
    })
  })
})

describe('code fingerprints of a cached bench dataset', () => {
  const tree = () => {
    const base = mkdtempSync(join(tmpdir(), 'fp-'))
    for (const [f, text] of Object.entries({
      'build-index/synth/a.ts': 'a',
      'build-index/b.ts': 'b',
      'build-index/b.test.ts': 't',
      'src/data/c.ts': 'c',
      'src/geo/d.ts': 'd',
      'data/real/e.json': 'e',
    })) {
      mkdirSync(dirname(join(base, f)), { recursive: true })
      writeFileSync(join(base, f), text)
    }
    return base
  }

  it('tells the generator from the builder, ignores test files, and is null without a checkout', () => {
    const base = tree()
    const before = codeFingerprints(base)
    expect(before.generator).toMatch(/^[0-9a-f]{16}$/)
    expect(before.builder).toMatch(/^[0-9a-f]{16}$/)
    writeFileSync(join(base, 'build-index/b.test.ts'), 'changed test')
    expect(codeFingerprints(base)).toEqual(before)
    writeFileSync(join(base, 'build-index/synth/a.ts'), 'a2')
    const gen = codeFingerprints(base)
    expect(gen.generator).not.toBe(before.generator)
    expect(gen.builder).toBe(before.builder) // synth is the generator's, not the builder's
    writeFileSync(join(base, 'src/geo/d.ts'), 'd2')
    expect(codeFingerprints(base).builder).not.toBe(before.builder)
    // a renamed file changes it too, not only its contents
    renameSync(join(base, 'data/real/e.json'), join(base, 'data/real/f.json'))
    expect(codeFingerprints(base).generator).not.toBe(gen.generator)
    expect(fingerprintTree(['no/such/dir'], [], base)).toBeNull()
  })

  it('names what changed, and nothing when a side is unknown', () => {
    const now = { generator: 'g1', builder: 'b1' }
    expect(staleCodeOf({ generator: 'g1', builder: 'b1' }, now)).toBeNull()
    expect(staleCodeOf(null, now)).toBeNull()
    expect(staleCodeOf({ generator: 'g1' }, now)).toBeNull()
    expect(staleCodeOf({ generator: 'g0', builder: 'b1' }, now)).toMatch(
      /^the generator .* changed since the source export was made$/,
    )
    expect(staleCodeOf({ generator: 'g1', builder: 'b0' }, now)).toMatch(
      /^build-index, src\/data or src\/geo changed since the dataset was built$/,
    )
    expect(staleCodeOf({ generator: 'g0', builder: 'b0' }, { generator: null, builder: 'b1' })).toMatch(/^build-index/)
  })
})

describe('reuseOutcome', () => {
  it('reads what --reuse did to each domain from the build log', () => {
    expect(reuseOutcome('parcels: reused from /srv/ds/2026-11-20 (5 files hard-linked)')).toEqual({
      domain: 'parcels',
      outcome: 'reused',
    })
    expect(reuseOutcome('encumbrances: rebuilt: its inputs changed')).toEqual({
      domain: 'encumbrances',
      outcome: 'rebuilt: its inputs changed',
    })
    expect(reuseOutcome('parcels/GP/erf: 10 rows in 0.1 s')).toBeNull()
  })
})
