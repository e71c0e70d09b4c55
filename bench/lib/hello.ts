/**
 * The HTTP floors: a minimal Hono server on `@hono/node-server`, one process or a node:cluster of
 * N (as the real server runs with WORKERS=N). Every path answers, so it takes the same rotating
 * URLs as the real endpoints. Started by `node dist/bench.js __hello PORT WORKERS [ANSWERS]`;
 * prints the same `listening` line as the server.
 *
 * - hello-world: every path answers the same small JSON;
 * - same bytes (with ANSWERS, a JSON file of {@link FixedAnswer}s): a path starting with an
 *   answer's `prefix` gets that answer's bytes with its `Content-Type`, as they are (the bytes a
 *   real endpoint sent for one representative request), so the floor pays for the same bytes on
 *   the wire and nothing else.
 *
 * @module
 */
import cluster from 'node:cluster'
import { readFileSync } from 'node:fs'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

/** One fixed answer of the same-bytes floor, as its file holds it. */
export interface FixedAnswer {
  /** paths starting with this get the answer */
  prefix: string
  contentType: string
  /** the body, base64 */
  body: string
}

export function runHello(port: number, workers: number, answersFile?: string): void {
  if (workers > 1 && cluster.isPrimary) {
    for (let i = 0; i < workers; i++) cluster.fork()
    const stop = () => {
      for (const w of Object.values(cluster.workers ?? {})) w?.kill()
      process.exit(0)
    }
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
    return
  }
  // a plain exit on SIGTERM, so `--cpu-prof` writes its profile
  if (workers <= 1) process.once('SIGTERM', () => process.exit(0))
  const app = new Hono()
  if (answersFile) {
    const answers = (JSON.parse(readFileSync(answersFile, 'utf8')) as FixedAnswer[]).map((a) => ({
      prefix: a.prefix,
      headers: { 'Content-Type': a.contentType },
      bytes: new Uint8Array(Buffer.from(a.body, 'base64')),
    }))
    app.get('*', (c) => {
      const a = answers.find((x) => c.req.path.startsWith(x.prefix))
      return a ? c.body(a.bytes, 200, a.headers) : c.json({ error: 'NotFound' }, 404)
    })
  } else app.get('*', (c) => c.json({ plots: [], message: 'hello from the floor' }))
  serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
    process.stdout.write(JSON.stringify({ msg: 'listening', pid: process.pid, port: info.port }) + '\n')
  })
}
