/** What the keys CLI prints about a key: its description, the list table, a change report. */
import { johannesburgDate } from './dates.js'
import type { ApiKeyRecord } from './types.js'

export function citiesText(r: ApiKeyRecord): string {
  const parts = r.countries.map((c) => `${c}:${r.cities[c]?.join(',') ?? '*'}`)
  return Object.keys(r.cities).length === 0 ? 'all' : parts.join(' ')
}

export function expiresText(r: ApiKeyRecord, now: Date): string {
  if (r.expires === null) return 'never'
  return johannesburgDate(now) > r.expires ? `${r.expires} (expired)` : r.expires
}

export function describe(r: ApiKeyRecord, now: Date): [string, string][] {
  return [
    ['id', r.id],
    ...(r.name === null ? [] : ([['name', r.name]] as [string, string][])),
    ['status', r.status],
    ['products', r.products.join(', ')],
    ['countries', r.countries.join(', ')],
    ['cities', citiesText(r)],
    ['expires', r.expires === null ? 'never' : `${expiresText(r, now)} (last day, Africa/Johannesburg)`],
    ['rate', `${r.ratePerMinute}/min`],
    ['tile rate', r.tileRatePerMinute === null ? 'server default' : `${r.tileRatePerMinute}/min`],
    ['bulk rows', r.bulkRowsPerDay === null ? 'server default' : `${r.bulkRowsPerDay}/day`],
    ['last used', r.lastUsed ?? 'never'],
  ]
}

export function row(r: ApiKeyRecord, now: Date): string[] {
  return [
    r.id,
    r.name ?? '-',
    r.status,
    r.products.join(','),
    r.countries.join(','),
    citiesText(r),
    expiresText(r, now),
    String(r.ratePerMinute),
    r.bulkRowsPerDay === null ? 'default' : String(r.bulkRowsPerDay),
    r.lastUsed ?? 'never',
  ]
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd()
  return [line(header), ...rows.map(line)].join('\n')
}

export function report(
  io: { out(s: string): void },
  json: boolean,
  message: string,
  record: ApiKeyRecord,
  now: Date,
): void {
  if (json) {
    io.out(JSON.stringify(record))
    return
  }
  io.out([message, ...describe(record, now).map(([k, v]) => `  ${(k + ':').padEnd(11)} ${v}`)].join('\n'))
}
