/**
 * What ran the benchmark: recorded next to every table, because absolute numbers mean nothing
 * without the machine (docs/benchmarks.md "Performance floors": the same HTTP test gave 10 k and 29 k req/s on one
 * day).
 *
 * @module
 */
import { cpus, totalmem, loadavg } from 'node:os'

export interface MachineInfo {
  cpuModel: string
  cores: number
  ramGiB: number
  node: string
  platform: string
  /** 1-minute load average when the suite started (a busy machine skews numbers) */
  load1: number
  /** {@link cpuCheckMs} when the suite started (absent from records made before it existed) */
  cpuCheckMs?: number
}

/** Numbers the CPU check sorts and walks: 128 Ki doubles (1 MiB: beyond L1, within L2). */
const CHECK_SIZE = 1 << 17
const CHECK_RUNS = 5

/** One run of the CPU check's workload; returns a checksum so no part of it can be skipped. */
export function cpuCheckWork(): number {
  const a = new Float64Array(CHECK_SIZE)
  let x = 0x9e3779b9
  for (let i = 0; i < CHECK_SIZE; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    a[i] = (x >>> 0) / 2 ** 32
  }
  a.sort()
  let sum = 0
  // a strided walk over the sorted numbers: cache traffic as well as arithmetic
  for (let r = 0; r < 8; r++) for (let i = r; i < CHECK_SIZE; i += 8) sum += Math.sqrt(a[i] * i)
  return sum
}

/**
 * The same fixed single-thread workload (seeded numbers generated, sorted and walked) timed at
 * the start and end of every suite: the median of 5 runs, in ms. This VM's speed moves within an
 * hour, which no figure of a suite can show by itself; a higher check beside a section says its
 * numbers came from a slower hour. It times one core: another process competing for the machine
 * shows in the load average, not here.
 */
export function cpuCheckMs(): number {
  const t: number[] = []
  let sink = 0
  for (let r = 0; r < CHECK_RUNS; r++) {
    const t0 = performance.now()
    sink += cpuCheckWork()
    t.push(performance.now() - t0)
  }
  if (!Number.isFinite(sink)) throw new Error('CPU check: the workload gave a non-finite checksum')
  t.sort((a, b) => a - b)
  return Math.round(t[CHECK_RUNS >> 1] * 100) / 100
}

export function machineInfo(): MachineInfo {
  const c = cpus()
  return {
    cpuModel: (c[0]?.model ?? 'unknown').replace(/\s+/g, ' ').trim(),
    cores: c.length,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    load1: Math.round(loadavg()[0] * 100) / 100,
    cpuCheckMs: cpuCheckMs(),
  }
}

/** The machine as a section header gives it; `cpuCheckEndMs` is the suite's CPU check at its end. */
export function machineLine(m: MachineInfo, cpuCheckEndMs?: number): string {
  const check =
    m.cpuCheckMs === undefined
      ? ''
      : `, CPU check ${m.cpuCheckMs} ms at start${cpuCheckEndMs === undefined ? '' : ` and ${cpuCheckEndMs} ms at end`}`
  return `${m.cpuModel}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.platform}, load ${m.load1} at start${check}`
}
