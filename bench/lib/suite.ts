/**
 * The contract every benchmark module implements. A later service adds one file under
 * `bench/suites/` and one line in `bench/suites/index.ts`; `main.ts` and the report need no
 * change.
 *
 * @module
 */
import type { DatasetInfo } from './dataset.js'
import type { MachineInfo } from './machine.js'

export interface BenchOptions {
  scale: string
  quick: boolean
  seed: number
  /** HTTP load generator: wrk when installed, else autocannon */
  tool: 'auto' | 'wrk' | 'autocannon'
  /** seconds per HTTP load run */
  durationS: number
  /** false (`--no-http`): service suites skip their HTTP load runs */
  http: boolean
  /** false (`--no-write`): nothing under bench/ is written (RESULTS.md, results.json, charts, profiles) */
  write: boolean
  /** the soak suite: minutes of its paced run, seconds per window, seconds of its closed-loop maximum probe */
  soak: { minutes: number; windowS: number; probeS: number }
  /** the jobs suite: rows of each operation's job */
  jobRows: number
}

export interface SuiteContext {
  opts: BenchOptions
  dataset: DatasetInfo
  machine: MachineInfo
  log: (line: string) => void
  /** a check that must hold (agreement, zero errors); any entry fails the run */
  fail: (message: string) => void
  /** the records of the suites this run has finished so far */
  earlier: readonly SuiteRecord[]
}

/** What a suite stored in results.json: its data plus everything needed to read it. */
export interface SuiteRecord<T = unknown> {
  name: string
  ranAt: string
  durationS: number
  machine: MachineInfo
  /** the CPU check (see cpuCheckMs) when the suite ended; absent from records made before it existed */
  cpuCheckEndMs?: number
  /** `staleCode`: set when the dataset was made by older code than the run's (see ensureDataset) */
  dataset: { scale: string; counts: DatasetInfo['counts']; sizeBytes: number; staleCode?: string }
  seed: number
  quick: boolean
  failures: string[]
  data: T
}

export interface Suite<T = unknown> {
  name: string
  title: string
  /** one line for `--help` */
  summary: string
  run(ctx: SuiteContext): Promise<T>
  /** Markdown body of the suite's section in RESULTS.md (the header line is added by the report). */
  render(record: SuiteRecord<T>): string
  /** Optional SVG chart: file name under bench/ and its content. */
  chart?(record: SuiteRecord<T>): { file: string; svg: string } | null
}
