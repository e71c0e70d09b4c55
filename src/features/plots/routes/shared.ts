/** What every plot route shares: the OpenAPI tag. */
import type { ApiTag } from '../../../http/openapi.js'

/** The OpenAPI tag of every plot operation. */
export const TAG: readonly ApiTag[] = [
  {
    name: 'Plots',
    description:
      'Plot and coordinate lookup (spec 000, product `plots`): Botswana plots and South African erven near a ' +
      'point or by number, the towns, and plot tiles.',
  },
]
