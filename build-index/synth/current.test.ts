import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { exportIsCurrent } from './current.js'
import { LAYERS } from './layers/index.js'
import { SCALES } from './scales.js'

describe('exportIsCurrent', () => {
  const dirs: string[] = []
  afterAll(() =>
    dirs.forEach((d) => {
      rmSync(d, { recursive: true, force: true })
    }),
  )
  const exportWith = (synth: unknown, withExport = true) => {
    const d = mkdtempSync(join(tmpdir(), 'synth-current-'))
    dirs.push(d)
    if (withExport) writeFileSync(join(d, 'export.json'), '{}')
    if (synth !== undefined)
      writeFileSync(join(d, 'SYNTH.json'), typeof synth === 'string' ? synth : JSON.stringify(synth))
    return d
  }
  const layers = Object.fromEntries(LAYERS.map((l) => [l.name, { files: [] }]))
  const current = { generator: 'landdata-synth', scale: 'tiny', seed: 1, preset: SCALES.tiny, layers }

  it('accepts an export with the same seed, preset and every layer', () => {
    expect(exportIsCurrent(exportWith(current), 'tiny', 1)).toBe(true)
  })

  it('rejects a missing layer, another preset or seed, an unfinished or unreadable export', () => {
    const { encumbrances: _dropped, ...older } = layers
    expect(exportIsCurrent(exportWith({ ...current, layers: older }), 'tiny', 1)).toBe(false)
    expect(
      exportIsCurrent(
        exportWith({ ...current, preset: { ...SCALES.tiny, corridorsPerTownship: undefined } }),
        'tiny',
        1,
      ),
    ).toBe(false)
    expect(exportIsCurrent(exportWith(current), 'sample', 1)).toBe(false)
    expect(exportIsCurrent(exportWith(current), 'tiny', 2)).toBe(false)
    expect(exportIsCurrent(exportWith(current, false), 'tiny', 1)).toBe(false)
    expect(exportIsCurrent(exportWith(undefined), 'tiny', 1)).toBe(false)
    expect(exportIsCurrent(exportWith('{not json'), 'tiny', 1)).toBe(false)
  })
})
