/**
 * The terms a key is issued with (products, countries, towns, expiry, rate) and the rules that
 * check and normalise them, shared by the key store and the `keys` CLI.
 */
import { isValidIsoDate } from './dates.js'
import { type ApiKeyRecord, COUNTRIES, PRODUCTS, isCountry, isProduct, type Country, type Product } from './types.js'

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
  /** Tile requests per minute; absent or null: the server's default (TILE_RATE_PER_MINUTE). */
  tileRatePerMinute?: number | null
  /** Bulk job rows a day; absent or null: the server's default (JOBS_ROWS_PER_DAY). */
  bulkRowsPerDay?: number | null
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

/** A tile allowance: an integer in 1..{@link MAX_RATE_PER_MINUTE}, or null for the server's default. */
export function normaliseTileRate(n: number | null): number | null {
  if (n === null) return null
  if (!Number.isInteger(n) || n < 1 || n > MAX_RATE_PER_MINUTE) {
    throw new InvalidKeyOptionsError(`invalid tile rate ${n} (expected an integer 1..${MAX_RATE_PER_MINUTE})`)
  }
  return n
}

/** The most bulk job rows a day a key may be given. */
export const MAX_BULK_ROWS_PER_DAY = 1_000_000_000

/** A bulk allowance: an integer in 1..{@link MAX_BULK_ROWS_PER_DAY}, or null for the server's default. */
export function normaliseBulkRows(n: number | null): number | null {
  if (n === null) return null
  if (!Number.isInteger(n) || n < 1 || n > MAX_BULK_ROWS_PER_DAY) {
    throw new InvalidKeyOptionsError(`invalid bulk rows a day ${n} (expected an integer 1..${MAX_BULK_ROWS_PER_DAY})`)
  }
  return n
}

/** The terms of a key to issue, checked and normalised (the SQLite and Redis stores store these). */
export function normaliseIssue(opts: IssueKeyOptions): {
  products: Product[]
  countries: Country[]
  cities: Partial<Record<Country, string[]>>
  expires: string | null
  ratePerMinute: number
  tileRatePerMinute: number | null
  bulkRowsPerDay: number | null
  name: string | null
} {
  const products = normaliseProducts(opts.products)
  const countries = normaliseCountries(opts.countries)
  return {
    products,
    countries,
    cities: normaliseCities(opts.cities ?? {}, countries),
    expires: normaliseExpires(opts.expires ?? null),
    ratePerMinute: normaliseRate(opts.ratePerMinute ?? DEFAULT_RATE_PER_MINUTE),
    tileRatePerMinute: normaliseTileRate(opts.tileRatePerMinute ?? null),
    bulkRowsPerDay: normaliseBulkRows(opts.bulkRowsPerDay ?? null),
    name: normaliseName(opts.name),
  }
}

/** What `update` may change: what a key grants, and its name. */
export type GrantChanges = Partial<
  Pick<
    IssueKeyOptions,
    'products' | 'countries' | 'cities' | 'ratePerMinute' | 'tileRatePerMinute' | 'bulkRowsPerDay' | 'name'
  >
>

/**
 * What `current` grants after `changes`: what is not given stays as it was, towns of a country
 * the key no longer covers are dropped; `name` undefined keeps the name, null or '' clears it.
 */
export function changedGrants(
  current: Pick<
    ApiKeyRecord,
    'products' | 'countries' | 'cities' | 'ratePerMinute' | 'tileRatePerMinute' | 'bulkRowsPerDay' | 'name'
  >,
  changes: GrantChanges,
): Omit<ReturnType<typeof normaliseIssue>, 'expires'> {
  const products = normaliseProducts(changes.products ?? current.products)
  const countries = normaliseCountries(changes.countries ?? current.countries)
  const kept = Object.fromEntries(
    Object.entries(changes.cities ?? current.cities).filter(([c]) => countries.includes(c as Country)),
  )
  return {
    products,
    countries,
    cities: normaliseCities(kept, countries),
    ratePerMinute: normaliseRate(changes.ratePerMinute ?? current.ratePerMinute),
    tileRatePerMinute: normaliseTileRate(
      changes.tileRatePerMinute === undefined ? current.tileRatePerMinute : changes.tileRatePerMinute,
    ),
    bulkRowsPerDay: normaliseBulkRows(
      changes.bulkRowsPerDay === undefined ? current.bulkRowsPerDay : changes.bulkRowsPerDay,
    ),
    name: changes.name === undefined ? current.name : normaliseName(changes.name),
  }
}

/** A rotation's overlap: a whole number of days from 0 to 90. */
export function checkOverlapDays(overlapDays: number): void {
  if (!Number.isInteger(overlapDays) || overlapDays < 0 || overlapDays > 90)
    throw new InvalidKeyOptionsError('--overlap-days must be a whole number from 0 to 90')
}
