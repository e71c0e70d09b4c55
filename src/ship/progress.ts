/**
 * What `dataset pull` shows while it works. On a terminal: one line redrawn in place (at most
 * every 200 ms) with the bytes fetched of those to fetch, the rate and the time left. Otherwise
 * (CI, a log, a test): one line per file, saying whether it was linked from a build already
 * held, fetched (and from which offset, when resumed) or retried.
 *
 * @module
 */

/** `1536` -> `1.5 KiB`; bytes below 1 KiB as they are. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = n
  let u = 0
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024
    u++
  }
  return u === 0 ? `${n} B` : `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`
}

/** Seconds left at `bytesPerS` for `left` bytes, as `42 s` or `3 min 5 s`; `?` before any rate. */
export function formatEta(left: number, bytesPerS: number): string {
  if (!(bytesPerS > 0)) return '?'
  const s = Math.ceil(left / bytesPerS)
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`
}

/** The terminal line: bytes done of total, rate, ETA, file count. */
export function progressLine(done: number, total: number, elapsedMs: number, file: number, files: number): string {
  const rate = done / Math.max(0.001, elapsedMs / 1000)
  return (
    `pull: ${formatBytes(done)} of ${formatBytes(total)}, ${formatBytes(rate)}/s, ETA ${formatEta(total - done, rate)}` +
    ` (file ${file} of ${files})`
  )
}

export interface PullProgress {
  /** what is to be fetched once the local copies are linked */
  begin(files: number, bytes: number): void
  /** one file finished: `how` is `linked`, `present`, `fetched` or `fetched, resumed at N` */
  file(path: string, how: string, bytes: number): void
  bytes(n: number): void
  retry(path: string, err: Error, waitMs: number): void
  end(): void
}

export interface ProgressStream {
  write(s: string): unknown
  isTTY?: boolean
}

/** The progress of one pull on `stream` (default stderr): the redrawn line on a TTY, else lines. */
export function createPullProgress(
  stream: ProgressStream = process.stderr,
  now: () => number = Date.now,
): PullProgress {
  const tty = Boolean(stream.isTTY)
  const start = now()
  let total = 0
  let files = 0
  let done = 0
  let fileNo = 0
  let drawn = 0
  const draw = (force = false) => {
    if (!tty || (!force && now() - drawn < 200)) return
    drawn = now()
    stream.write(`\r\x1b[K${progressLine(done, total, now() - start, Math.min(fileNo + 1, files), files)}`)
  }
  return {
    begin(n, bytes) {
      files = n
      total = bytes
      if (!tty) stream.write(`pull: ${n} files to fetch, ${formatBytes(bytes)}\n`)
      draw(true)
    },
    file(path, how, bytes) {
      if (how.startsWith('fetched')) fileNo++
      if (!tty) stream.write(`${how} ${path} (${formatBytes(bytes)})\n`)
      else draw()
    },
    bytes(n) {
      done += n
      draw()
    },
    retry(path, err, waitMs) {
      const line = `retrying ${path} in ${(waitMs / 1000).toFixed(1)} s: ${err.message}`
      stream.write(tty ? `\r\x1b[K${line}\n` : `${line}\n`)
    },
    end() {
      if (tty) {
        draw(true)
        stream.write('\n')
      }
    },
  }
}

/** No output (the bench, and tests that read only the result). */
export const SILENT_PROGRESS: PullProgress = {
  begin() {},
  file() {},
  bytes() {},
  retry() {},
  end() {},
}
