/**
 * nginx as the load balancer of `npm run lb`: renders scripts/lb/nginx.conf.template into a
 * private prefix directory, writes the upstream list the health checker keeps current, and
 * starts, reloads and stops the nginx binary of the Debian package (never a daemon: a child
 * process with `daemon off`).
 *
 * @module
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** One instance behind the balancer: its loopback port and whether /readyz said it is ready. */
export interface Upstream {
  port: number
  up: boolean
}

/** The nginx binary: `NGINX` if set, else the Debian package's, else from PATH. */
export function nginxBinary(): string {
  if (process.env.NGINX) return process.env.NGINX
  if (existsSync('/usr/sbin/nginx')) return '/usr/sbin/nginx'
  return 'nginx'
}

/** A template, beside this module in the source tree (also when bundled into dist/). */
function template(name: string): string {
  const here = dirname(fileURLToPath(import.meta.url))
  for (const p of [join(here, name), join(here, '..', 'scripts', 'lb', name)])
    if (existsSync(p)) return readFileSync(p, 'utf8')
  throw new Error(`scripts/lb/${name} not found`)
}

/** Another configuration than the balancer's: a template of scripts/lb/ and its `{{name}}` fields. */
export interface NginxConf {
  template: string
  vars: Record<string, string>
}

/**
 * The upstream list: every instance, the ones not ready marked `down` (nginx needs at least one
 * server, so when none is ready all are listed as they are and nginx's passive check decides).
 */
export function upstreamConf(upstreams: readonly Upstream[]): string {
  const anyUp = upstreams.some((u) => u.up)
  return (
    upstreams
      .map((u) => `server 127.0.0.1:${u.port} max_fails=1 fail_timeout=2s${anyUp && !u.up ? ' down' : ''};`)
      .join('\n') + '\n'
  )
}

export class Nginx {
  private child: ChildProcess | null = null
  private readonly conf: string

  constructor(
    readonly prefix: string,
    readonly port: number,
    private readonly custom?: NginxConf,
  ) {
    this.conf = join(prefix, 'nginx.conf')
  }

  /** Writes the configuration and the first upstream list (the balancer's), checks it (`nginx -t`), starts nginx. */
  async start(upstreams: readonly Upstream[]): Promise<void> {
    mkdirSync(this.prefix, { recursive: true })
    let text = template(this.custom?.template ?? 'nginx.conf.template')
      .replaceAll('{{prefix}}', this.prefix)
      .replaceAll('{{listen}}', `127.0.0.1:${this.port}`)
    for (const [k, v] of Object.entries(this.custom?.vars ?? {})) text = text.replaceAll(`{{${k}}}`, v)
    writeFileSync(this.conf, text)
    this.writeUpstreams(upstreams)
    execFileSync(nginxBinary(), this.args('-t', '-q'), { stdio: 'pipe' })
    const child = spawn(nginxBinary(), this.args('-g', 'daemon off;'), { stdio: ['ignore', 'ignore', 'pipe'] })
    this.child = child
    let stderr = ''
    child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()))
    const started = Date.now()
    while (!existsSync(join(this.prefix, 'nginx.pid'))) {
      if (child.exitCode !== null) throw new Error(`nginx exited with status ${child.exitCode}: ${stderr.trim()}`)
      if (Date.now() - started > 10_000) throw new Error(`nginx did not start within 10 s: ${stderr.trim()}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  writeUpstreams(upstreams: readonly Upstream[]): void {
    writeFileSync(join(this.prefix, 'upstream.conf'), upstreamConf(upstreams))
  }

  /** New upstream list, then a graceful reload: old nginx workers finish their requests. */
  reload(upstreams: readonly Upstream[]): void {
    this.writeUpstreams(upstreams)
    execFileSync(nginxBinary(), this.args('-s', 'reload'), { stdio: 'pipe' })
  }

  /** Stops nginx (SIGQUIT: graceful), SIGKILL after 5 s. */
  stop(): Promise<void> {
    const child = this.child
    if (!child || child.exitCode !== null) return Promise.resolve()
    return new Promise((done) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      child.once('exit', () => {
        clearTimeout(timer)
        done()
      })
      child.kill('SIGQUIT')
    })
  }

  private args(...more: string[]): string[] {
    return ['-p', this.prefix, '-c', this.conf, ...more]
  }
}
