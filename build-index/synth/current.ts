/**
 * Whether a generated export on disk is what this generator writes for a scale and seed.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { LAYERS } from './layers/index.js'
import { SCALES, type ScaleName } from './scales.js'

/**
 * True when `sourceDir` holds a finished export (export.json) whose SYNTH.json records the same
 * seed, the same preset and every layer this generator has. `npm start` regenerates the sample
 * otherwise, so a checkout updated to a generator with a new layer (say encumbrances) does not
 * keep serving an old sample without it.
 */
export function exportIsCurrent(sourceDir: string, scale: ScaleName, seed: number): boolean {
  const file = join(sourceDir, 'SYNTH.json')
  if (!existsSync(join(sourceDir, 'export.json')) || !existsSync(file)) return false
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as {
      seed?: number
      preset?: unknown
      layers?: Record<string, unknown>
    }
    return (
      s.seed === seed &&
      JSON.stringify(s.preset) === JSON.stringify(SCALES[scale]) &&
      LAYERS.every((l) => s.layers?.[l.name] !== undefined)
    )
  } catch {
    return false
  }
}
