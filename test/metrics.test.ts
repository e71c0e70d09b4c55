/**
 * Prometheus metrics with real processes on loopback (docs/operations.md "Metrics"): a cluster
 * primary serves its workers' metrics summed on METRICS_PORT, labelled by route pattern, status
 * and error code, with the served build and the process metrics; without METRICS_PORT nothing
 * listens for them and the API has no /metrics. Every wait is bounded.
 */
import { describe, expect, it } from 'vitest'
import { erfLpi } from './fixtures/parcel-fixtures.js'
import { freePort } from './fixtures/free-port.js'
import { type ServerProcess, spawnServer } from './fixtures/server-process.js'

/** The production entry on a free loopback port, once its workers listen (no background hashing). */
const serve = (env: Record<string, string>, workers: number): Promise<ServerProcess> =>
  spawnServer({ VERIFY_ON_START: 'off', ...env }, workers, ['parcels'], 'metrics')

async function status(url: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(url, { headers })
  await res.arrayBuffer()
  return res.status
}

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `))
  return found === undefined ? undefined : Number(found.slice(line.length + 1))
}

describe('metrics', () => {
  it('WORKERS=2: the primary serves both workers’ counts summed, by route pattern, status and code', async () => {
    const metricsPort = await freePort()
    const p = await serve({ METRICS_PORT: String(metricsPort) }, 2)
    try {
      const api = `http://127.0.0.1:${p.port}/api/v1`
      const auth = { 'X-API-KEY': p.key }
      // fresh connections, so the cluster spreads them over both workers
      const asked = [
        ...Array.from({ length: 6 }, () => status(`${api}/parcels/${erfLpi(3)}`, auth)),
        ...Array.from({ length: 4 }, () => status(`${api}/parcels/C01307770000099900000`, auth)),
        ...Array.from({ length: 3 }, () => status(`${api}/parcels/${erfLpi(3)}`)),
        ...Array.from({ length: 2 }, (_, i) => status(`http://127.0.0.1:${p.port}/nowhere/${i}`)),
      ]
      expect(await Promise.all(asked)).toEqual([...Array(6).fill(200), ...Array(4).fill(404), 401, 401, 401, 404, 404])
      expect(await status(`http://127.0.0.1:${p.port}/metrics`)).toBe(404)
      // both workers answered some (their access lines, written asynchronously, name them): the
      // counts below are their sums
      const lines = () => p.output().match(/^.*"path":"\/api\/v1\/parcels\/.*$/gm) ?? []
      for (const deadline = Date.now() + 5000; lines().length < 13 && Date.now() < deadline; )
        await new Promise((r) => setTimeout(r, 50))
      expect(new Set(lines().map((l) => JSON.parse(l).pid as number)).size).toBe(2)

      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
      const text = await res.text()
      const count = (route: string, code: number) =>
        sample(text, `landdata_http_request_duration_seconds_count{route="${route}",status="${code}"}`)
      expect(count('/api/v1/parcels/{lpi}', 200)).toBe(6)
      expect(count('/api/v1/parcels/{lpi}', 404)).toBe(4)
      expect(count('/api/v1/parcels/{lpi}', 401)).toBe(3)
      // the API's /metrics above is one of the unmatched
      expect(count('unmatched', 404)).toBe(3)
      expect(text).not.toMatch(/route="\/api\/v1\/parcels\/C0/)
      expect(text).not.toMatch(/route="\/nowhere/)
      expect(
        sample(
          text,
          'landdata_http_request_duration_seconds_bucket{le="+Inf",route="/api/v1/parcels/{lpi}",status="200"}',
        ),
      ).toBe(6)
      expect(sample(text, 'landdata_http_errors_total{code="ParcelNotFound"}')).toBe(4)
      expect(sample(text, 'landdata_http_errors_total{code="ApiKeyMissing"}')).toBe(3)
      expect(sample(text, 'landdata_http_errors_total{code="NotFound"}')).toBe(3)
      // the key is verified for the 10 requests carrying one, the 3 without: 13; counted: 10
      expect(sample(text, 'landdata_key_verify_duration_seconds_count')).toBe(13)
      expect(sample(text, 'landdata_rate_limit_duration_seconds_count')).toBe(10)
      // the build once, not once per worker
      expect(text).toMatch(/^landdata_build_info\{build="[^"]+",build_digest="[0-9a-f]{64}"\} 1$/m)
      expect(text).toMatch(/^landdata_dataset_info\{domain="parcels",dataset_version="[^"]+",as_of="[^"]+"\} 1$/m)
      expect(sample(text, 'landdata_dataset_switches_total')).toBe(0)
      expect(text).toMatch(/^process_cpu_user_seconds_total \d/m)
      // the primary's own memory, apart from the workers' sum (a few MB, far below the workers')
      const primaryHeap = sample(text, 'landdata_primary_heap_after_major_gc_bytes')!
      expect(primaryHeap).toBeGreaterThan(1e6)
      expect(primaryHeap).toBeLessThan(sample(text, 'landdata_heap_after_major_gc_bytes')!)
      expect(sample(text, 'landdata_primary_resident_memory_bytes')).toBeGreaterThan(primaryHeap)
      expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m)
      expect(await status(`http://127.0.0.1:${metricsPort}/other`)).toBe(404)
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 40_000)

  it('METRICS_PORT unset: nothing listens for metrics and the API has no /metrics', async () => {
    const metricsPort = await freePort()
    const p = await serve({}, 1)
    try {
      expect(await status(`http://127.0.0.1:${p.port}/metrics`)).toBe(404)
      await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow()
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 30_000)

  it('WORKERS=1: the process serves its own metrics', async () => {
    const metricsPort = await freePort()
    const p = await serve({ METRICS_PORT: `127.0.0.1:${metricsPort}` }, 1)
    try {
      expect(await status(`http://127.0.0.1:${p.port}/healthz`)).toBe(200)
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
      expect(sample(text, 'landdata_http_request_duration_seconds_count{route="/healthz",status="200"}')).toBe(1)
      expect(text).toMatch(/^landdata_build_info\{/m)
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 30_000)
})
