import { z } from '@hono/zod-openapi'
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

/** The `{z}/{x}/{y}.mvt` path parameters of every tile route, as the OpenAPI documents them. */
export const TileParamsSchema = z.object({
  z: z.string().openapi({ param: { name: 'z', in: 'path' }, type: 'integer', minimum: 0, maximum: 22 }),
  x: z.string().openapi({ param: { name: 'x', in: 'path' }, type: 'integer', minimum: 0 }),
  y: z.string().openapi({
    param: { name: 'y', in: 'path' },
    type: 'integer',
    minimum: 0,
    description: 'Tile row; the path ends in `.mvt`.',
  }),
})
