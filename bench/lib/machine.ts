/**
 * What ran the benchmark: recorded next to every table, because absolute numbers mean nothing
 * without the machine (PERF-FLOORS.md: the same HTTP test gave 10 k and 29 k req/s on one day).
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
