/**
 * The plot domain's files inside a dataset, shared by build-index (writer) and the server
 * (reader). Per country (`botswana`, `south_africa`), item i of every file is the country's
 * i-th plot in source order (SQLite row id i + 1):
 *
 * - `plots/<country>.sqlite`: table `plot` (number, position, city id) and `city` (a township
 *   within its region, with its plot count).
 * - `plots/<country>.kdbush`: KDBush point index over [lon, lat]. It cannot hold zero items: an empty layer is one
 *   unreachable point and
 *   `rows: 0` in the manifest.
 * - `plots/<country>.city-ids.u32`: per plot, its city id (no header), so a town-scoped key
 *   filters index hits without SQLite.
 * - `plots/<country>.numbers`: the plot numbers as a table of strings ({@link encodeStrings}:
 *   u32 count, then offsets), so radius and reverse answers read no SQLite row.
 *
 * Headers, checked when a dataset is opened (file-headers.ts): the `.sqlite` file SQLite's own,
 * the `.kdbush` KDBush v4's (magic 0xdb, then version and array type); the `.u32` array and the
 * string table have none.
 *
 * Record ids served are global: Botswana first, then South Africa (the manifest's `id_offset`).
 */
export const PLOT_COUNTRIES = ['botswana', 'south_africa'] as const
export type PlotCountry = (typeof PLOT_COUNTRIES)[number]

export const PLOT_FILES: Record<PlotCountry, { sqlite: string; kdbush: string; cityIds: string; numbers: string }> = {
  botswana: {
    sqlite: 'plots/botswana.sqlite',
    kdbush: 'plots/botswana.kdbush',
    cityIds: 'plots/botswana.city-ids.u32',
    numbers: 'plots/botswana.numbers',
  },
  south_africa: {
    sqlite: 'plots/south_africa.sqlite',
    kdbush: 'plots/south_africa.kdbush',
    cityIds: 'plots/south_africa.city-ids.u32',
    numbers: 'plots/south_africa.numbers',
  },
}

/**
 * The tables of `plots/<country>.sqlite`. Kept byte for byte as first written (SQLite stores
 * each statement's text in `sqlite_master`): do not reformat.
 */
export const PLOT_SCHEMA_SQL = `
    CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT NOT NULL, region TEXT NOT NULL, plot_count INTEGER NOT NULL);
    CREATE TABLE plot (id INTEGER PRIMARY KEY, plot_number TEXT NOT NULL, latitude REAL NOT NULL, longitude REAL NOT NULL, city_id INTEGER NOT NULL);
  `

/**
 * The indexes of `plots/<country>.sqlite`, created after the bulk load: case-insensitive number
 * and city lookups (the specs' rule); numbers are ASCII in practice.
 */
export const PLOT_INDEX_SQL = `
    CREATE INDEX plot_number_nocase ON plot (plot_number COLLATE NOCASE, city_id);
    CREATE INDEX city_name_nocase ON city (name COLLATE NOCASE);
  `

/**
 * A table of strings in item order (the plot numbers, so radius and reverse answers need no
 * SQLite row): u32 count n, u32 offsets[n + 1] into the UTF-8 bytes that follow. Little-endian.
 */
export function encodeStrings(bytes: Uint8Array, offsets: Uint32Array, n: number): Uint8Array {
  const head = 4 + 4 * (n + 1)
  const out = new Uint8Array(head + offsets[n])
  const view = new DataView(out.buffer)
  view.setUint32(0, n, true)
  for (let i = 0; i <= n; i++) view.setUint32(4 + 4 * i, offsets[i], true)
  out.set(bytes.subarray(0, offsets[n]), head)
  return out
}

/** Reader of {@link encodeStrings}: `get(i)` decodes item i; its UTF-8 is `bytes[offsets[i], offsets[i + 1])`. */
export function decodeStrings(data: ArrayBuffer): {
  count: number
  get(i: number): string
  bytes: Uint8Array
  offsets: Uint32Array
} {
  const view = new DataView(data)
  const n = view.getUint32(0, true)
  const offsets = new Uint32Array(data, 4, n + 1)
  const bytes = Buffer.from(data, 4 + 4 * (n + 1))
  return { count: n, get: (i) => bytes.toString('utf8', offsets[i], offsets[i + 1]), bytes, offsets }
}

/** Record ids are global: Botswana plots first in source order, then South African erven. */
export const PLOT_COUNTRY_ENUM: Record<PlotCountry, 'BOTSWANA' | 'SOUTH_AFRICA'> = {
  botswana: 'BOTSWANA',
  south_africa: 'SOUTH_AFRICA',
}
