/**
 * The keys CLI's option values, checked before the store is touched, so a typo never creates
 * or changes anything. A mistake is a UsageError (exit code 2). The options themselves are
 * parsed by the shared parser (src/cli/) from the table in cli-spec.ts.
 */
import { UsageError } from '../cli/spec.js'
import { isValidIsoDate } from './dates.js'
import { MAX_BULK_ROWS_PER_DAY, MAX_RATE_PER_MINUTE } from './key-options.js'
import { COUNTRIES, PRODUCTS, isCountry, isProduct, type Country, type Product } from './types.js'

export { UsageError }

/** The option values of one command line, by long name (`true` for a boolean flag given). */
export type Flags = Map<string, string | true>

export function required(flags: Flags, name: string): string {
  if (!flags.has(name)) throw new UsageError(`missing required flag '--${name}'`)
  return value(flags, name)
}

export function value(flags: Flags, name: string): string {
  const v = flags.get(name)
  if (typeof v !== 'string') throw new UsageError(`flag '--${name}' needs a value`)
  return v.trim()
}

export function list(raw: string, flag: string): string[] {
  const items = raw.split(',').map((s) => s.trim())
  if (items.some((s) => s === '')) throw new UsageError(`empty entry in --${flag} '${raw}'`)
  return items
}

export function parseProducts(raw: string): Product[] {
  return list(raw, 'products').map((p) => {
    const v = p.toLowerCase()
    if (!isProduct(v)) throw new UsageError(`unknown product '${p}' (expected one of ${PRODUCTS.join(', ')})`)
    return v
  })
}

export function toCountry(raw: string): Country {
  const v = raw
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_')
  if (!isCountry(v)) throw new UsageError(`unknown country '${raw}' (expected one of ${COUNTRIES.join(', ')})`)
  return v
}

export function parseCountries(raw: string): Country[] {
  return list(raw, 'countries').map(toCountry)
}

export function parseCities(raw: string, countries: Country[]): Partial<Record<Country, string[]>> {
  const out: Partial<Record<Country, string[]>> = {}
  const add = (country: Country, city: string) => {
    const name = city.trim().replace(/\s+/g, ' ').toUpperCase()
    if (name === '') throw new UsageError(`empty city name in --cities '${raw}'`)
    const towns = (out[country] ??= [])
    if (!towns.includes(name)) towns.push(name)
  }
  for (const entry of list(raw, 'cities')) {
    const colon = entry.indexOf(':')
    if (colon === -1) {
      for (const c of countries) add(c, entry)
      continue
    }
    const country = toCountry(entry.slice(0, colon))
    if (!countries.includes(country)) {
      throw new UsageError(`--cities '${entry}' names ${country}, which is not in --countries (${countries.join(',')})`)
    }
    add(country, entry.slice(colon + 1))
  }
  return out
}

export function parseExpires(raw: string): string {
  if (!isValidIsoDate(raw)) throw new UsageError(`invalid --expires '${raw}' (expected a real date YYYY-MM-DD)`)
  return raw
}

export function parseRate(raw: string): number {
  const n = /^\d{1,7}$/.test(raw) ? Number(raw) : NaN
  if (!(n >= 1 && n <= MAX_RATE_PER_MINUTE)) {
    throw new UsageError(`invalid --rate '${raw}' (expected an integer 1..${MAX_RATE_PER_MINUTE})`)
  }
  return n
}

/** `--tile-rate`: an integer per-minute tile allowance, or `default` (null: the server's TILE_RATE_PER_MINUTE). */
export function parseTileRate(raw: string): number | null {
  if (raw === 'default') return null
  const n = /^\d{1,7}$/.test(raw) ? Number(raw) : NaN
  if (!(n >= 1 && n <= MAX_RATE_PER_MINUTE)) {
    throw new UsageError(`invalid --tile-rate '${raw}' (expected an integer 1..${MAX_RATE_PER_MINUTE} or 'default')`)
  }
  return n
}

/** `--bulk-rows-per-day`: an integer daily bulk job allowance, or `default` (null: the server's JOBS_ROWS_PER_DAY). */
export function parseBulkRows(raw: string): number | null {
  if (raw === 'default') return null
  const n = /^\d{1,10}$/.test(raw) ? Number(raw) : NaN
  if (!(n >= 1 && n <= MAX_BULK_ROWS_PER_DAY)) {
    throw new UsageError(
      `invalid --bulk-rows-per-day '${raw}' (expected an integer 1..${MAX_BULK_ROWS_PER_DAY} or 'default')`,
    )
  }
  return n
}

export function parseId(raw: string): string {
  // Anything that is not a plausible id would only ever be "not found"; say why instead.
  if (!/^[0-9A-Za-z]{1,64}$/.test(raw))
    throw new UsageError(`invalid --id '${raw}' (a key id is letters and digits, e.g. k7Gx2mQp)`)
  return raw
}
