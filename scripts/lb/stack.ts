/**
 * The multi-instance deployment of docs/production.md, on loopback: a Redis server (unless one
 * is given), N API instances (`node dist/server.js`, each with its own workers, sharing rate
 * limits and keys through Redis), nginx in front and the health checker that keeps nginx's
 * upstream list to the ready instances. Used by `npm run lb` and by test/load-balancer.test.ts.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, mkdirSync, openSync } from 'node:fs'
import { createConnection } from 'node:net'
import { join, resolve } from 'node:path'
import { freePort } from '../lib/free-port.js'
import { HealthChecker } from './health.js'
import { Nginx } from './nginx.js'

export interface StackOptions {
  dataset: string
  /** instances behind nginx (default 3) */
  instances?: number
  /** cluster workers per instance (default 2) */
  workers?: number
  /** nginx's port (default: a free one) */
  port?: number
  /** an existing Redis; when absent a redis-server is started on a free loopback port */
  redisUrl?: string
  /** where logs, nginx's files and Redis's files go */
  dir: string
  /** further environment for the instances */
  env?: Record<string, string>
  log?: (line: string) => void
}

export interface Instance {
  port: number
  child: ChildProcess
  logFile: string
}

export interface Stack {
  port: number
  redisUrl: string
  instances: Instance[]
  nginx: Nginx
  health: HealthChecker
  /** stops one instance (SIGTERM: it drains) */
  stopInstance(k: number): Promise<void>
  stop(): Promise<void>
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Resolves when `PING` on host:port answers `+PONG`. */
function redisPing(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = createConnection({ host: '127.0.0.1', port }, () => s.write('PING\r\n'))
    s.setTimeout(300, () => {
      s.destroy()
      done(false)
    })
    s.on('data', (b) => {
      s.destroy()
      done(b.toString().startsWith('+PONG'))
    })
    s.on('error', () => done(false))
  })
}

/** Starts `redis-server` on a free loopback port, no persistence. */
export async function startRedis(dir: string, port?: number): Promise<{ port: number; child: ChildProcess }> {
  const p = port ?? (await freePort())
  const child = spawn(
    'redis-server',
    ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  )
  const started = Date.now()
  while (!(await redisPing(p))) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with status ${child.exitCode}`)
    if (Date.now() - started > 10_000) throw new Error('redis-server did not answer within 10 s')
    await sleep(50)
  }
  return { port: p, child }
}

/** Stops a child process: `signal`, then SIGKILL after `graceMs`. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
    child.once('exit', () => {
      clearTimeout(timer)
      done()
    })
    child.kill(signal)
  })
}

async function waitReady(port: number, child: ChildProcess, logFile: string): Promise<void> {
  const started = Date.now()
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`instance :${port} exited with status ${child.exitCode}; see ${logFile}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 60_000) throw new Error(`instance :${port} not ready within 60 s; see ${logFile}`)
    await sleep(50)
  }
}

/** Starts Redis (unless given), the instances, nginx and the health checker. */
export async function startStack(o: StackOptions): Promise<Stack> {
  const log = o.log ?? (() => {})
  mkdirSync(o.dir, { recursive: true })
  const children: ChildProcess[] = []
  let redisUrl = o.redisUrl
  if (!redisUrl) {
    const redis = await startRedis(o.dir)
    children.push(redis.child)
    redisUrl = `redis://127.0.0.1:${redis.port}`
    log(`redis: ${redisUrl}`)
  }
  const instances: Instance[] = []
  let nginx: Nginx | null = null
  try {
    for (let k = 0; k < (o.instances ?? 3); k++) {
      const port = await freePort()
      const logFile = join(o.dir, `instance-${k + 1}.log`)
      const out = openSync(logFile, 'w')
      const child = spawn(process.execPath, [resolve('dist', 'server.js')], {
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATASET_DIR: o.dataset,
          WORKERS: String(o.workers ?? 2),
          REDIS_URL: redisUrl,
          // nginx is on loopback: its X-Forwarded-For names the client
          TRUSTED_PROXIES: '127.0.0.1',
          PID_FILE: '',
          ...o.env,
        },
        stdio: ['ignore', out, out],
      })
      closeSync(out)
      instances.push({ port, child, logFile })
      children.push(child)
    }
    await Promise.all(instances.map((i) => waitReady(i.port, i.child, i.logFile)))
    log(`instances: ${instances.map((i) => `127.0.0.1:${i.port}`).join(', ')}`)
    nginx = new Nginx(join(o.dir, 'nginx'), o.port ?? (await freePort()))
    await nginx.start(instances.map((i) => ({ port: i.port, up: true })))
    log(`nginx: http://127.0.0.1:${nginx.port}`)
  } catch (err) {
    await nginx?.stop()
    await Promise.all(children.map((c) => stopChild(c, 'SIGTERM', 3000)))
    throw err
  }
  const lb = nginx
  const health = new HealthChecker(
    instances.map((i) => i.port),
    (ups) => {
      try {
        lb.reload(ups)
        log(`nginx: upstreams ${ups.map((u) => `:${u.port} ${u.up ? 'up' : 'down'}`).join(', ')}`)
      } catch (err) {
        log(`nginx reload failed: ${(err as Error).message}`)
      }
    },
    log,
  )
  await health.check()
  health.start()
  return {
    port: lb.port,
    redisUrl,
    instances,
    nginx: lb,
    health,
    stopInstance: (k) => stopChild(instances[k].child),
    async stop() {
      health.stop()
      await lb.stop()
      await Promise.all(children.map((c) => stopChild(c)))
    },
  }
}
