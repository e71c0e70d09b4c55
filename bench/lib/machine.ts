/**
 * What ran the benchmark: recorded next to every table, because absolute numbers mean nothing
 * without the machine (PERF-FLOORS.md: the same HTTP test gave 10 k and 29 k req/s on one day).
 *
 * @module
 */
import { readFileSync } from 'node:fs'
import { cpus, totalmem, loadavg } from 'node:os'
import { fileMapper } from '../../src/data/file-map.js'

export interface MachineInfo {
  cpuModel: string
  cores: number
  ramGiB: number
  node: string
  platform: string
  /** 1-minute load average when the suite started (a busy machine skews numbers) */
  load1: number
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
  }
}

export function machineLine(m: MachineInfo): string {
  return `${m.cpuModel}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.platform}, load ${m.load1} at start`
}

/** The process's mapped file pages (RssFile of /proc/self/status), KiB; NaN where there is no /proc. */
function rssFileKiB(): number {
  try {
    const m = /^RssFile:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))
    return m ? Number(m[1]) : NaN
  } catch {
    return NaN
  }
}

/** Stride of the touches in {@link mappingUnitKiB}: wider than any page-cache folio (2 MiB on x86-64). */
const TOUCH_STRIDE = 8 * 2 ** 20

/**
 * How much a process's RSS grows when it first reads one byte of a mapped file, KiB: the kernel
 * maps what the page cache holds around the byte (fault-around, and a large folio whole), so
 * RSS counts mapped file pages in that unit, not in 4 KiB pages. Measured by mapping `path`
 * (with the server's own mapper) and touching one byte in each of up to 64 regions 8 MiB apart.
 * Null where the file is smaller than 4 regions, or the mapper or /proc is missing.
 */
export function mappingUnitKiB(path: string): number | null {
  const mapper = fileMapper()
  if (!mapper) return null
  let view: Uint8Array | null = new Uint8Array(mapper.map(path))
  const touches = Math.min(64, Math.floor(view.length / TOUCH_STRIDE))
  if (touches < 4) return null
  const before = rssFileKiB()
  let sum = 0
  // 4 KiB past each region's start, so that no touch sits on a folio's first page by chance
  for (let k = 0; k < touches; k++) sum += view[k * TOUCH_STRIDE + 4096]
  const after = rssFileKiB()
  view = null // unmapped when collected
  return Number.isFinite(after - before) && sum >= 0 ? Math.round((after - before) / touches) : null
}
