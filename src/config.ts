import { availableParallelism } from 'node:os'
import { z } from 'zod'
import { parseCorsOrigins } from './http/cors.js'
import { redisUrlProblem } from './redis/url.js'

/** METRICS_PORT: `[host:]port`, the host possibly a bracketed IPv6 address */
const LISTEN_ADDRESS = /^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d{1,5})$/

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATASET_DIR: z.string().min(1).default('data/datasets/sample'),
  KEYS_DB: z.string().min(1).default('data/keys.db'),
  WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * MiB of each SQLite file to memory-map (2048: as much as SQLite allows, just under 2 GiB); 0 = none (see README,
   * Configuration)
   */
  SQLITE_MMAP_MB: z.coerce.number().int().min(0).max(2048).default(2048),
  /**
   * 1: memory-map the index files where the native addon is built; 0: read them into each worker's memory (see README,
   * Configuration)
   */
  INDEX_MMAP: z
    .enum(['0', '1'])
    .default('1')
    .transform((v) => v === '1'),
  /** ms a client has to send its request line and headers (see docs/operations.md, Configuration) */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** ms a client has to send its whole request, body included; at least HEADERS_TIMEOUT_MS */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** s an idle keep-alive connection stays open: above common load-balancer idle timeouts (60 s) */
  KEEPALIVE_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(65),
  /** s an answer's client may take none of it before the connection is closed (src/http/send-guard.ts) */
  SEND_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(30),
  /** MiB of answers not yet taken by their clients one process holds before it closes stalled connections */
  UNSENT_MAX_MB: z.coerce.number().int().min(1).max(65536).default(256),
  /** where the server (the primary with WORKERS > 1) writes its pid for `npm run reload`; empty: none */
  PID_FILE: z.string().default(''),
  /** comma-separated proxy addresses whose X-Forwarded-For names the client in the access log */
  TRUSTED_PROXIES: z.string().default(''),
  /**
   * comma-separated origins (`https://app.example`) whose pages may call the API from a browser;
   * empty: no CORS header at all (see docs/operations.md, Configuration)
   */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return parseCorsOrigins(v)
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message })
        return z.NEVER
      }
    }),
  /** s a stopping server gives its in-flight requests before closing their connections */
  SHUTDOWN_TIMEOUT_S: z.coerce.number().int().min(1).max(600).default(30),
  /**
   * How much of the dataset is hashed against its manifest at start: quick, full, background (quick,
   * then every file on a worker thread while serving) or off (see docs/operations.md, Dataset integrity)
   */
  VERIFY_ON_START: z.enum(['quick', 'full', 'background', 'off']).default('background'),
  /**
   * `[host:]port` of the Prometheus `/metrics` listener, host 127.0.0.1 unless named; unset: no
   * metrics (see docs/operations.md, Metrics)
   */
  METRICS_PORT: z
    .string()
    .regex(LISTEN_ADDRESS, 'expected [host:]port, e.g. 9464 or 0.0.0.0:9464')
    .transform((v, ctx) => {
      const [, host, port] = LISTEN_ADDRESS.exec(v)!
      if (Number(port) > 65535) ctx.addIssue({ code: 'custom', message: 'port above 65535' })
      return { host: host === undefined ? '127.0.0.1' : host.replace(/^\[(.*)\]$/, '$1'), port: Number(port) }
    })
    .optional(),
  /**
   * `redis://host:port[/db]` of the Redis that several instances share: rate limits and API keys
   * live there instead of in this process and KEYS_DB; unset: nothing changes (see
   * docs/production.md, Several instances with Redis)
   */
  REDIS_URL: z
    .string()
    .superRefine((v, ctx) => {
      const problem = redisUrlProblem(v)
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem })
    })
    .optional(),
  /** ms a Redis command may take before the request answers 503 RateLimitUnavailable */
  REDIS_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(250),
  /** Redis unavailable: `closed` answers 503 RateLimitUnavailable, `open` serves without counting */
  RATE_LIMIT_ON_STORE_ERROR: z.enum(['closed', 'open']).default('closed'),
  /** tile and TileJSON requests per minute of a key without a tile allowance of its own (docs/api.md "Rate limits") */
  TILE_RATE_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(1200),
  /**
   * the syntax of the RateLimit headers: `draft-07`, the specs' (the default for this release), or
   * `draft-11`, the current IETF draft's (the default from the next release; docs/decisions.md)
   */
  RATE_LIMIT_HEADERS: z.enum(['draft-11', 'draft-07']).default('draft-07'),
  /**
   * bulk jobs (docs/operations.md "Bulk jobs"): their SQLite store and files; made by the first
   * upload. With REDIS_URL the files only, on a directory every instance mounts
   */
  JOBS_DIR: z.string().min(1).default('data/jobs'),
  /** jobs run at once (on JOBS_THREADS threads); default 1 up to 4 cores, a core in 4 above */
  JOBS_WORKERS: z.coerce
    .number()
    .int()
    .min(0)
    .max(64)
    .default(() => Math.max(1, Math.floor(availableParallelism() / 4))),
  /**
   * worker threads answering the jobs' rows (a job runs on one; more jobs than threads share
   * them); default 1 up to 4 cores, a core in 4 above (docs/operations.md "Bulk jobs")
   */
  JOBS_THREADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(() => Math.max(1, Math.floor(availableParallelism() / 4))),
  /** the share of its time each jobs thread works, resting the rest (0.1..1): 0.5 is about half a core per thread */
  JOBS_CPU_SHARE: z.coerce.number().min(0.1).max(1).default(0.5),
  /** rows one upload may hold */
  JOBS_MAX_ROWS: z.coerce.number().int().min(1).max(100_000_000).default(1_000_000),
  /** MiB one upload may be: a larger one answers 413 */
  JOBS_MAX_MB: z.coerce.number().int().min(1).max(65_536).default(128),
  /** queued and running jobs one key may have */
  JOBS_MAX_RUNNING_PER_KEY: z.coerce.number().int().min(1).max(1000).default(2),
  /** days the results of a finished job are kept */
  JOBS_RETENTION_DAYS: z.coerce.number().min(0.001).max(3650).default(7),
  /** bulk rows a day of a key without an allowance of its own (`keys --bulk-rows-per-day`) */
  JOBS_ROWS_PER_DAY: z.coerce.number().int().min(1).max(1_000_000_000).default(1_000_000),
})
export type Config = z.infer<typeof ConfigSchema>

/** A configuration the server cannot start with: main prints its one line and exits 2. */
export class ConfigError extends Error {}

/** Reads the environment once at start; a bad value stops the start with every problem named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const picked = Object.fromEntries(Object.keys(ConfigSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]))
  const r = ConfigSchema.safeParse(picked)
  if (!r.success)
    throw new ConfigError(
      `invalid configuration: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    )
  // Node refuses to start a server whose headers timeout exceeds its request timeout
  if (r.data.HEADERS_TIMEOUT_MS > r.data.REQUEST_TIMEOUT_MS)
    throw new ConfigError(
      `invalid configuration: HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS (${r.data.REQUEST_TIMEOUT_MS})`,
    )
  return r.data
}
