/**
 * The terms a key is issued with (products, countries, towns, expiry, rate) and the rules that
 * check and normalise them, shared by the key store and the `keys` CLI.
 */
import { isValidIsoDate } from './dates.js'
import { COUNTRIES, PRODUCTS, isCountry, isProduct, type Country, type Product } from './types.js'

/** Default per-key allowance, the spec's shown policy `60;w=60`. */
export const DEFAULT_RATE_PER_MINUTE = 60
/** Highest per-minute allowance a key may be given. */
export const MAX_RATE_PER_MINUTE = 1_000_000

/** Thrown by the key store's `issue`, `redate` and `setRate` (key-store.ts) for invalid scopes, dates or rates. */
export class InvalidKeyOptionsError extends Error {
  override readonly name = 'InvalidKeyOptionsError'
}

/** Scopes and terms of a key to issue. Names are normalised (deduplicated, canonical order, towns upper-cased). */
export interface IssueKeyOptions {
  products: Product[]
  countries: Country[]
  /** Towns per country; a country absent here = all its towns. Every country must be in `countries`. */
  cities?: Partial<Record<Country, string[]>>
  /** Last day the key works ('YYYY-MM-DD', Africa/Johannesburg), or null/absent for no term. */
  expires?: string | null
  /** Defaults to {@link DEFAULT_RATE_PER_MINUTE}. */
  ratePerMinute?: number
  /** A label for people; absent or null for none. */
  name?: string | null
}

/** A key's name: trimmed, at most 100 characters, no control characters; null for none. */
export function normaliseName(name: string | null | undefined): string | null {
  if (name === null || name === undefined) return null
  const n = name.trim().replace(/\s+/g, ' ')
  if (n === '') return null
  if (n.length > 100) throw new InvalidKeyOptionsError('a key name is at most 100 characters')
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(n)) throw new InvalidKeyOptionsError('a key name has no control characters')
  return n
}

/** Known products, deduplicated, in canonical order; at least one. */
export function normaliseProducts(products: readonly string[]): Product[] {
  if (!Array.isArray(products) || products.length === 0)
    throw new InvalidKeyOptionsError('a key needs at least one product')
  for (const p of products) {
    if (!isProduct(p)) throw new InvalidKeyOptionsError(`unknown product '${p}' (expected ${PRODUCTS.join(', ')})`)
  }
  return PRODUCTS.filter((p) => products.includes(p))
}

/** Known countries, deduplicated, in canonical order; at least one. */
export function normaliseCountries(countries: readonly string[]): Country[] {
  if (!Array.isArray(countries) || countries.length === 0)
    throw new InvalidKeyOptionsError('a key needs at least one country')
  for (const c of countries) {
    if (!isCountry(c)) throw new InvalidKeyOptionsError(`unknown country '${c}' (expected ${COUNTRIES.join(', ')})`)
  }
  return COUNTRIES.filter((c) => countries.includes(c))
}

/** Town lists per country of the key: trimmed, upper-cased, deduplicated, none empty. */
export function normaliseCities(
  cities: Partial<Record<string, string[]>>,
  countries: Country[],
): Partial<Record<Country, string[]>> {
  const out: Partial<Record<Country, string[]>> = {}
  for (const [country, towns] of Object.entries(cities)) {
    if (towns === undefined) continue
    if (!isCountry(country)) throw new InvalidKeyOptionsError(`unknown country '${country}' in cities`)
    if (!countries.includes(country))
      throw new InvalidKeyOptionsError(`cities given for ${country}, which is not one of the key's countries`)
    if (!Array.isArray(towns) || towns.length === 0) {
      throw new InvalidKeyOptionsError(`empty town list for ${country} (omit the country to allow all its towns)`)
    }
    const names: string[] = []
    for (const t of towns) {
      const name = typeof t === 'string' ? t.trim().replace(/\s+/g, ' ').toUpperCase() : ''
      if (name === '') throw new InvalidKeyOptionsError(`empty town name for ${country}`)
      if (!names.includes(name)) names.push(name)
    }
    out[country] = names
  }
  return out
}

/** A real 'YYYY-MM-DD' date, or null for no term. */
export function normaliseExpires(expires: string | null): string | null {
  if (expires === null) return null
  if (!isValidIsoDate(expires))
    throw new InvalidKeyOptionsError(`invalid expiry date '${expires}' (expected a real date YYYY-MM-DD)`)
  return expires
}

/** An integer per-minute allowance in 1..{@link MAX_RATE_PER_MINUTE}. */
export function normaliseRate(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > MAX_RATE_PER_MINUTE) {
    throw new InvalidKeyOptionsError(`invalid rate ${n} (expected an integer 1..${MAX_RATE_PER_MINUTE})`)
  }
  return n
}
