/** The plot domain's files inside a dataset; shared by build-index (writer) and the server (reader). */
export const PLOT_COUNTRIES = ['botswana', 'south_africa'] as const
export type PlotCountry = (typeof PLOT_COUNTRIES)[number]

export const PLOT_FILES: Record<PlotCountry, { sqlite: string; kdbush: string; cityIds: string; numbers: string }> = {
  botswana: { sqlite: 'plots/botswana.sqlite', kdbush: 'plots/botswana.kdbush', cityIds: 'plots/botswana.city-ids.u32', numbers: 'plots/botswana.numbers' },
  south_africa: {
    sqlite: 'plots/south_africa.sqlite',
    kdbush: 'plots/south_africa.kdbush',
    cityIds: 'plots/south_africa.city-ids.u32',
    numbers: 'plots/south_africa.numbers',
  },
}

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
export function decodeStrings(data: ArrayBuffer): { count: number; get(i: number): string; bytes: Uint8Array; offsets: Uint32Array } {
  const view = new DataView(data)
  const n = view.getUint32(0, true)
  const offsets = new Uint32Array(data, 4, n + 1)
  const bytes = Buffer.from(data, 4 + 4 * (n + 1))
  return { count: n, get: (i) => bytes.toString('utf8', offsets[i], offsets[i + 1]), bytes, offsets }
}

/** Record ids are global: Botswana plots first in source order, then South African erven. */
export const PLOT_COUNTRY_ENUM: Record<PlotCountry, 'BOTSWANA' | 'SOUTH_AFRICA'> = { botswana: 'BOTSWANA', south_africa: 'SOUTH_AFRICA' }
