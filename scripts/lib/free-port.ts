/**
 * A loopback port free at the moment of asking, for a server process that tests, benchmarks and
 * `npm run lb` start (released before the caller takes it).
 */
import { createServer } from 'node:net'

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer()
    s.on('error', fail)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => done(port))
    })
  })
}
