/** The status and layer filter of every parcel query, applied to index items through their flags. */
import { FLAG_HIDDEN, FLAG_LAYER_MASK, layerCode, type ParcelType } from '../../data/parcels-format.js'

export interface Filter {
  /** include_status=all */
  all: boolean
  type?: ParcelType
}

/** Whether index item i (0-based) passes the filter. */
export function passes(flags: Uint8Array, f: Filter, i: number): boolean {
  const fl = flags[i]
  if (!f.all && fl & FLAG_HIDDEN) return false
  if (f.type !== undefined && (fl & FLAG_LAYER_MASK) !== layerCode(f.type)) return false
  return true
}

/** The filter as an index search's filter function (one per query). */
export function accept(flags: Uint8Array, f: Filter): (i: number) => boolean {
  return (i) => passes(flags, f, i)
}
