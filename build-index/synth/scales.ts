/**
 * Size presets for the generator. Later layers (cadastre, encumbrances, boundaries) add their own
 * fields here so one `--scale` drives every layer.
 *
 * @module
 */

/** Names accepted by `--scale`. */
export const SCALE_NAMES = ['tiny', 'sample', 'national'] as const
/** A preset name. */
export type ScaleName = (typeof SCALE_NAMES)[number]

/** How much of everything to generate. */
export interface ScalePreset {
  name: ScaleName
  /** Botswana plot rows in `botswana/plots.csv`, spread over the 26 towns by population. */
  botswanaPlots: number
  /** Target plots per named extension / ward in a Botswana town. */
  plotsPerExtension: number
  /** South African erf rows in `south_africa/erven.csv`, portions included. */
  southAfricaErven: number
  /** South African townships (WOF locality names), spread over the nine provinces. */
  southAfricaTownships: number
  /**
   * How many township names that WOF has in two or more provinces to include first;
   * `'all'` takes every such name.
   */
  repeatedTownshipNames: number | 'all'
  /** At most this many provinces per repeated name (keeps small scales varied). */
  maxProvincesPerRepeatedName: number
  /** Smallest township, in erf rows. */
  minErvenPerTownship: number
  /**
   * Share of townships in the six holding provinces (FS, GP, KZN, LP, MP, NW) that get an
   * agricultural-holding scheme; the first township of each such province always gets one.
   */
  holdingSchemeShare: number
  /** Multiplies each province's beacon keep rate (national keeps fewer to bound the file size). */
  beaconShare: number
  /** One parcel in this many is written with a repairable defect (wrong winding, duplicate vertex, open ring). */
  repairableEvery: number
  /** Erf-level servitudes (rights of way, sewers, drainage, lines on erf boundaries …) per 100 current erven. */
  erfServitudesPer100Erven: number
  /** Linear corridors (roads, railways, pipelines, power lines) per township, on average. */
  corridorsPerTownship: number
  /** Multiplies the per-farm-cell chances of mineral rights, leases, state land, boundaries and farm servitudes. */
  farmEncumbranceShare: number
}

/**
 * The presets.
 * - tiny: a few thousand rows, for tests (well under a second).
 * - sample: tens of thousands, the `npm start` default.
 * - national: real national counts (docs/domain.md 1.5, 3.2 order of magnitude), streamed to disk.
 */
export const SCALES: Readonly<Record<ScaleName, ScalePreset>> = {
  tiny: {
    name: 'tiny',
    botswanaPlots: 1_500,
    plotsPerExtension: 16,
    southAfricaErven: 2_400,
    southAfricaTownships: 18,
    repeatedTownshipNames: 4,
    maxProvincesPerRepeatedName: 2,
    minErvenPerTownship: 40,
    holdingSchemeShare: 0.3,
    beaconShare: 1,
    // more often than the 1 in ~2000 of the bigger scales, so the tests see every kind
    repairableEvery: 400,
    erfServitudesPer100Erven: 8,
    corridorsPerTownship: 2,
    farmEncumbranceShare: 1,
  },
  sample: {
    name: 'sample',
    botswanaPlots: 20_000,
    plotsPerExtension: 150,
    southAfricaErven: 60_000,
    southAfricaTownships: 240,
    repeatedTownshipNames: 40,
    maxProvincesPerRepeatedName: 3,
    minErvenPerTownship: 60,
    holdingSchemeShare: 0.25,
    beaconShare: 1,
    repairableEvery: 2_000,
    erfServitudesPer100Erven: 10,
    corridorsPerTownship: 2.5,
    farmEncumbranceShare: 1,
  },
  national: {
    name: 'national',
    botswanaPlots: 800_000,
    plotsPerExtension: 900,
    southAfricaErven: 6_800_000,
    southAfricaTownships: 5_796,
    repeatedTownshipNames: 'all',
    maxProvincesPerRepeatedName: 9,
    minErvenPerTownship: 80,
    holdingSchemeShare: 0.25,
    beaconShare: 0.25,
    repairableEvery: 2_000,
    erfServitudesPer100Erven: 7,
    corridorsPerTownship: 2,
    farmEncumbranceShare: 1,
  },
}

/** Type guard for `--scale` values. */
export function isScaleName(value: string): value is ScaleName {
  return (SCALE_NAMES as readonly string[]).includes(value)
}
