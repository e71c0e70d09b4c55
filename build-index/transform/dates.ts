/** Source date fields to ISO dates, as every domain's transform reads them. */

/** YYYYMMDD or YYYY-MM-DD to YYYY-MM-DD; anything else null. */
export function normaliseDate(v: unknown): string | null {
  const s = v === null || v === undefined ? '' : String(v).trim()
  if (!s) return null
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(s)
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null
}
