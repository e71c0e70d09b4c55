/** Products a key can be entitled to; one per API family under `/api/v1`. */
export const PRODUCTS = ['plots', 'parcels', 'encumbrance', 'jurisdiction'] as const
/** A product entitlement carried by an API key. */
export type Product = (typeof PRODUCTS)[number]

/** Countries a key can be scoped to, in the spellings the API uses. */
export const COUNTRIES = ['BOTSWANA', 'SOUTH_AFRICA'] as const
/** A country scope carried by an API key. */
export type Country = (typeof COUNTRIES)[number]

/** Lifecycle of a key: suspended keys can be reinstated, revoked keys never. */
export type KeyStatus = 'active' | 'suspended' | 'revoked'

/** Everything known about an API key except its secret (only a digest of the key is stored). */
export interface ApiKeyRecord {
  /** Public key id (the lookup part of the key), e.g. 'k7Gx2mQp'. */
  id: string
  products: Product[]
  countries: Country[]
  /** Upper-case town names; a country absent here = all its towns. */
  cities: Partial<Record<Country, string[]>>
  /** 'YYYY-MM-DD', the LAST day the key works (inclusive), Africa/Johannesburg calendar; null = no term. */
  expires: string | null
  /** Requests per minute allowed for this key; default 60. */
  ratePerMinute: number
  /**
   * Tile and TileJSON requests per minute, counted apart from `ratePerMinute` (docs/api.md
   * "Rate limits"); null: the server's TILE_RATE_PER_MINUTE.
   */
  tileRatePerMinute: number | null
  /**
   * Bulk job rows a day (docs/api.md "Bulk jobs"), counted apart from the per-minute rates; null:
   * the server's JOBS_ROWS_PER_DAY.
   */
  bulkRowsPerDay: number | null
  status: KeyStatus
  /** ISO timestamp, informational. */
  createdAt: string
  /** A label for people (customer, project), or null. */
  name: string | null
  /** The last day ('YYYY-MM-DD', Africa/Johannesburg) a request verified with the key, or null. */
  lastUsed: string | null
}

/** Outcome of verifying a presented key: a discriminated union, never a thrown error. */
export type VerifyResult =
  | { ok: true; key: ApiKeyRecord }
  | { ok: false; code: 'MISSING' | 'MALFORMED' | 'NOT_FOUND' }
  | { ok: false; code: 'SUSPENDED' | 'REVOKED'; key: ApiKeyRecord }
  | { ok: false; code: 'EXPIRED'; key: ApiKeyRecord; expires: string }
  /** a shared store (Redis) that cannot say now whether the key is valid; `reason` is for the log, not the client */
  | { ok: false; code: 'UNAVAILABLE'; reason: string }

/**
 * What the server needs: behind an interface so a Redis-backed store can replace SQLite for
 * several instances. A store that can answer at once returns the result itself (no promise to
 * wait for on every request); a remote one returns a promise.
 */
export interface KeyVerifier {
  verify(rawKey: string | undefined, now: Date | number): VerifyResult | Promise<VerifyResult>
  close(): void
}

/** Type guard: is `s` one of {@link PRODUCTS}? */
export function isProduct(s: string): s is Product {
  return (PRODUCTS as readonly string[]).includes(s)
}

/** Type guard: is `s` one of {@link COUNTRIES}? */
export function isCountry(s: string): s is Country {
  return (COUNTRIES as readonly string[]).includes(s)
}
