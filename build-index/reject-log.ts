/**
 * Collects rows a layer could not use. Each is reported with file, line or feature and reason;
 * the first few are printed in full and the rest counted, so a broken export is diagnosable
 * without flooding the terminal.
 */
export class RejectLog {
  readonly byLayer = new Map<string, number>()
  /** per layer, the reason of its first rejected row (printed or not) */
  private readonly firstReason = new Map<string, string>()
  private printed = 0

  constructor(
    private readonly out: (line: string) => void,
    private readonly maxPrinted = 20,
  ) {}

  reject(layer: string, ref: string, reason: string): void {
    this.byLayer.set(layer, (this.byLayer.get(layer) ?? 0) + 1)
    if (!this.firstReason.has(layer)) this.firstReason.set(layer, reason)
    if (this.printed < this.maxPrinted) this.out(`rejected ${ref}: ${reason}`)
    else if (this.printed === this.maxPrinted) this.out('… further rejected rows are counted, not printed')
    this.printed++
  }

  /** The reason the layer's first row was rejected, or null when none was. */
  first(layer: string): string | null {
    return this.firstReason.get(layer) ?? null
  }

  count(layer: string): number {
    return this.byLayer.get(layer) ?? 0
  }

  get total(): number {
    let t = 0
    for (const n of this.byLayer.values()) t += n
    return t
  }
}
