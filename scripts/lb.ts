/**
 * `npm run lb -- [--dataset DIR] [--instances N] [--workers N] [--port P] [--redis-url URL] [--dir DIR]`:
 * the multi-instance deployment on loopback (docs/production.md "Several instances behind a
 * load balancer"): Redis (started unless --redis-url), N instances sharing rate limits and keys
 * through it, nginx in front, and the health checker that keeps nginx to the ready instances.
 * Prints the address and a demo key; Ctrl-C stops everything.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { startStack } from './lb/stack.js'
import { issueKeyWithCli } from './lib/issue-key.js'

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: 'string', default: process.env.DATASET_DIR || 'data/datasets/sample' },
      instances: { type: 'string', default: '3' },
      workers: { type: 'string', default: '2' },
      port: { type: 'string', default: '8080' },
      'redis-url': { type: 'string' },
      dir: { type: 'string', default: 'data/lb' },
    },
  })
  const stack = await startStack({
    dataset: resolve(values.dataset),
    instances: Number(values.instances),
    workers: Number(values.workers),
    port: Number(values.port),
    redisUrl: values['redis-url'],
    dir: resolve(values.dir),
    log: (line) => console.error(line),
  })
  const key = issueKeyWithCli({
    products: 'plots,parcels,encumbrance,jurisdiction',
    rate: 600,
    name: 'npm run lb demo',
    env: { REDIS_URL: stack.redisUrl },
  })
  console.log(
    [
      '',
      `Load balancer: http://127.0.0.1:${stack.port} (nginx) in front of ${stack.instances.length} instances`,
      `Redis: ${stack.redisUrl}   logs: ${resolve(values.dir)}`,
      `Demo key (600 requests/minute, shared by every instance): ${key}`,
      `  curl -H 'X-API-KEY: ${key}' 'http://127.0.0.1:${stack.port}/api/v1/plots/reverse?latitude=-24.6545&longitude=25.9086'`,
      '',
    ].join('\n'),
  )
  const stop = () => {
    void stack.stop().then(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

main().catch((err) => {
  console.error(`lb: ${(err as Error).message}`)
  process.exit(1)
})
