/**
 * Issues a key through the keys CLI (`dist/keys.js issue … --json`), into the store the given
 * environment names (`REDIS_URL` or `KEYS_DB`): how `npm run lb`, its test and the scale-out
 * bench get a key every instance sees, exactly as an operator would.
 */
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'

export interface IssueOptions {
  products: string
  rate: number
  name?: string
  env: Record<string, string>
}

export function issueKeyWithCli(o: IssueOptions): string {
  const args = ['issue', '--products', o.products, '--countries', 'BOTSWANA,SOUTH_AFRICA', '--rate', String(o.rate)]
  if (o.name) args.push('--name', o.name)
  const out = execFileSync(process.execPath, [resolve('dist', 'keys.js'), ...args, '--json'], {
    env: { ...process.env, ...o.env },
    encoding: 'utf8',
  })
  return (JSON.parse(out) as { key: string }).key
}
