/**
 * REDIS_URL set: the bulk jobs of several instances (docs/operations.md "Bulk jobs"), their
 * records in Redis (redis-store.ts) and their queue BullMQ's (bull-queue.ts); the rows and results
 * files on JOBS_DIR, a directory every instance mounts. Chosen in place of the one-VM SQLite store
 * by src/server.ts.
 *
 * @module
 */
import { mkdirSync } from 'node:fs'
import { Redis } from 'ioredis'
import { redisOptions } from '../redis/connection.js'
import { BullJobQueue } from './bull-queue.js'
import { RedisJobStore } from './redis-store.js'

export interface RedisJobs {
  store: RedisJobStore
  queue: BullJobQueue
  close(): Promise<void>
}

export interface RedisJobsOptions {
  url: string
  /** REDIS_TIMEOUT_MS */
  timeoutMs: number
  /** JOBS_DIR, made now: every instance writes uploads into it */
  dir: string
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void }
  /** ms the start waits for Redis before serving anyway */
  connectWaitMs?: number
}

export async function openRedisJobs(o: RedisJobsOptions): Promise<RedisJobs> {
  mkdirSync(o.dir, { recursive: true })
  // the request path's options: a command fails at once while Redis is away, never queued
  const client = new Redis(o.url, redisOptions(`landdata-${process.pid}-jobs`, o.timeoutMs))
  client.on('error', () => {})
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, o.connectWaitMs ?? 2000)
    client.once('ready', () => {
      clearTimeout(timer)
      resolve()
    })
  })
  const queue = new BullJobQueue({ url: o.url, log: o.log })
  const store = new RedisJobStore(client, (id) => queue.add(id))
  return {
    store,
    queue,
    async close() {
      await queue.close()
      client.disconnect()
    },
  }
}
