/**
 * `npm run lb -- [--dataset DIR] [--instances N] [--workers N] [--port P] [--redis-url URL] [--dir DIR]`:
 * the multi-instance deployment on loopback (docs/production.md "Several instances behind a
 * load balancer"): Redis (started unless --redis-url), N instances sharing rate limits and keys
 * through it, nginx in front, and the health checker that keeps nginx to the ready instances.
 * Prints the address and a demo key; Ctrl-C stops everything.
 */
import { resolve } from 'node:path'
import type { Values } from '../src/cli/args.js'
import { type Invocation, runMain } from '../src/cli/run.js'
import { type CommandSpec, UsageError } from '../src/cli/spec.js'
import { startStack } from './lb/stack.js'
import { issueKeyWithCli } from './lib/issue-key.js'

const LB_CLI: CommandSpec = {
  name: 'lb',
  summary: 'Run several instances behind nginx on loopback, sharing keys and rate limits through Redis.',
  description:
    'Starts Redis (unless --redis-url), N instances, nginx in front and the health checker that keeps\nnginx to the ready instances; prints the address and a demo key. Ctrl-C stops everything.',
  options: {
    dataset: {
      type: 'string',
      value: 'DIR',
      default: process.env.DATASET_DIR || 'data/datasets/sample',
      description: 'the dataset every instance serves',
    },
    instances: { type: 'string', value: 'N', default: '3', description: 'server instances' },
    workers: { type: 'string', value: 'N', default: '2', description: 'cluster workers per instance' },
    port: { type: 'string', value: 'P', default: '8080', description: "nginx's port" },
    'redis-url': { type: 'string', value: 'URL', description: 'use this Redis instead of starting one' },
    dir: { type: 'string', value: 'DIR', default: 'data/lb', description: 'configuration and logs' },
  },
  examples: ['lb --instances 2 --workers 1 --port 9090'],
}

/** A whole number from `min` to `max`, or a usage error naming the option. */
function count(values: Values, name: string, max: number, min = 1): number {
  const raw = values[name] as string
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!(n >= min && n <= max))
    throw new UsageError(`invalid --${name} '${raw}' (expected a whole number ${min}..${max})`)
  return n
}

async function main({ values }: Invocation): Promise<number> {
  const stack = await startStack({
    dataset: resolve(values.dataset as string),
    instances: count(values, 'instances', 64),
    workers: count(values, 'workers', 256),
    port: count(values, 'port', 65535, 0),
    redisUrl: values['redis-url'] as string | undefined,
    dir: resolve(values.dir as string),
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
      `Redis: ${stack.redisUrl}   logs: ${resolve(values.dir as string)}`,
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
  // keeps running until a signal stops it; the exit code is set then
  return 0
}

runMain(LB_CLI, main)
