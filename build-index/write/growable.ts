/** A Float64Array that grows by doubling, for values gathered row by row (index boxes, relation rows). */
export class GrowableF64 {
  a: Float64Array
  n = 0
  constructor(initial = 1 << 16) {
    this.a = new Float64Array(initial)
  }
  private room(k: number): void {
    if (this.n + k <= this.a.length) return
    const x = new Float64Array(Math.max(this.a.length * 2, this.n + k))
    x.set(this.a)
    this.a = x
  }
  push2(a: number, b: number): void {
    this.room(2)
    this.a[this.n++] = a
    this.a[this.n++] = b
  }
  push3(a: number, b: number, c: number): void {
    this.room(3)
    this.a[this.n++] = a
    this.a[this.n++] = b
    this.a[this.n++] = c
  }
  push4(a: number, b: number, c: number, d: number): void {
    this.room(4)
    this.a[this.n++] = a
    this.a[this.n++] = b
    this.a[this.n++] = c
    this.a[this.n++] = d
  }
  /** A copy of the values pushed, sized exactly. */
  toArray(): Float64Array {
    return this.a.slice(0, this.n)
  }
}
