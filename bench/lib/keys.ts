/**
 * A temporary key store for the servers under load: one fresh key per load run, each with the
 * store's highest rate (1 000 000 a minute, fixed window), so no run can meet the limiter.
 *
 * @module
 */
import { MAX_RATE_PER_MINUTE } from '../../src/auth/key-options.js'
import { SqliteKeyStore } from '../../src/auth/key-store.js'
import type { Product } from '../../src/auth/types.js'

export class BenchKeys {
  private readonly store: SqliteKeyStore

  constructor(readonly path: string) {
    this.store = new SqliteKeyStore(path)
  }

  /** A new key for the given products (default plots), both countries, no town scope. */
  issue(products: Product[] = ['plots']): string {
    return this.store.issue({
      products,
      countries: ['BOTSWANA', 'SOUTH_AFRICA'],
      ratePerMinute: MAX_RATE_PER_MINUTE,
      tileRatePerMinute: MAX_RATE_PER_MINUTE,
    }).key
  }

  close(): void {
    this.store.close()
  }
}
