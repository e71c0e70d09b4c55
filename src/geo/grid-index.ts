/**
 * A uniform-grid index of boxes for point queries: each cell lists the boxes that meet it, so a
 * point query is one cell read plus a box test per listed item, with no tree walk and no
 * allocation. Suits a few thousand to a few tens of thousands of boxes queried millions of times
 * (administrative boundaries); Flatbush stays the index for box queries and for millions of items.
 */
export class GridIndex {
  private readonly minX: number
  private readonly minY: number
  private readonly cols: number
  private readonly rows: number
  private readonly cell: number
  /** CSR: the items of cell k are items[offsets[k] .. offsets[k + 1]), in item order */
  readonly offsets: Uint32Array
  readonly items: Uint32Array
  /** minX, minY, maxX, maxY per item */
  readonly boxes: Float64Array

  /**
   * @param boxes minX, minY, maxX, maxY per item (item i at 4i)
   * @param cellDeg cell side in degrees; default: the median box side, clamped to [0.01, 0.5]
   */
  constructor(boxes: Float64Array, cellDeg?: number) {
    const n = boxes.length / 4
    this.boxes = boxes
    let minX = Infinity
    let minY = Infinity
    let maxX = -Infinity
    let maxY = -Infinity
    const sides: number[] = []
    for (let i = 0; i < n; i++) {
      minX = Math.min(minX, boxes[4 * i])
      minY = Math.min(minY, boxes[4 * i + 1])
      maxX = Math.max(maxX, boxes[4 * i + 2])
      maxY = Math.max(maxY, boxes[4 * i + 3])
      sides.push(Math.max(boxes[4 * i + 2] - boxes[4 * i], boxes[4 * i + 3] - boxes[4 * i + 1]))
    }
    if (n === 0) minX = minY = maxX = maxY = 0
    sides.sort((a, b) => a - b)
    const cell = cellDeg ?? Math.min(0.5, Math.max(0.01, sides[Math.floor(sides.length / 2)] ?? 0.1))
    this.minX = minX
    this.minY = minY
    this.cell = cell
    this.cols = Math.max(1, Math.ceil((maxX - minX) / cell) + 1)
    this.rows = Math.max(1, Math.ceil((maxY - minY) / cell) + 1)
    const cells = this.cols * this.rows
    const counts = new Uint32Array(cells + 1)
    const visit = (i: number, fn: (c: number) => void) => {
      const c0 = this.col(boxes[4 * i])
      const c1 = this.col(boxes[4 * i + 2])
      const r0 = this.row(boxes[4 * i + 1])
      const r1 = this.row(boxes[4 * i + 3])
      for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) fn(r * this.cols + c)
    }
    for (let i = 0; i < n; i++) visit(i, (c) => counts[c + 1]++)
    for (let c = 0; c < cells; c++) counts[c + 1] += counts[c]
    this.offsets = counts
    this.items = new Uint32Array(counts[cells])
    const fill = counts.slice(0, cells)
    for (let i = 0; i < n; i++) visit(i, (c) => (this.items[fill[c]++] = i))
  }

  private col(x: number): number {
    return Math.max(0, Math.min(this.cols - 1, Math.floor((x - this.minX) / this.cell)))
  }

  private row(y: number): number {
    return Math.max(0, Math.min(this.rows - 1, Math.floor((y - this.minY) / this.cell)))
  }

  /**
   * Calls `fn(item)` for every box holding the point (edges included, widened by `tol`), in item
   * order. Returns early when `fn` returns true.
   */
  forEachAt(x: number, y: number, fn: (item: number) => boolean | void, tol = 0): void {
    const k = this.cellAt(x, y, tol)
    if (k < 0) return
    const b = this.boxes
    for (let p = this.offsets[k], end = this.offsets[k + 1]; p < end; p++) {
      const i = this.items[p]
      if (x < b[4 * i] - tol || y < b[4 * i + 1] - tol || x > b[4 * i + 2] + tol || y > b[4 * i + 3] + tol) continue
      if (fn(i) === true) return
    }
  }

  /**
   * The cell whose items `forEachAt(x, y, fn, tol)` reads, or -1 when the point is off the grid:
   * for callers that walk `items[offsets[k] .. offsets[k + 1])` themselves (a hot loop without
   * a callback), testing each box widened by `tol` as forEachAt does.
   */
  cellAt(x: number, y: number, tol = 0): number {
    let c = Math.floor((x - this.minX) / this.cell)
    let r = Math.floor((y - this.minY) / this.cell)
    // within `tol` before the first column or row still meets the boxes there
    if (c === -1 && x >= this.minX - tol) c = 0
    if (r === -1 && y >= this.minY - tol) r = 0
    // (written so that NaN is off the grid too)
    if (!(c >= 0 && r >= 0 && c < this.cols && r < this.rows)) return -1
    return r * this.cols + c
  }
}
