import type { RouteGuard } from '../http/env.js'
import { ApiError, storeUnavailable } from '../http/errors.js'
import type { ApiKeyRecord, Country, KeyVerifier, Product, VerifyResult } from './types.js'

export const API_KEY_HEADER = 'X-API-KEY'

/**
 * The key a presented `X-API-KEY` value verifies to, or the 401 to answer (thrown): the only
 * place a verification result becomes a 401. Messages never echo the key. Synchronous when the
 * store answers at once (the SQLite store), so the hot path waits for no promise.
 */
export function authenticate(
  keys: KeyVerifier,
  raw: string | undefined,
  now: Date | number,
): ApiKeyRecord | Promise<ApiKeyRecord> {
  const r = keys.verify(raw, now)
  return r instanceof Promise ? r.then(keyOrThrow) : keyOrThrow(r)
}

function keyOrThrow(r: VerifyResult): ApiKeyRecord {
  if (r.ok) return r.key
  switch (r.code) {
    case 'MISSING':
      throw new ApiError(
        'ApiKeyMissing',
        `the ${API_KEY_HEADER} header is missing: the API routes under /api/v1 need an API key (only openapi.json does not)`,
      )
    case 'MALFORMED':
    case 'NOT_FOUND':
      throw new ApiError('ApiKeyInvalid', 'the API key is malformed or not recognised')
    case 'SUSPENDED':
      throw new ApiError('ApiKeySuspended', `API key ${r.key.id} is suspended`)
    case 'REVOKED':
      throw new ApiError('ApiKeySuspended', `API key ${r.key.id} has been revoked; ask for a replacement key`)
    case 'EXPIRED':
      throw new ApiError('ApiKeyExpired', `API key ${r.key.id} expired: its term ended on ${r.expires}`)
    case 'UNAVAILABLE':
      throw storeUnavailable('the key store is unavailable, so this API key cannot be checked')
  }
}

/**
 * Fails closed: a key must name the product. Run after the key is verified, so a request
 * without a key is a 401, never a 403 (the openstatus require-scope rule).
 */
export function requireProduct(product: Product): RouteGuard {
  return function requireProductGuard(c) {
    const key = c.get('apiKey')
    if (!key.products.includes(product)) {
      throw new ApiError('ProductNotPermitted', `API key ${key.id} does not include the ${product} product`)
    }
  }
}

/** For the South-Africa-only services: a key without SOUTH_AFRICA gets 403 CountryNotPermitted. */
export function requireCountry(country: Country): RouteGuard {
  return function requireCountryGuard(c) {
    const key = c.get('apiKey')
    if (!key.countries.includes(country)) {
      throw new ApiError(
        'CountryNotPermitted',
        `API key ${key.id} does not cover ${country}; this service serves ${country} only`,
      )
    }
  }
}

/** The countries a request covers: the one asked for (403 when outside the key) or all the key's. */
export function countriesInScope(key: ApiKeyRecord, requested: Country | undefined): Country[] {
  if (requested === undefined) return [...key.countries]
  if (!key.countries.includes(requested)) {
    throw new ApiError(
      'CountryNotPermitted',
      `API key ${key.id} does not cover ${requested} (it covers ${key.countries.join(', ')})`,
    )
  }
  return [requested]
}

/** Upper-case town names the key allows in a country, or null when the key is not town-scoped there. */
export function citiesAllowed(key: ApiKeyRecord, country: Country): ReadonlySet<string> | null {
  const list = key.cities[country]
  return list?.length ? new Set(list) : null
}

/** 403 CityNotPermitted unless the city is open to the key in at least one country in scope. */
export function assertCityPermitted(key: ApiKeyRecord, countries: Country[], cityUpper: string): void {
  const ok = countries.some((country) => {
    const allowed = citiesAllowed(key, country)
    return allowed === null || allowed.has(cityUpper)
  })
  if (!ok) throw new ApiError('CityNotPermitted', `API key ${key.id} does not cover the town ${cityUpper}`)
}
