/**
 * The strip of a dimensioned servitude line (a line with `width_m`): the line buffered by half
 * its width each side, flat ends, built from the stored centreline at full precision (never from
 * the rounded `area_geom` blob, which is kept for drawing and distances), so that areas measured
 * on it are within 0.1 % of the strip's geodesic area (docs/decisions.md "Geometry tolerances").
 * The build's overlap pass builds the same strip from the same stored centreline, so
 * `/encumbrances/parcel/{lpi}` and `/intersect` agree.
 *
 * @module
 */
import type { MultiPolygon } from '../../data/geometry-blob.js'
import { bufferLines } from '../../geo/overlay/buffer.js'
import { lineOf, type EncumbranceRow } from './records.js'
import type { EncumbranceStore } from './store.js'

/** Strips kept built per store; the oldest is dropped past this. */
export const STRIP_CACHE_SIZE = 4096

/** The record's strip, or null for an area or an undimensioned line. */
export function stripOf(s: EncumbranceStore, r: EncumbranceRow): MultiPolygon | null {
  if (!r.widthM) return null
  const lines = lineOf(r)
  if (!lines) return null
  const cached = s.strips.get(r.id)
  if (cached) return cached
  const strip = bufferLines(lines, r.widthM / 2)
  if (s.strips.size >= STRIP_CACHE_SIZE) s.strips.delete(s.strips.keys().next().value as number)
  s.strips.set(r.id, strip)
  return strip
}
