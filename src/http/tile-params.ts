import { validateTile } from '../geo/tiles.js'
import { ApiError } from './errors.js'

/**
 * `z`, `x` and `y.mvt` path parameters as whole numbers, checked against the tile pyramid:
 * 400 ValidationError naming each bad one otherwise.
 */
export function parseTileParams(params: { z: string; x: string; y: string }): { z: number; x: number; y: number } {
  const num = (v: string) => (/^\d+$/.test(v) ? Number(v) : Number.NaN)
  const z = num(params.z)
  const x = num(params.x)
  const y = num(params.y.replace(/\.mvt$/, ''))
  const problems = validateTile(z, x, y)
  if (problems.length)
    throw new ApiError(
      'ValidationError',
      `invalid request: ${problems.map((p) => p.field).join(', ')}`,
      problems.map((p) => ({ field: p.field, message: p.message })),
    )
  return { z, x, y }
}
