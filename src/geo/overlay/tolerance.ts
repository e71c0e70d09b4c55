/**
 * The overlay's tolerances.
 *
 * Tolerance policy. Parcels and encumbrances come from different surveys, rounded to 1e-7°
 * (about 1 cm), so shared edges match exactly or to about a centimetre. A point of a line or of
 * a polygon boundary within {@link EDGE_TOL_M} (2 cm) of the other polygon's boundary counts as
 * lying on it; the end points of a line within that distance are moved onto the boundary.
 * Without this, a strip whose edge runs 1 cm inside its neighbour would "cross" it with a
 * 0.3 m² sliver and a servitude along a boundary would be split into 1 cm stubs. Overlaps left
 * after clipping are dropped as slivers when smaller than {@link MIN_OVERLAP_SQM} or
 * {@link REL_OVERLAP} of the smaller polygon (whichever is larger), or when thinner than the
 * tolerance (2 · area / perimeter ≤ {@link EDGE_TOL_M}).
 */

/**
 * Distance in metres within which a position counts as lying on a boundary (coordinates are rounded to 1e-7°, ~1 cm).
 */
export const EDGE_TOL_M = 0.02
/**
 * Margin for {@link PreparedPolygon.nearBox} and {@link PreparedLines.nearBox} when passing over
 * geometries by their box before comparing them: well beyond {@link EDGE_TOL_M} and the 1e-7°
 * (~1 cm) rounding of stored coordinates, so nothing that could meet is passed over.
 */
export const NEAR_BOX_M = 0.1
/** Overlaps below this many square metres are not overlaps (0.01 m² = 10 cm × 10 cm)… */
export const MIN_OVERLAP_SQM = 0.01
/** …nor those below this fraction of the smaller polygon's area. */
export const REL_OVERLAP = 1e-6
