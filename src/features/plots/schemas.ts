import { z } from '@hono/zod-openapi'
import { intParam, LatitudeParam, LongitudeParam, nameListParam, upperEnumParam } from '../../http/params.js'
import { PLOT_TILE_LAYERS } from './tiles.js'

export const COUNTRY_VALUES = ['BOTSWANA', 'SOUTH_AFRICA'] as const
export const RADIUS_MAX_M = 50_000
export const LIMIT_MAX = 500
/** The reverse search stops widening here (the spec's "roughly 100 km"), geodesic metres. */
export const REVERSE_REACH_M = 100_000

const CountryParam = upperEnumParam('country', COUNTRY_VALUES)
  .optional()
  .openapi({
    type: 'string',
    enum: [...COUNTRY_VALUES],
    description: 'Case-insensitive. Omitted: every country the key covers.',
  })
const LimitParam = intParam('limit', 1, LIMIT_MAX, 100).openapi({
  type: 'integer',
  minimum: 1,
  maximum: LIMIT_MAX,
  default: 100,
})

export const SearchQuerySchema = z.object({
  latitude: LatitudeParam,
  longitude: LongitudeParam,
  radius: intParam('radius', 1, RADIUS_MAX_M, 500).openapi({
    type: 'integer',
    minimum: 1,
    maximum: RADIUS_MAX_M,
    default: 500,
    description: 'Whole metres, geodesic on the WGS84 ellipsoid; a plot exactly on the circle is included.',
  }),
  limit: LimitParam,
  country: CountryParam,
})

export const ReverseQuerySchema = z.object({
  latitude: LatitudeParam,
  longitude: LongitudeParam,
  country: CountryParam,
})

export const PlotNumberParamsSchema = z.object({
  plot_number: z
    .string()
    .trim()
    .min(1, 'plot_number must not be blank')
    .max(64, 'plot_number is longer than 64 characters')
    .openapi({
      param: { name: 'plot_number', in: 'path' },
      example: '12/3',
      description:
        'Plot or erf number, matched case-insensitively. A portion `<erf>/<portion>` may be sent encoded ' +
        '(`12%2F3`) or plain (`12/3`).',
    }),
})

export const ByNumberQuerySchema = z.object({
  city: z
    .string()
    .trim()
    .min(1, 'city must not be blank')
    .max(120, 'city is longer than 120 characters')
    .transform((s) => s.toUpperCase())
    .optional()
    .openapi({
      type: 'string',
      description:
        'Narrows to one town or township, case-insensitive. Township names repeat across provinces: check `province`.',
    }),
  limit: LimitParam,
  country: CountryParam,
})

export const CitiesQuerySchema = z.object({
  country: upperEnumParam('country', ['BOTSWANA', 'SOUTH_AFRICA', 'ALL'] as const)
    .optional()
    .openapi({
      type: 'string',
      enum: ['BOTSWANA', 'SOUTH_AFRICA', 'ALL'],
      description:
        'Default BOTSWANA (or, for a key without Botswana, the countries it covers); ALL lists everything the key ' +
        'covers.',
    }),
})

export const PlotSchema = z
  .object({
    id: z.number().int().openapi({ description: 'Record identifier, stable for one dataset build.' }),
    plot_number: z.string().openapi({ example: '12/3' }),
    latitude: z.number().openapi({ description: 'Decimal degrees, 7 decimals.' }),
    longitude: z.number(),
    city: z
      .string()
      .openapi({ description: 'Town (Botswana) or township (South Africa), upper-case.', example: 'GABORONE' }),
    country: z.enum(COUNTRY_VALUES),
    parcel_identifier_type: z.enum(['PLOT_NUMBER', 'ERF_NUMBER']),
    district: z.string().optional().openapi({ description: 'Botswana only.' }),
    province: z.string().optional().openapi({ description: 'South Africa only; upper-case province name.' }),
    distance_meters: z.number().optional().openapi({
      description: 'Coordinate-based results only: geodesic metres (WGS84) from the point, 2 decimals, 0 on the point.',
    }),
  })
  .openapi('Plot')
export type Plot = z.infer<typeof PlotSchema>

export const PlotsEnvelopeSchema = z
  .object({
    plots: z.array(PlotSchema).openapi({ description: 'Empty when nothing matched (never a 404).' }),
    message: z.string(),
  })
  .openapi('PlotsEnvelope')

export const CitySchema = z
  .object({
    name: z.string().openapi({ example: 'GABORONE' }),
    country: z.enum(COUNTRY_VALUES),
    district: z.string().optional().openapi({ description: 'Botswana only.' }),
    province: z
      .string()
      .optional()
      .openapi({ description: 'South Africa only; a township name recurs once per province it occurs in.' }),
    plot_count: z.number().int().openapi({ description: 'Plots (or erven) of this city in the dataset.' }),
  })
  .openapi('City')
export type City = z.infer<typeof CitySchema>

export const CitiesEnvelopeSchema = z
  .object({
    cities: z.array(CitySchema),
    message: z.string(),
  })
  .openapi('CitiesEnvelope')

/** `/plots/tiles` and its TileJSON: the layers (`plot`: Botswana, `erf`: South Africa), default both. */
export const TileQuerySchema = z.object({
  layers: nameListParam('layers', PLOT_TILE_LAYERS, PLOT_TILE_LAYERS, {
    example: 'erf',
    description:
      'Comma list of layers: plot (Botswana plots), erf (South African erven), case-insensitive. Default: both ' +
      '(a layer of a country the key does not cover is left out).',
  }),
})
