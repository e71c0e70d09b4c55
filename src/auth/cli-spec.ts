/**
 * The keys CLI's command table: every command with its options, help and examples
 * (src/cli/spec.ts). The values are checked in cli-flags.ts; the work is in cli-commands.ts.
 */
import type { CommandSpec, OptionSpec } from '../cli/spec.js'
import { DEFAULT_RATE_PER_MINUTE, MAX_BULK_ROWS_PER_DAY, MAX_RATE_PER_MINUTE } from './key-options.js'
import { COUNTRIES, PRODUCTS } from './types.js'

/** Key store path when `KEYS_DB` is unset (relative to the working directory). */
export const DEFAULT_KEYS_DB = 'data/keys.db'

const ID: OptionSpec = { type: 'string', value: 'ID', required: true, description: 'the key id (as `keys list` shows)' }
const JSON_OUT: OptionSpec = { type: 'boolean', description: 'print the key record as JSON' }
const PRODUCTS_OPT: OptionSpec = {
  type: 'string',
  value: 'LIST',
  description: `comma-separated: ${PRODUCTS.join(',')}`,
}
const COUNTRIES_OPT: OptionSpec = {
  type: 'string',
  value: 'LIST',
  description: `comma-separated: ${COUNTRIES.join(',')}`,
}
const CITIES: OptionSpec = {
  type: 'string',
  value: 'LIST',
  description:
    'comma-separated towns; CITY applies to every country of the key,\nCOUNTRY:CITY to one (omitted: all towns)',
}
const RATE: OptionSpec = {
  type: 'string',
  value: 'N',
  description: `requests per minute, an integer 1..${MAX_RATE_PER_MINUTE}`,
}
const TILE_RATE: OptionSpec = {
  type: 'string',
  value: 'N|default',
  description:
    `tile and TileJSON requests per minute, counted apart from --rate: an integer 1..${MAX_RATE_PER_MINUTE},\n` +
    "or 'default' for the server's TILE_RATE_PER_MINUTE (omitted at issue: the default)",
}
const BULK_ROWS: OptionSpec = {
  type: 'string',
  value: 'N|default',
  description:
    `bulk job rows a day, counted apart from --rate: an integer 1..${MAX_BULK_ROWS_PER_DAY},\n` +
    "or 'default' for the server's JOBS_ROWS_PER_DAY (omitted at issue: the default)",
}
const NAME: OptionSpec = {
  type: 'string',
  value: 'TEXT',
  description: 'a label for people (the customer, the project), up to 100 characters',
}

const byId = (name: string, summary: string, example: string): CommandSpec => ({
  name,
  summary,
  options: { id: ID, json: JSON_OUT },
  examples: [`keys ${name} --id k7Gx2mQp${example}`],
})

export const KEYS_CLI: CommandSpec = {
  name: 'keys',
  summary: 'Manage API keys.',
  description: `The key store is $KEYS_DB (default ${DEFAULT_KEYS_DB}), or with $REDIS_URL set the Redis that
several instances share (every command but backup and restore works on it).
Run through npm: npm run keys -- <command> [options].`,
  commands: [
    {
      name: 'init',
      summary: 'Create the key store (the server refuses to start without one).',
      description: 'So a mistyped KEYS_DB never serves with no keys. Running it again keeps the store.',
      examples: ['KEYS_DB=/srv/keys.db keys init'],
    },
    {
      name: 'issue',
      summary: 'Issue a key. It is printed ONCE; only its SHA-256 digest is stored.',
      options: {
        products: { ...PRODUCTS_OPT, required: true },
        countries: { ...COUNTRIES_OPT, required: true },
        cities: CITIES,
        expires: {
          type: 'string',
          value: 'YYYY-MM-DD',
          description: 'last day the key works (inclusive, Africa/Johannesburg); omitted: no term',
        },
        rate: { ...RATE, default: String(DEFAULT_RATE_PER_MINUTE) },
        'tile-rate': TILE_RATE,
        'bulk-rows-per-day': BULK_ROWS,
        name: NAME,
        json: { type: 'boolean', description: 'print only {"key":"...","id":"..."}' },
      },
      examples: [
        'keys issue --products plots,parcels --countries SOUTH_AFRICA --cities JOHANNESBURG --expires 2026-12-31',
        'keys issue --products plots --countries BOTSWANA --rate 120 --name "Acme survey" --json',
      ],
    },
    {
      name: 'list',
      summary: 'List keys, with their names and the day each was last used; never shows keys, only ids.',
      options: { json: { type: 'boolean', description: 'print the records as a JSON array' } },
    },
    byId('suspend', 'Suspend a key (reversible).', ''),
    byId('unsuspend', 'Reinstate a suspended key (not a revoked one).', ''),
    byId('revoke', 'Revoke a key for good.', ''),
    {
      name: 'redate',
      summary: "Change or clear the key's term.",
      options: {
        id: ID,
        expires: {
          type: 'string',
          value: 'YYYY-MM-DD|none',
          required: true,
          description: 'the new last day (inclusive, Africa/Johannesburg), or none for no term',
        },
        json: JSON_OUT,
      },
      examples: ['keys redate --id k7Gx2mQp --expires 2027-06-30', 'keys redate --id k7Gx2mQp --expires none'],
    },
    {
      name: 'set-rate',
      summary: 'Change the per-minute allowance.',
      options: { id: ID, rate: { ...RATE, required: true }, json: JSON_OUT },
      examples: ['keys set-rate --id k7Gx2mQp --rate 600'],
    },
    {
      name: 'update',
      summary: 'Change what a key grants, or its name; the key string stays the same.',
      description:
        'Settings not given stay as they were; towns of a country the key no longer covers are dropped.\nGive at least one of --products, --countries, --cities, --rate, --tile-rate, --bulk-rows-per-day,\n--name, --no-name.',
      options: {
        id: ID,
        products: PRODUCTS_OPT,
        countries: COUNTRIES_OPT,
        cities: CITIES,
        rate: RATE,
        'tile-rate': TILE_RATE,
        'bulk-rows-per-day': BULK_ROWS,
        name: NAME,
        'no-name': { type: 'boolean', description: 'remove the name' },
        json: JSON_OUT,
      },
      examples: ['keys update --id k7Gx2mQp --products plots,parcels,encumbrance --name "Acme (renewed)"'],
    },
    {
      name: 'rotate',
      summary: 'A new secret for the key (printed ONCE), same id and grants.',
      options: {
        id: ID,
        'overlap-days': {
          type: 'string',
          value: 'N',
          default: '0',
          description: 'days the old secret keeps working, 0..90',
        },
        json: { type: 'boolean', description: 'print only {"key":"...","id":"..."}' },
      },
      examples: ['keys rotate --id k7Gx2mQp --overlap-days 7'],
    },
    byId('delete', 'Delete a key and its record for good.', ' --json'),
    {
      name: 'backup',
      summary: 'Copy the key store to FILE, consistently, while the server runs.',
      positionals: [{ name: 'FILE', description: 'a new file (never overwritten)' }],
      examples: ['keys backup /backups/keys-2026-05-01.db'],
    },
    {
      name: 'restore',
      summary: "Replace the key store's keys with those of FILE (a backup).",
      description:
        "Through SQLite's backup API: safe while the server runs, which sees the change within a second.\nNever copy a file over a running store.",
      positionals: [{ name: 'FILE', description: 'a backup made by keys backup' }],
      examples: ['keys restore /backups/keys-2026-05-01.db'],
    },
    {
      name: 'migrate',
      summary: 'With REDIS_URL: copy the keys of a SQLite store into Redis (digests only).',
      description: 'Keys already in Redis are left as they are, so running it again adds nothing.',
      options: { from: { type: 'string', value: 'FILE', required: true, description: 'the SQLite key store to copy' } },
      examples: ['REDIS_URL=redis://127.0.0.1:6379 keys migrate --from data/keys.db'],
    },
  ],
  notes: 'Exit codes: 0 ok, 1 failure (e.g. unknown id), 2 usage error.',
}
