/**
 * A bulk job across a real server's death (docs/operations.md "Bulk jobs"): the server (two
 * cluster workers, one holding the runner's lease) is killed with SIGKILL mid-job, with no chance
 * to write a last checkpoint; the next server on the same JOBS_DIR resumes the job, and every
 * row is answered exactly once.
 */
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, inject, it } from 'vitest'
import { POINTS } from './fixtures/parcel-fixtures.js'
import { spawnServer } from './fixtures/server-process.js'

const ROWS = 6000

describe('a job and a killed server', () => {
  it('resumes on the next server: no row lost or repeated', { timeout: 180_000 }, async () => {
    // not made yet: the first upload makes it (docs/operations.md "Bulk jobs")
    const jobsDir = join(mkdtempSync(join(inject('workDir'), 'jobs-server-')), 'jobs')
    const env = { JOBS_DIR: jobsDir, LOG_LEVEL: 'info' }
    const first = await spawnServer(env, 2, ['parcels'], 'jobs-server')
    const headers = { 'X-API-KEY': first.key }
    const rows = ['lat,lon']
    for (let i = 0; i < ROWS; i++)
      rows.push(`${(POINTS.inErf1.latitude - (i % 40) * 1e-4).toFixed(6)},${POINTS.inErf1.longitude}`)
    const res = await fetch(`${first.url}/api/v1/jobs?operation=getParcelAt`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'text/csv' },
      body: `${rows.join('\n')}\n`,
    })
    expect(res.status).toBe(202)
    const { id } = (await res.json()) as { id: string }
    const status = async (url: string) =>
      (await (await fetch(`${url}/api/v1/jobs/${id}`, { headers })).json()) as { status: string; rows_done: number }
    let seen = await status(first.url)
    while (seen.rows_done < 1000) {
      expect(seen.status).not.toBe('failed')
      await sleep(50)
      seen = await status(first.url)
    }
    first.child.kill('SIGKILL')
    await first.exited
    expect(seen.rows_done).toBeLessThan(ROWS)
    const second = await spawnServer({ ...env, KEYS_DB: first.keysDb }, 1, [], 'jobs-server')
    try {
      const deadline = Date.now() + 150_000
      while ((seen = await status(second.url)).status !== 'done') {
        expect(seen.status).toBe('running')
        expect(Date.now()).toBeLessThan(deadline)
        await sleep(100)
      }
      const text = await (await fetch(`${second.url}/api/v1/jobs/${id}/results`, { headers })).text()
      const lines = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { row: number; input: { lat: string }; status: number })
      expect(lines.map((l) => l.row)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1))
      expect(lines.map((l) => l.input.lat)).toEqual(rows.slice(1).map((r) => r.split(',')[0]))
      expect(lines.every((l) => l.status === 200 || l.status === 404)).toBe(true)
      // the bundled server answered them on its jobs thread (dist/row-thread.js)
      expect(second.output()).toContain('"msg":"jobs thread started"')
    } finally {
      second.child.kill('SIGKILL')
    }
  })
})
