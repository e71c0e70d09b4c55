/**
 * Progress for long build steps.
 *
 * On a terminal: a bar redrawn in place (at most every 100 ms), then the step's summary line.
 * Otherwise (a log: CI, `npm start` piped, a test), each step prints its summary line when it
 * ends, plus, while it runs longer than {@link LOG_EVERY_MS}, one line at most that often with
 * the rows done, the rate and the time left. A step that is one file of a layer (`part`) prints
 * on a log only when it runs that long: its domain prints the layer's summary. So a build's log
 * holds tens of lines, not one per tenth of every file.
 */
export interface Progress {
  tick(n?: number): void
  /** Ends the step with its summary line; `notable` (rejected rows) prints it on a log even for a part. */
  done(summary?: string, notable?: boolean): void
}

/** On a log (no terminal), a running step reports at most this often. */
export const LOG_EVERY_MS = 15_000

export interface ProgressOptions {
  /** Where to write (default stderr); its `isTTY` picks the bar or the log lines. */
  stream?: Pick<NodeJS.WriteStream, 'write' | 'isTTY'>
  /** One file of a layer: on a log, silent unless it runs longer than {@link LOG_EVERY_MS}. */
  part?: boolean
  /** What is counted, in the progress lines (default `rows`). */
  unit?: string
  /** Clock in ms (tests). */
  now?: () => number
}

/** `75 s` -> `1 min 15 s`. */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000)
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`
}

const fmt = (n: number) => n.toLocaleString('en')

export function createProgress(label: string, total: number | null, opts: ProgressOptions = {}): Progress {
  const stream = opts.stream ?? process.stderr
  const now = opts.now ?? Date.now
  const tty = Boolean(stream.isTTY)
  const unit = opts.unit ?? 'rows'
  const start = now()
  let count = 0
  let lastDraw = start
  let reported = false
  const rate = () => count / Math.max(0.001, (now() - start) / 1000)
  const drawBar = () => {
    const frac = total ? Math.min(1, count / total) : 0
    const width = 30
    const bar = total ? '█'.repeat(Math.round(frac * width)).padEnd(width, '░') : ''
    const pct = total ? ` ${(frac * 100).toFixed(0).padStart(3)}%` : ''
    stream.write(`\r${label} ${bar}${pct} ${fmt(count)} ${unit}, ${fmt(Math.round(rate()))}/s   `)
  }
  // one log line: rows done (of the total), rate, and the time left when the total is known
  const logLine = () => {
    const r = rate()
    const of = total
      ? `${Math.min(100, Math.floor((count / total) * 100))}% (${fmt(count)} of ${fmt(total)} ${unit})`
      : `${fmt(count)} ${unit}`
    const eta = total && r > 0 && count < total ? `, ETA ${formatDuration(((total - count) / r) * 1000)}` : ''
    stream.write(`${label}: ${of}, ${fmt(Math.round(r))} ${unit}/s, ${formatDuration(now() - start)} so far${eta}\n`)
    reported = true
  }
  return {
    tick(n = 1) {
      count += n
      const t = now()
      if (t - lastDraw < (tty ? 100 : LOG_EVERY_MS)) return
      lastDraw = t
      if (tty) drawBar()
      else logLine()
    },
    done(summary, notable = false) {
      if (!tty && opts.part && !reported && !notable) return
      const secs = ((now() - start) / 1000).toFixed(1)
      const line = `${label}: ${summary ?? `${count} ${unit}`} in ${secs} s`
      stream.write(tty ? `\r${line}${' '.repeat(30)}\n` : `${line}\n`)
    },
  }
}

/** Counts lines of a text file quickly (for the progress total); null for other formats. */
export async function countLines(file: string): Promise<number | null> {
  if (!/\.(csv|geojsonl|geojsons)$/i.test(file)) return null
  const { createReadStream } = await import('node:fs')
  let n = 0
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++
  }
  return file.toLowerCase().endsWith('.csv') ? Math.max(0, n - 1) : n
}

/** What {@link layerLines} reads of each file's stats (the manifest's LayerStats). */
interface FileStats {
  rows: number
  rejected: number
  repaired?: number
}

/**
 * One line per layer of a domain built file by file, one file per province (`EC/erf`,
 * `FS/erf`…): its rows, repaired and rejected rows over every province. On a log these lines
 * stand for the per-file summaries, which print there only when a file runs long or rejects rows.
 */
export function layerLines(domain: string, files: Record<string, FileStats>): string[] {
  const byLayer = new Map<string, { files: number; rows: number; repaired: number; rejected: number }>()
  for (const [key, s] of Object.entries(files)) {
    const layer = key.slice(key.indexOf('/') + 1)
    const t = byLayer.get(layer) ?? { files: 0, rows: 0, repaired: 0, rejected: 0 }
    t.files++
    t.rows += s.rows
    t.repaired += s.repaired ?? 0
    t.rejected += s.rejected
    byLayer.set(layer, t)
  }
  return [...byLayer].map(
    ([layer, t]) =>
      `${domain}/${layer}: ${fmt(t.rows)} rows from ${t.files} province${t.files === 1 ? '' : 's'}, ` +
      `${fmt(t.repaired)} repaired, ${fmt(t.rejected)} rejected`,
  )
}
