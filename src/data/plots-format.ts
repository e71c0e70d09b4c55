/** The plot domain's files inside a dataset; shared by build-index (writer) and the server (reader). */
export const PLOT_COUNTRIES = ['botswana', 'south_africa'] as const
export type PlotCountry = (typeof PLOT_COUNTRIES)[number]

export const PLOT_FILES: Record<PlotCountry, { sqlite: string; kdbush: string; cityIds: string }> = {
  botswana: { sqlite: 'plots/botswana.sqlite', kdbush: 'plots/botswana.kdbush', cityIds: 'plots/botswana.city-ids.u32' },
  south_africa: { sqlite: 'plots/south_africa.sqlite', kdbush: 'plots/south_africa.kdbush', cityIds: 'plots/south_africa.city-ids.u32' },
}

/** Record ids are global: Botswana plots first in source order, then South African erven. */
export const PLOT_COUNTRY_ENUM: Record<PlotCountry, 'BOTSWANA' | 'SOUTH_AFRICA'> = { botswana: 'BOTSWANA', south_africa: 'SOUTH_AFRICA' }
