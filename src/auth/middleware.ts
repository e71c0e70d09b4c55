import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../http/env.js'
import { ApiError } from '../http/errors.js'
import type { ApiKeyRecord, Country, KeyVerifier, Product } from './types.js'

const HEADER = 'X-API-KEY'

/**
 * Verifies `X-API-KEY` and sets `apiKey`; the only place a verification result becomes a 401.
 * Messages never echo the key.
 */
export function requireApiKey(keys: KeyVerifier, clock: () => Date | number = Date.now): MiddlewareHandler<AppEnv> {
  return async function requireApiKeyMiddleware(c, next) {
    const raw = c.req.header(HEADER)
    const r = await keys.verify(raw, clock())
    if (!r.ok) {
      switch (r.code) {
        case 'MISSING':
          throw new ApiError('ApiKeyMissing', `the ${HEADER} header is missing: every /api/v1 request needs an API key`)
        case 'MALFORMED':
        case 'NOT_FOUND':
          throw new ApiError('ApiKeyInvalid', 'the API key is malformed or not recognised')
        case 'SUSPENDED':
          throw new ApiError('ApiKeySuspended', `API key ${r.key.id} is suspended`)
        case 'REVOKED':
          throw new ApiError('ApiKeySuspended', `API key ${r.key.id} has been revoked; ask for a replacement key`)
        case 'EXPIRED':
          throw new ApiError('ApiKeyExpired', `API key ${r.key.id} expired: its term ended on ${r.expires}`)
      }
    }
    c.set('apiKey', r.key)
    await next()
  }
}

/**
 * Fails closed: a key must name the product. Mounted after `requireApiKey`, so a request
 * without a key is a 401, never a 403 (the openstatus require-scope rule).
 */
export function requireProduct(product: Product): MiddlewareHandler<AppEnv> {
  return async function requireProductMiddleware(c, next) {
    const key = c.get('apiKey')
    if (!key.products.includes(product)) {
      throw new ApiError('ProductNotPermitted', `API key ${key.id} does not include the ${product} product`)
    }
    await next()
  }
}

/** For the South-Africa-only services: a key without SOUTH_AFRICA gets 403 CountryNotPermitted. */
export function requireCountry(country: Country): MiddlewareHandler<AppEnv> {
  return async function requireCountryMiddleware(c, next) {
    const key = c.get('apiKey')
    if (!key.countries.includes(country)) {
      throw new ApiError('CountryNotPermitted', `API key ${key.id} does not cover ${country}; this service serves ${country} only`)
    }
    await next()
  }
}

/** The countries a request covers: the one asked for (403 when outside the key) or all the key's. */
export function countriesInScope(key: ApiKeyRecord, requested: Country | undefined): Country[] {
  if (requested === undefined) return [...key.countries]
  if (!key.countries.includes(requested)) {
    throw new ApiError('CountryNotPermitted', `API key ${key.id} does not cover ${requested} (it covers ${key.countries.join(', ')})`)
  }
  return [requested]
}

/** Upper-case town names the key allows in a country, or null when the key is not town-scoped there. */
export function citiesAllowed(key: ApiKeyRecord, country: Country): ReadonlySet<string> | null {
  const list = key.cities[country]
  return list && list.length ? new Set(list) : null
}

/** 403 CityNotPermitted unless the city is open to the key in at least one country in scope. */
export function assertCityPermitted(key: ApiKeyRecord, countries: Country[], cityUpper: string): void {
  const ok = countries.some((country) => {
    const allowed = citiesAllowed(key, country)
    return allowed === null || allowed.has(cityUpper)
  })
  if (!ok) throw new ApiError('CityNotPermitted', `API key ${key.id} does not cover the town ${cityUpper}`)
}
