/**
 * The metrics listener (docs/operations.md "Metrics"): a plain HTTP server on METRICS_PORT,
 * apart from the API so the metrics are never public by accident, answering `GET /metrics`
 * with this process's registry, or on a cluster primary with its workers' registries summed
 * (prom-client's `AggregatorRegistry`, over the cluster's IPC channel).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AggregatorRegistry, type Registry, register } from 'prom-client'
import { primaryMetrics } from './metrics.js'

/** Where the metrics listen: METRICS_PORT's `[host:]port`. */
export interface MetricsAddress {
  host: string
  port: number
}

/** The text Prometheus scrapes. */
export type MetricsSource = () => Promise<string>

/** This process's registry. */
export const processMetrics: MetricsSource = () => register.metrics()

/**
 * On a cluster primary: every live worker's registry, summed (each metric by its aggregator),
 * then the primary's own memory (`own`, {@link primaryMetrics}).
 */
export function clusterMetrics(own: Registry = primaryMetrics()): MetricsSource {
  const aggregator = new AggregatorRegistry()
  return async () => {
    const [workers, primary] = await Promise.all([aggregator.clusterMetrics(), own.metrics()])
    return `${workers.trimEnd()}\n${primary}`
  }
}

/** On a cluster worker: answers the primary's requests for this process's registry. */
export function answerPrimaryScrapes(): void {
  new AggregatorRegistry()
}

/** Serves `GET /metrics` from `source`; resolves once listening, with the port bound. */
export function serveMetrics(
  address: MetricsAddress,
  source: MetricsSource,
  onError: (err: Error) => void,
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.url !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found: GET /metrics\n')
      return
    }
    source().then(
      (text) => res.writeHead(200, { 'Content-Type': register.contentType }).end(req.method === 'HEAD' ? '' : text),
      (err: Error) => {
        onError(err)
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n')
      },
    )
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(address.port, address.host, () => {
      server.off('error', reject)
      resolve({ server, port: (server.address() as AddressInfo).port })
    })
  })
}
