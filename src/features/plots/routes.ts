/**
 * The plot and coordinate routes (docs/api.md "Plots (spec 000)"): one family of four GET endpoints, each a named
 * handler over the service.
 */
import type { Context } from 'hono'
import type { z } from '@hono/zod-openapi'
import { citiesAllowed, countriesInScope, assertCityPermitted, requireProduct } from '../../auth/middleware.js'
import type { ApiKeyRecord, Country } from '../../auth/types.js'
import type { AppEnv } from '../../http/env.js'
import { ApiError } from '../../http/errors.js'
import { requireService, type Service } from '../../http/service-guard.js'
import { JsonBytes } from '../../http/json-bytes.js'
import type { ApiRouter } from '../../http/openapi.js'
import { json, reply } from '../../http/reply.js'
import { plural } from '../../http/text.js'
import { isGeoJson } from '../../http/geojson.js'
import { plotsGeoJson } from './geojson.js'
import type { CityScope, FoundPlots, PlotQueries } from './queries.js'
import type { CountryEnum } from './store.js'
import { TAG } from './routes/shared.js'
import { registerPlotTileRoutes } from './routes/tiles.js'
import {
  ByNumberQuerySchema,
  CitiesEnvelopeSchema,
  CitiesQuerySchema,
  LIMIT_MAX as PLOT_LIMIT_MAX,
  PlotNumberParamsSchema,
  PlotsEnvelopeSchema,
  REVERSE_REACH_M,
  ReverseQuerySchema,
  SearchQuerySchema,
} from './schemas.js'

/**
 * Named in the message of a plot number that matches nothing: `/plots/revers` is a plot number
 * by the spec, so it answers like any other, but says which lookup routes exist beside it
 * (docs/api.md "Plots (spec 000)").
 */
const LOOKUP_ROUTES = '/plots/search-given-coordinates, /plots/reverse, /plots/{plot_number} and /cities'

function scopeOf(key: ApiKeyRecord, countries: Country[]): CityScope {
  const scope: CityScope = {}
  for (const c of countries) scope[c] = citiesAllowed(key, c)
  return scope
}

/** Every coordinate answer is written by this one writer (synchronously, so requests never share it). */
const writer = new JsonBytes()

/** `{ plots, message }` of a coordinate search, written as bytes (see FoundPlots). */
function plotsAnswer(c: Context<AppEnv>, plots: FoundPlots, message: string): Response {
  if (isGeoJson(c)) return plotsGeoJson(c, plots.plots(), message)
  writer.start().ascii('{"plots":')
  plots.write(writer)
  writer.ascii(',"message":').string(message).ascii('}')
  return reply(c, writer.take(), 200, 'application/json')
}

/** The plot and coordinate lookup service (docs/api.md "Plots (spec 000)"): four GET endpoints, `plots` product. */
export function registerPlotRoutes(router: ApiRouter, queries: Service<PlotQueries | null>): void {
  const mw = [requireProduct('plots')]
  const q = requireService(queries, 'PlotDataUnavailable', 'the plot dataset is not installed on this deployment')

  router.add(
    {
      method: 'get',
      path: '/plots/search-given-coordinates',
      operationId: 'getPlotsNearPoint',
      tags: TAG,
      summary: 'Plots within a radius of a point, nearest first',
      description:
        'Geodesic (WGS84) radius search. Each plot carries `distance_meters`. No match: 200 with an empty `plots`.',
      request: { query: SearchQuerySchema },
      geojson: true,
      responses: {
        200: { description: 'Plots within the radius, nearest first (ties by id).', schema: PlotsEnvelopeSchema },
      },
    },
    mw,
    (c, { query }) => plotsNear(c, q(c), query),
  )

  router.add(
    {
      method: 'get',
      path: '/plots/reverse',
      operationId: 'getPlotsReverse',
      tags: TAG,
      summary: 'The nearest plot to a point',
      description:
        `Widens the search progressively until a plot is found, up to ${REVERSE_REACH_M / 1000} km (geodesic); ` +
        `beyond that \`plots\` is empty. Near a border the nearest plot may be in the other country.`,
      request: { query: ReverseQuerySchema },
      geojson: true,
      responses: { 200: { description: 'Zero or one plot, with `distance_meters`.', schema: PlotsEnvelopeSchema } },
    },
    mw,
    (c, { query }) => nearestPlot(c, q(c), query),
  )

  // before /plots/{plot_number}, which takes any path under /plots/
  registerPlotTileRoutes(router, mw, q)

  router.add(
    {
      method: 'get',
      path: '/plots/{plot_number}',
      operationId: 'getPlotsByNumber',
      // `.+` so a portion written plainly (`/plots/12/3`) reaches this route as well as `12%2F3`
      honoPath: '/plots/:plot_number{.+}',
      tags: TAG,
      summary: 'Plots carrying a plot or erf number',
      description:
        'Case-insensitive exact match. Numbers are not unique: the same number recurs across towns, within a town, ' +
        'and in every South African township; qualify by `city` and check `province`. No `distance_meters`. ' +
        'Order: Botswana first, then source order.',
      request: { params: PlotNumberParamsSchema, query: ByNumberQuerySchema },
      geojson: true,
      responses: {
        200: {
          description:
            'Every matching plot (up to `limit`); empty when none, with a `message` that says no such plot exists ' +
            'and lists the lookup routes (a mistyped `/plots/revers` is a plot number).',
          schema: PlotsEnvelopeSchema,
        },
      },
    },
    mw,
    (c, { params, query }) => plotsByNumber(c, q(c), params.plot_number, query),
  )

  router.add(
    {
      method: 'get',
      path: '/cities',
      operationId: 'getCities',
      tags: TAG,
      summary: 'Coverage list of towns and townships',
      description:
        'Default: the Botswana towns (for a key without Botswana, the countries it covers). `SOUTH_AFRICA` lists ' +
        'townships (one entry per township name and province); `ALL` lists everything the key covers. A ' +
        'town-scoped key sees only its towns.',
      request: { query: CitiesQuerySchema },
      responses: {
        200: { description: 'Cities with their plot counts, by country then name.', schema: CitiesEnvelopeSchema },
      },
    },
    mw,
    (c, { query }) => cityList(c, q(c), query),
  )
}

/** The plots within the radius of the point, nearest first, in the key's scope. */
function plotsNear(c: Context<AppEnv>, s: PlotQueries, query: z.infer<typeof SearchQuerySchema>): Response {
  const key = c.get('apiKey')
  const countries = countriesInScope(key, query.country)
  const plots = s.radius(query.longitude, query.latitude, query.radius, query.limit, countries, scopeOf(key, countries))
  const message = plots.length
    ? `${plural(plots.length, 'plot')} within ${query.radius} m, nearest first${plots.length === query.limit ? ` (limited to ${query.limit})` : ''}`
    : `No plots found within ${query.radius} m of the point`
  return plotsAnswer(c, plots, message)
}

/** The nearest plot to the point within REVERSE_REACH_M, in the key's scope. */
function nearestPlot(c: Context<AppEnv>, s: PlotQueries, query: z.infer<typeof ReverseQuerySchema>): Response {
  const key = c.get('apiKey')
  const countries = countriesInScope(key, query.country)
  const plots = s.reverse(query.longitude, query.latitude, REVERSE_REACH_M, countries, scopeOf(key, countries))
  const message = plots.length
    ? `Nearest plot is ${plots.distanceM(0)} m away`
    : `No plot found within ${REVERSE_REACH_M / 1000} km of the point`
  return plotsAnswer(c, plots, message)
}

/** The plots carrying a number, optionally in one city the key may see. */
function plotsByNumber(
  c: Context<AppEnv>,
  s: PlotQueries,
  number: string,
  query: z.infer<typeof ByNumberQuerySchema>,
): Response {
  const key = c.get('apiKey')
  const countries = countriesInScope(key, query.country)
  if (query.city !== undefined) {
    assertCityPermitted(key, countries, query.city)
    assertCityCountryCovered(key, s.countriesOfCity(query.city), query.city)
  }
  const plotNumber = number.trim()
  const { plots, total } = s.byNumber(plotNumber, query.city, query.limit, countries, scopeOf(key, countries))
  const where = query.city ? ` in ${query.city}` : ''
  const message =
    plots.length < total
      ? `${plots.length} of ${plural(total, 'plot')} numbered ${plotNumber}${where} (the first ${query.limit}: ` +
        `\`limit\` takes up to ${PLOT_LIMIT_MAX}, and \`city\` narrows to one town)`
      : plots.length
        ? `${plural(plots.length, 'plot')} numbered ${plotNumber}${where}`
        : `No plot numbered ${plotNumber} found${where}; the plot lookup routes are ${LOOKUP_ROUTES}`
  return isGeoJson(c) ? plotsGeoJson(c, plots, message) : json(c, { plots, message })
}

/**
 * A town the key's countries do not have but another country does (a Botswana key naming
 * Soweto): 403 CountryNotPermitted, never an empty answer that reads as "no such plot".
 */
function assertCityCountryCovered(key: ApiKeyRecord, countriesWithCity: CountryEnum[], cityUpper: string): void {
  if (countriesWithCity.length === 0 || countriesWithCity.some((c) => key.countries.includes(c))) return
  throw new ApiError(
    'CountryNotPermitted',
    `the town ${cityUpper} is in ${countriesWithCity.join(', ')}, which API key ${key.id} does not cover`,
  )
}

/** The towns of the countries asked (default Botswana where the key has it) that the key may see. */
function cityList(c: Context<AppEnv>, s: PlotQueries, query: z.infer<typeof CitiesQuerySchema>): Response {
  const key = c.get('apiKey')
  let countries: Country[]
  if (query.country === 'ALL') countries = [...key.countries]
  else if (query.country) countries = countriesInScope(key, query.country)
  else countries = key.countries.includes('BOTSWANA') ? ['BOTSWANA'] : [...key.countries]
  const cities = s.cities(countries, scopeOf(key, countries))
  return json(c, {
    cities,
    message: cities.length
      ? `${plural(cities.length, 'city', 'cities')} in ${countries.join(', ')}`
      : `No cities found in ${countries.join(', ')}`,
  })
}
