/**
 * The HTTP floor: a minimal Hono hello-world on `@hono/node-server`, one process or a
 * node:cluster of N (as the real server runs with WORKERS=N). Every path answers the same
 * small JSON, so it takes the same rotating URLs as the real endpoints. Started by
 * `node dist/bench.js __hello PORT WORKERS`; prints the same `listening` line as the server.
 *
 * @module
 */
import cluster from 'node:cluster'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

export function runHello(port: number, workers: number): void {
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
  app.get('*', (c) => c.json({ plots: [], message: 'hello from the floor' }))
  serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
    process.stdout.write(JSON.stringify({ msg: 'listening', pid: process.pid, port: info.port }) + '\n')
  })
}
