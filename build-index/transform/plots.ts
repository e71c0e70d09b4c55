import { PROVINCES, provinceCode } from '../../src/data/provinces.js'
import { outsideCountry } from '../../src/geo/country-extent.js'
import { blankReason } from './required.js'

/** A plot or erf ready to store. */
export interface PlotRecord {
  plotNumber: string
  lat: number
  lon: number
  /** upper-case town (Botswana) or township (South Africa) */
  city: string
  /** district (Botswana) or upper-case province name (South Africa); '' when the source has none */
  region: string
}

export type Normalised = { ok: true; rec: PlotRecord } | { ok: false; reason: string }

type Props = Record<string, string | number | boolean | null>
interface PointLike {
  type: string
  coordinates: unknown
}

function text(v: unknown): string {
  return v === null || v === undefined ? '' : String(v).trim()
}

/** `[lon, lat]` of a Point geometry, or the reason there is none. */
function pointOf(geometry: PointLike | null): [number, number] | string {
  if (!geometry) return 'missing coordinates'
  if (geometry.type !== 'Point') return `geometry is ${geometry.type}, expected Point`
  const c = geometry.coordinates as number[]
  const [lon, lat] = c
  if (!Number.isFinite(lon) || !Number.isFinite(lat)) return 'coordinates are not numbers'
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180) return `coordinates out of range (${lon}, ${lat})`
  return [lon, lat]
}

// plot numbers are identifiers: keep them as written, but a control character or an absurd
// length is a broken export row, not a plot
// biome-ignore lint/suspicious/noControlCharactersInRegex: a plot number must hold no control character
const PLOT_NUMBER = /^[^\u0000-\u001f]{1,64}$/

/** The columns a Botswana plot layer requires besides its coordinates. */
export const BOTSWANA_PLOT_COLUMNS = ['plot_number', 'city'] as const
/** The columns a South African erf layer requires besides its coordinates. */
export const ERF_COLUMNS = ['erf_number', 'township', 'province'] as const

/** Botswana plot: `plot_number`, coordinates and `city` required; `district` optional. */
export function normaliseBotswanaPlot(props: Props, geometry: PointLike | null): Normalised {
  const plotNumber = text(props.plot_number)
  const city = text(props.city).toUpperCase()
  if (!plotNumber || !city)
    return {
      ok: false,
      reason: blankReason([
        ['plot_number', plotNumber],
        ['city', city],
      ]),
    }
  if (!PLOT_NUMBER.test(plotNumber))
    return { ok: false, reason: 'plot_number is longer than 64 characters or has control characters' }
  const p = pointOf(geometry)
  if (typeof p === 'string') return { ok: false, reason: p }
  const outside = outsideCountry(p, 'BOTSWANA')
  if (outside) return { ok: false, reason: outside }
  return { ok: true, rec: { plotNumber, lon: p[0], lat: p[1], city, region: text(props.district) } }
}

/** South African erf: `erf_number` (`<erf>` or `<erf>/<portion>`), coordinates, `township`, `province` required. */
export function normaliseErf(props: Props, geometry: PointLike | null): Normalised {
  const plotNumber = text(props.erf_number).replace(/\s*\/\s*/g, '/')
  const city = text(props.township).toUpperCase()
  const rawProvince = text(props.province)
  if (!plotNumber || !city || !rawProvince)
    return {
      ok: false,
      reason: blankReason([
        ['erf_number', plotNumber],
        ['township', city],
        ['province', rawProvince],
      ]),
    }
  if (!PLOT_NUMBER.test(plotNumber))
    return { ok: false, reason: 'erf_number is longer than 64 characters or has control characters' }
  const code = provinceCode(rawProvince)
  if (!code) return { ok: false, reason: `unknown province ${JSON.stringify(rawProvince.slice(0, 40))}` }
  const p = pointOf(geometry)
  if (typeof p === 'string') return { ok: false, reason: p }
  const outside = outsideCountry(p, 'SOUTH_AFRICA')
  if (outside) return { ok: false, reason: outside }
  return { ok: true, rec: { plotNumber, lon: p[0], lat: p[1], city, region: PROVINCES[code] } }
}
