import { createServer, type Server } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '../lib/free-port.js'
import { HealthChecker } from './health.js'
import { type Upstream, upstreamConf } from './nginx.js'

const servers: Server[] = []

/** A loopback server whose /readyz answers `status` naming build `b`. */
async function instance(status: number): Promise<number> {
  const port = await freePort()
  const s = createServer((_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json' })
    res.end(
      JSON.stringify({ status: status === 200 ? 'ready' : 'failed', reason: 'a damaged file', build: { name: 'b' } }),
    )
  })
  await new Promise<void>((r) => s.listen(port, '127.0.0.1', r))
  servers.push(s)
  return port
}

afterAll(() => {
  for (const s of servers) s.close()
})

describe('health checker', () => {
  it('marks an instance that answers not ready down, and leaves a dead one to nginx', async () => {
    const ready = await instance(200)
    const notReady = await instance(503)
    const dead = await freePort()
    const applied: Upstream[][] = []
    const h = new HealthChecker(
      [ready, notReady, dead],
      (u) => applied.push(u.map((x) => ({ ...x }))),
      () => {},
    )
    await h.check()
    expect(applied).toHaveLength(1)
    expect(applied[0].map((u) => u.up)).toEqual([true, false, true])
    expect(h.instances.map((i) => i.ready)).toEqual([true, false, false])
    expect(h.instances[1].reason).toBe('a damaged file')
    expect(h.instances[0].build).toBe('b')
    // nothing changed: no reload
    await h.check()
    expect(applied).toHaveLength(1)
  })

  it('writes the upstream list with the not-ready ones down, all of them when none is ready', () => {
    expect(
      upstreamConf([
        { port: 1, up: true },
        { port: 2, up: false },
      ]),
    ).toBe('server 127.0.0.1:1 max_fails=1 fail_timeout=2s;\nserver 127.0.0.1:2 max_fails=1 fail_timeout=2s down;\n')
    expect(upstreamConf([{ port: 2, up: false }])).not.toContain('down')
  })
})
