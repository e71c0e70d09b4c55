/**
 * A layer's source area column against the geodesic areas of its geometries
 * (docs/decisions.md "Ingest integrity"): when the typical (median) ratio of the two is off by
 * more than {@link AREA_RATIO_TOLERANCE} across the layer, the column is in other units than
 * square metres on the ground (an area in a projected CRS such as Web Mercator reads about 1.2 to
 * 1.5 times too large across South Africa), so the build warns once and serves the geodesic
 * area instead.
 */

/** The share by which a layer's median ratio may be off before the column is distrusted. */
export const AREA_RATIO_TOLERANCE = 0.01

/** The rows of one layer that carried a source area, gathered as they are loaded. */
export class AreaColumnCheck {
  readonly ids: number[] = []
  readonly geodesic: number[] = []
  private readonly ratios: number[] = []

  /** Row `id` gave `sourceSqm` where its geometry measures `geodesicSqm`. */
  add(id: number, sourceSqm: number, geodesicSqm: number): void {
    if (!(geodesicSqm > 0) || !(sourceSqm > 0)) return
    this.ids.push(id)
    this.geodesic.push(geodesicSqm)
    this.ratios.push(sourceSqm / geodesicSqm)
  }

  /** The median ratio when it is off by more than the tolerance, else null. */
  offRatio(): number | null {
    if (!this.ratios.length) return null
    const sorted = Float64Array.from(this.ratios).sort()
    const mid = sorted.length >> 1
    const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    return Math.abs(median - 1) > AREA_RATIO_TOLERANCE ? median : null
  }

  /** The one warning line for layer `name` whose column `column` is off by `ratio`. */
  warning(name: string, column: string, ratio: number): string {
    return (
      `warning: ${name}: the source ${column} is typically ${ratio.toFixed(3)} times the geodesic area of the ` +
      `geometry (median of ${this.ratios.length} rows), more than ${AREA_RATIO_TOLERANCE * 100} % off: areas in a ` +
      'projected CRS such as Web Mercator? The layer is served with geodesic areas instead'
    )
  }
}
