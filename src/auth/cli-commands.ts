import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { johannesburgDate } from './dates.js'
import { DEFAULT_RATE_PER_MINUTE, InvalidKeyOptionsError, normaliseName } from './key-options.js'
import { KeyNotFoundError, SqliteKeyStore } from './key-store.js'
import { type KeyAdmin, migrateKeys, openRedisKeyStore } from './cli-store.js'
import { redactRedisUrl, redisUrlProblem } from '../redis/url.js'
import { runCli } from '../cli/run.js'
import { DEFAULT_KEYS_DB, KEYS_CLI } from './cli-spec.js'
import {
  type Flags,
  parseCities,
  parseCountries,
  parseExpires,
  parseId,
  parseProducts,
  parseRate,
  parseTileRate,
  parseBulkRows,
  required,
  UsageError,
  value,
} from './cli-flags.js'
import { describe, report, row, table } from './cli-output.js'

/** Where the CLI writes and what it reads; injectable so tests run it in-process. */
export interface KeysCliIo {
  out(s: string): void
  err(s: string): void
  env: NodeJS.ProcessEnv
  /** Clock for date checks; defaults to the current time. */
  now?: Date
}

/** Exit codes: 0 success, 1 operational failure (unknown id, disallowed change), 2 usage error. */
const EXIT_OK = 0

/**
 * Runs the `keys` CLI with `argv` (without node and script). Returns the exit code; writes
 * results to `io.out` and problems to `io.err`. A key is printed only by `issue`. The command
 * line is read by the shared parser (src/cli/) from the table in cli-spec.ts.
 */
export function runKeysCli(argv: string[], io: KeysCliIo): Promise<number> {
  return runCli(KEYS_CLI, argv, io, async ({ path, values, positionals }) => {
    const command = path[1]
    const flags: Flags = new Map()
    for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== false) flags.set(k, v)
    // backup and restore take their file as a plain argument
    if (positionals[0] !== undefined) flags.set('file', positionals[0])
    try {
      return await runCommand(command, flags, io)
    } catch (err) {
      // a bad name or grant found by the store's own checks is a usage error too
      if (err instanceof InvalidKeyOptionsError) throw new UsageError(err.message)
      throw err
    }
  })
}

async function runCommand(command: string, flags: Flags, io: KeysCliIo): Promise<number> {
  let store: KeyAdmin | undefined
  try {
    const json = flags.has('json')
    // Validate every flag before touching the store, so a typo never creates or changes anything.
    const action = plan(command, flags, io.now ?? new Date())
    const redisUrl = io.env.REDIS_URL || ''
    if (redisUrl !== '') {
      const problem = redisUrlProblem(redisUrl)
      if (problem !== null) throw new UsageError(`REDIS_URL: ${problem}`)
      if (command === 'backup' || command === 'restore')
        throw new UsageError(
          `${command} works on the SQLite store (KEYS_DB); with REDIS_URL, use Redis's own persistence (RDB or AOF)`,
        )
      const redis = await openRedisKeyStore(redisUrl)
      store = redis
      if (command === 'init') {
        io.out(`Key store ${redactRedisUrl(redisUrl)} ready (${await redis.count()} keys).`)
        return EXIT_OK
      }
      if (command === 'migrate') {
        const from = value(flags, 'from')
        const { total, added, present } = await migrateKeys(from, redis)
        io.out(
          `Copied ${added} of ${total} keys from ${from} into ${redactRedisUrl(redisUrl)}` +
            (present ? ` (${present} already there, left as they are).` : '.'),
        )
        return EXIT_OK
      }
      await action(store, io, json)
      return EXIT_OK
    }
    if (command === 'migrate') throw new UsageError('migrate copies keys into Redis: set REDIS_URL')
    const path = io.env.KEYS_DB || DEFAULT_KEYS_DB
    const existed = existsSync(path)
    const sqlite = new SqliteKeyStore(path)
    store = sqlite
    if (command === 'init') {
      io.out(existed ? `Key store ${path} already exists (${sqlite.count()} keys).` : `Key store ${path} created.`)
      return EXIT_OK
    }
    await action(store, io, json)
    return EXIT_OK
  } finally {
    store?.close()
  }
}

type Action = (store: KeyAdmin, io: KeysCliIo, json: boolean) => void | Promise<void>

function plan(command: string, flags: Flags, now: Date): Action {
  switch (command) {
    case 'init':
      return () => {}
    case 'issue': {
      const products = parseProducts(required(flags, 'products'))
      const countries = parseCountries(required(flags, 'countries'))
      const cities = flags.has('cities') ? parseCities(value(flags, 'cities'), countries) : {}
      const expires = flags.has('expires') ? parseExpires(value(flags, 'expires')) : null
      if (expires !== null && expires < johannesburgDate(now)) {
        throw new UsageError(
          `--expires ${expires} is already in the past (today is ${johannesburgDate(now)} in Johannesburg)`,
        )
      }
      const ratePerMinute = flags.has('rate') ? parseRate(value(flags, 'rate')) : DEFAULT_RATE_PER_MINUTE
      const tileRatePerMinute = flags.has('tile-rate') ? parseTileRate(value(flags, 'tile-rate')) : null
      const bulkRowsPerDay = flags.has('bulk-rows-per-day') ? parseBulkRows(value(flags, 'bulk-rows-per-day')) : null
      const name = flags.has('name') ? normaliseName(value(flags, 'name')) : null
      return async (store, io, json) => {
        const { key, record } = await store.issue({
          products,
          countries,
          cities,
          expires,
          ratePerMinute,
          tileRatePerMinute,
          bulkRowsPerDay,
          name,
        })
        if (json) {
          io.out(JSON.stringify({ key, id: record.id }))
          return
        }
        io.out(
          [
            'API key issued. It is shown ONCE and cannot be recovered: copy it now and keep it server-side.',
            '',
            `  key:        ${key}`,
            ...describe(record, now).map(([k, v]) => `  ${(k + ':').padEnd(11)} ${v}`),
          ].join('\n'),
        )
      }
    }
    case 'list':
      return async (store, io, json) => {
        const keys = await store.list()
        if (json) {
          io.out(JSON.stringify(keys, null, 2))
          return
        }
        if (keys.length === 0) {
          io.out('No API keys.')
          return
        }
        io.out(
          table(
            [
              'ID',
              'NAME',
              'STATUS',
              'PRODUCTS',
              'COUNTRIES',
              'CITIES',
              'EXPIRES',
              'RATE/MIN',
              'BULK ROWS/DAY',
              'LAST USED',
            ],
            keys.map((k) => row(k, now)),
          ),
        )
      }
    case 'suspend':
    case 'unsuspend':
    case 'revoke': {
      const id = parseId(required(flags, 'id'))
      const done = { suspend: 'suspended', unsuspend: 'reinstated', revoke: 'revoked' }[command]
      return async (store, io, json) => {
        const record = await (command === 'suspend'
          ? store.suspend(id)
          : command === 'unsuspend'
            ? store.unsuspend(id)
            : store.revoke(id))
        report(io, json, `API key ${id} ${done}.`, record, now)
      }
    }
    case 'redate': {
      const id = parseId(required(flags, 'id'))
      const raw = required(flags, 'expires')
      const expires = raw.toLowerCase() === 'none' ? null : parseExpires(raw)
      return async (store, io, json) => {
        const record = await store.redate(id, expires)
        report(
          io,
          json,
          expires === null ? `API key ${id} no longer expires.` : `API key ${id} now works through ${expires}.`,
          record,
          now,
        )
      }
    }
    case 'set-rate': {
      const id = parseId(required(flags, 'id'))
      const rate = parseRate(required(flags, 'rate'))
      return async (store, io, json) => {
        const record = await store.setRate(id, rate)
        report(io, json, `API key ${id} now allows ${rate} requests per minute.`, record, now)
      }
    }
    case 'update': {
      const id = parseId(required(flags, 'id'))
      const changing = ['products', 'countries', 'cities', 'rate', 'tile-rate', 'bulk-rows-per-day', 'name', 'no-name']
      if (!changing.some((f) => flags.has(f)))
        throw new UsageError(
          'give at least one of --products, --countries, --cities, --rate, --tile-rate, --bulk-rows-per-day, --name, ' +
            '--no-name',
        )
      if (flags.has('name') && flags.has('no-name')) throw new UsageError('give --name or --no-name, not both')
      const name = flags.has('no-name') ? null : flags.has('name') ? normaliseName(value(flags, 'name')) : undefined
      const products = flags.has('products') ? parseProducts(value(flags, 'products')) : undefined
      const countries = flags.has('countries') ? parseCountries(value(flags, 'countries')) : undefined
      const ratePerMinute = flags.has('rate') ? parseRate(value(flags, 'rate')) : undefined
      const tileRatePerMinute = flags.has('tile-rate') ? parseTileRate(value(flags, 'tile-rate')) : undefined
      const bulkRowsPerDay = flags.has('bulk-rows-per-day')
        ? parseBulkRows(value(flags, 'bulk-rows-per-day'))
        : undefined
      return async (store, io, json) => {
        // towns are read against the key's countries: the new ones, else those it has
        const current = await store.get(id)
        if (!current) throw new KeyNotFoundError(id)
        const cities = flags.has('cities')
          ? parseCities(value(flags, 'cities'), countries ?? current.countries)
          : undefined
        const record = await store.update(id, {
          products,
          countries,
          cities,
          ratePerMinute,
          tileRatePerMinute,
          bulkRowsPerDay,
          name,
        })
        report(io, json, `API key ${id} updated; the key itself is unchanged.`, record, now)
      }
    }
    case 'rotate': {
      const id = parseId(required(flags, 'id'))
      const raw = flags.has('overlap-days') ? value(flags, 'overlap-days') : '0'
      if (!/^\d{1,2}$/.test(raw) || Number(raw) > 90)
        throw new UsageError(`--overlap-days must be a whole number from 0 to 90, got '${raw}'`)
      const overlap = Number(raw)
      return async (store, io, json) => {
        const { key, record } = await store.rotate(id, overlap, johannesburgDate(now))
        if (json) {
          io.out(JSON.stringify({ key, id: record.id }))
          return
        }
        io.out(
          [
            'New secret issued. The key is shown ONCE and cannot be recovered: copy it now.',
            overlap
              ? `The old secret keeps working through ${overlap} more day(s), then stops.`
              : 'The old secret stopped working now.',
            '',
            `  key:        ${key}`,
            ...describe(record, now).map(([k, v]) => `  ${(k + ':').padEnd(11)} ${v}`),
          ].join('\n'),
        )
      }
    }
    case 'delete': {
      const id = parseId(required(flags, 'id'))
      return async (store, io, json) => {
        await store.delete(id)
        io.out(json ? JSON.stringify({ id, deleted: true }) : `API key ${id} deleted.`)
      }
    }
    case 'backup': {
      if (!flags.has('file')) throw new UsageError('give the file to copy the key store to: keys backup FILE')
      const file = value(flags, 'file')
      return async (store, io) => {
        if (existsSync(file)) throw new UsageError(`${file} already exists; give a new file`)
        await (store as SqliteKeyStore).backup(file)
        io.out(`Key store copied to ${file} (${await store.count()} keys).`)
      }
    }
    case 'restore': {
      if (!flags.has('file')) throw new UsageError('give the backup to restore: keys restore FILE')
      const file = value(flags, 'file')
      return async (store, io) => {
        if (!existsSync(file)) throw new UsageError(`${file} does not exist`)
        const count = await restoreInto(file, io.env.KEYS_DB || DEFAULT_KEYS_DB)
        io.out(`Key store restored from ${file} (${count} keys; ${await store.count()} in the store now).`)
      }
    }
    case 'migrate': {
      if (!flags.has('from')) throw new UsageError('give the SQLite store to copy: keys migrate --from FILE')
      // run in runKeysCli, which holds the Redis store
      return () => {}
    }
    default:
      throw new UsageError(`unknown command '${command}'`)
  }
}

/**
 * Copies the key store in `file` over the one at `target` with SQLite's backup API, which writes
 * through the target's own locks and write-ahead log, so every process that has it open reads
 * the restored keys (unlike a file copied over it). Returns the keys restored.
 */
async function restoreInto(file: string, target: string): Promise<number> {
  const source = new Database(file, { readonly: true, fileMustExist: true })
  try {
    const table = source.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'api_key'").get()
    if (!table) throw new UsageError(`${file} is not a key store (no api_key table)`)
    const count = source.prepare('SELECT count(*) FROM api_key').pluck().get() as number
    await source.backup(target)
    return count
  } finally {
    source.close()
  }
}
