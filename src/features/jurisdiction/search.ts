/**
 * Fuzzy name search over the boundary names: an exact code first, then the trigram index
 * (pg_trgm similarity), only records of the wanted types in force on the date.
 */
import type { BoundaryType } from '../../data/jurisdiction-format.js'
import { inForce, type BoundaryRow } from './records.js'
import type { JurisdictionStore } from './store.js'
import { TrigramIndex } from './trigram.js'

export interface SearchHit {
  row: BoundaryRow
  similarity: number
}

/** The name search of one open dataset. */
export class NameSearch {
  // the trigram index is built with the service (~60-80 ms at national scale): built later (on
  // a timer, or by the first search) it stalled whatever requests were in flight
  private readonly trigram: TrigramIndex

  constructor(private readonly store: JurisdictionStore) {
    this.trigram = new TrigramIndex(store.all.map((r) => r.name))
  }

  /** Up to `limit` records of `types` in force on `d` whose code is `q` or whose name is like it, best first. */
  find(q: string, types: readonly BoundaryType[], d: string, limit: number): SearchHit[] {
    const { all } = this.store
    const wanted = new Set(types)
    const accept = (i: number) => {
      const r = all[i]
      return wanted.has(r.type) && inForce(r, d)
    }
    const out: SearchHit[] = []
    const seen = new Set<number>()
    // an exact code (JHB, DC48, 79800001) comes first
    const code = q.trim().toUpperCase()
    for (const t of types) {
      const r = this.store.byCode(t, code, d)
      if (r && out.length < limit) {
        out.push({ row: r, similarity: 1 })
        seen.add(r.id)
      }
    }
    for (const hit of this.trigram.search(q, { limit: limit + out.length, filter: accept })) {
      const r = all[hit.id]
      if (seen.has(r.id) || out.length >= limit) continue
      out.push({ row: r, similarity: hit.similarity })
    }
    return out
  }
}
