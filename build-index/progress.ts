/**
 * Progress for long build steps: a redrawn bar on a terminal, plain lines (every ~10 %, or every
 * 5 s when the total is unknown) otherwise, so CI logs stay readable.
 */
export interface Progress {
  tick(n?: number): void
  done(summary?: string): void
}

export function createProgress(
  label: string,
  total: number | null,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  const tty = Boolean(stream.isTTY)
  const start = Date.now()
  let count = 0
  let lastDraw = 0
  let lastDecile = -1
  const rate = () => Math.round(count / Math.max(0.001, (Date.now() - start) / 1000))
  const draw = () => {
    if (tty) {
      const frac = total ? Math.min(1, count / total) : 0
      const width = 30
      const bar = total ? '█'.repeat(Math.round(frac * width)).padEnd(width, '░') : ''
      const pct = total ? ` ${(frac * 100).toFixed(0).padStart(3)}%` : ''
      stream.write(`\r${label} ${bar}${pct} ${count.toLocaleString('en')} rows, ${rate().toLocaleString('en')}/s   `)
    } else if (total) {
      const decile = Math.floor((count / total) * 10)
      if (decile > lastDecile) {
        lastDecile = decile
        stream.write(`${label}: ${Math.min(100, decile * 10)}% (${count} rows)\n`)
      }
    } else {
      stream.write(`${label}: ${count} rows\n`)
    }
  }
  return {
    tick(n = 1) {
      count += n
      const now = Date.now()
      if (now - lastDraw >= (tty ? 100 : total ? 0 : 5000)) {
        if (!tty && total && Math.floor((count / total) * 10) <= lastDecile) return
        lastDraw = now
        draw()
      }
    },
    done(summary) {
      const secs = ((Date.now() - start) / 1000).toFixed(1)
      stream.write(
        `${tty ? '\r' : ''}${label}: ${summary ?? `${count} rows`} in ${secs} s${
          tty ? '                           ' + '   ' : ''
        }\n`,
      )
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
