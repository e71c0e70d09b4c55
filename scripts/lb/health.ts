/**
 * The health checker of `npm run lb`: polls every instance's `/readyz` (once a second, 500 ms
 * timeout) and says which build each instance serves (for a rolling dataset switch). An
 * instance that answers but is not ready (a damaged build, Redis unreachable) is marked `down`
 * in nginx's upstream list, and nginx reloaded; one that refuses connections (stopped, crashed,
 * draining: it stops listening at once) is left to nginx's passive check, which retries the
 * request on the next instance and leaves the dead one out for fail_timeout. Why not reload for
 * those too: a reload ends the old nginx workers' idle keep-alive connections, and a client
 * that sends on one at that moment gets a reset (seen in test/load-balancer.test.ts), while the
 * passive check costs the client nothing.
 *
 * @module
 */
import type { Upstream } from './nginx.js'

export interface InstanceHealth extends Upstream {
  /** `/readyz` answered 200 at the last poll (`up` is what nginx's list says) */
  ready: boolean
  /** the build `/readyz` names, or null */
  build: string | null
  /** why it is not ready, from `/readyz` or the connection error */
  reason: string | null
}

interface ReadyBody {
  status?: string
  reason?: string
  build?: { name?: string } | string
}

interface Probe {
  ready: boolean
  /** it answered (ready or not); false: the connection failed or timed out */
  answered: boolean
  build: string | null
  reason: string | null
}

/** One probe of `/readyz`: ready or not, the build it names, why not. */
export async function probe(port: number, timeoutMs = 500): Promise<Probe> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(timeoutMs) })
    const body = (await res.json().catch(() => ({}))) as ReadyBody
    const build = typeof body.build === 'string' ? body.build : (body.build?.name ?? null)
    const ready = res.status === 200
    return { ready, answered: true, build, reason: ready ? null : (body.reason ?? `HTTP ${res.status}`) }
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } }
    return { ready: false, answered: false, build: null, reason: e.cause?.code ?? e.name }
  }
}

export class HealthChecker {
  readonly instances: InstanceHealth[]
  private timer: NodeJS.Timeout | null = null
  private running = false

  constructor(
    ports: readonly number[],
    private readonly apply: (upstreams: readonly Upstream[]) => void,
    private readonly log: (line: string) => void,
    private readonly everyMs = 1000,
  ) {
    this.instances = ports.map((port) => ({ port, up: true, ready: true, build: null, reason: null }))
  }

  /** One round: probes every instance; applies the list when one changed. */
  async check(): Promise<void> {
    const now = await Promise.all(this.instances.map((i) => probe(i.port)))
    let changed = false
    now.forEach((p, k) => {
      const i = this.instances[k]
      if (p.ready !== i.ready || p.build !== i.build)
        this.log(
          `instance :${i.port} ${p.ready ? `ready, serving ${p.build ?? 'unknown build'}` : `not ready (${p.reason})`}`,
        )
      // listed unless it answers not ready; a dead one is nginx's passive check's (see above)
      const up = p.ready || !p.answered
      changed ||= up !== i.up
      Object.assign(i, { up, ready: p.ready, build: p.build, reason: p.reason })
    })
    if (changed) this.apply(this.instances)
  }

  start(): void {
    const tick = async () => {
      if (this.running) return
      this.running = true
      try {
        await this.check()
      } catch (err) {
        this.log(`health check failed: ${(err as Error).message}`)
      } finally {
        this.running = false
      }
    }
    this.timer = setInterval(tick, this.everyMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }
}
