/** A Float64Array that grows by doubling, for boxes gathered row by row before an index is built. */
export class GrowableF64 {
  a = new Float64Array(1 << 16)
  n = 0
  push4(a: number, b: number, c: number, d: number): void {
    if (this.n + 4 > this.a.length) {
      const x = new Float64Array(this.a.length * 2)
      x.set(this.a)
      this.a = x
    }
    this.a[this.n++] = a
    this.a[this.n++] = b
    this.a[this.n++] = c
    this.a[this.n++] = d
  }
}
