/**
 * A bulk job's life (docs/api.md "Bulk jobs"): resumed after a restart with no row lost or
 * repeated, cancelled, expired, hidden from other keys, its results as NDJSON, CSV, gzip and
 * ranges; uploads refused with clear errors and nothing queued; the bulk allowance and the
 * running-jobs limit.
 */
import { readdirSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { POINTS, erfLpi } from './fixtures/parcel-fixtures.js'
import { json, makeTestApp } from './helpers.js'

type TestApp = ReturnType<typeof makeTestApp>

type Body = string | Uint8Array | ReadableStream<Uint8Array>

const submit = (t: TestApp, key: string, operation: string, body: Body, type = 'text/csv') =>
  t.app.request(`/api/v1/jobs?operation=${operation}`, {
    method: 'POST',
    headers: { 'X-API-KEY': key, 'Content-Type': type },
    body,
    // a streamed body (a ReadableStream) needs it
    duplex: 'half',
  } as RequestInit)

/** `n` rows of points in and around erf 1. */
function points(n: number): string {
  const rows = ['latitude,longitude']
  for (let i = 0; i < n; i++)
    rows.push(`${(POINTS.inErf1.latitude - (i % 50) * 1e-4).toFixed(6)},${POINTS.inErf1.longitude.toFixed(6)}`)
  return `${rows.join('\n')}\n`
}

/** The job files under a JOBS_DIR (the store's own files left out). */
const jobFiles = (t: TestApp) => readdirSync(t.jobsDir).filter((f) => f.startsWith('job_'))

async function run(t: TestApp): Promise<void> {
  await t.runner.wake()
  await t.runner.idle()
}

const linesOf = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))

describe('a job and a restart', () => {
  it('resumes from its checkpoint on the next start: no row lost or repeated', { timeout: 120_000 }, async () => {
    const first = makeTestApp({ jobs: { runner: { checkpointRows: 50, checkpointMs: 1e9 } } })
    const { key, record } = first.issue()
    const made = await json(await submit(first, key, 'getParcelAt', points(3000)))
    void first.runner.wake()
    // stopped mid-job, between two checkpoints
    while ((first.jobStore.get(made.id)?.rowsDone ?? 0) < 400) await sleep(2)
    await first.runner.stop()
    const left = first.jobStore.get(made.id)!
    expect(left.status).toBe('running')
    expect(left.rowsDone).toBeLessThan(3000)
    // the next process: the same JOBS_DIR and key store
    const second = makeTestApp({ jobs: { dir: first.jobsDir } })
    await run(second)
    const job = second.jobStore.get(made.id)!
    expect(job.status).toBe('done')
    expect(job.keyId).toBe(record.id)
    const lines = linesOf(await (await first.get(`/api/v1/jobs/${made.id}/results`, key)).text())
    expect(lines.map((l) => l.row)).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1))
    for (const i of [0, left.rowsDone - 1, left.rowsDone, left.rowsDone + 1, 2999]) {
      const online = await first.get(
        `/api/v1/parcels/at?latitude=${lines[i].input.latitude}&longitude=${lines[i].input.longitude}`,
        key,
      )
      expect(lines[i].status).toBe(online.status)
      expect(lines[i].result ?? { ...lines[i].error, requestId: 0 }).toEqual(
        online.status === 200 ? await json(online) : { ...(await json(online)), requestId: 0 },
      )
    }
  })
})

describe('watching, fetching, cancelling, expiring', () => {
  let now = Date.UTC(2026, 5, 1, 8)
  const t = makeTestApp({ clock: () => now, jobs: { retentionMs: 7 * 86_400_000 } })
  const { key } = t.issue()
  const other = t.issue().key

  it('shows the job to its key only; another key gets 404 for it, its results and its deletion', async () => {
    const made = await json(await submit(t, key, 'getParcelByLpi', `lpi\n${erfLpi(1)}\n${erfLpi(999)}\n`))
    // submitting wakes the runner
    expect((await json(await t.get(`/api/v1/jobs/${made.id}`, key))).status).toMatch(/^(queued|running|done)$/)
    for (const path of [`/api/v1/jobs/${made.id}`, `/api/v1/jobs/${made.id}/results`]) {
      const res = await t.get(path, other)
      expect(res.status).toBe(404)
      expect((await json(res)).error).toBe('JobNotFound')
    }
    const del = await t.app.request(`/api/v1/jobs/${made.id}`, { method: 'DELETE', headers: { 'X-API-KEY': other } })
    expect(del.status).toBe(404)
    expect((await json(await t.get('/api/v1/jobs', other))).jobs).toEqual([])
    expect((await json(await t.get('/api/v1/jobs', key))).jobs.map((j: { id: string }) => j.id)).toContain(made.id)
    await run(t)
    const job = await json(await t.get(`/api/v1/jobs/${made.id}`, key))
    expect(job).toMatchObject({ status: 'done', rows: 2, rows_done: 2, rows_failed: 1 })
    expect(Date.parse(job.expires_at) - now).toBe(7 * 86_400_000)
  })

  it('serves the results as NDJSON, CSV, gzip, and from a byte offset', async () => {
    const made = await json(await submit(t, key, 'getParcelByLpi', `lpi\n${erfLpi(1)}\n${erfLpi(999)}\n`))
    await run(t)
    const url = `/api/v1/jobs/${made.id}/results`
    const full = await t.get(url, key)
    expect(full.headers.get('Content-Type')).toBe('application/x-ndjson')
    expect(full.headers.get('Job-Status')).toBe('done')
    const text = await full.text()
    const [ok, missing] = linesOf(text)
    expect(ok).toMatchObject({ row: 1, input: { lpi: erfLpi(1) }, status: 200 })
    expect(ok.result).toEqual(await json(await t.get(`/api/v1/parcels/${erfLpi(1)}`, key)))
    expect(missing).toMatchObject({ row: 2, status: 404, error: { error: 'ParcelNotFound' } })
    const csv = await (await t.get(url, key, { Accept: 'text/csv' })).text()
    const rows = csv.trim().split('\r\n')
    expect(rows[0]).toMatch(/^lpi,row,status,error_code,error_message,item,parcels\.id,parcels\.parcel_type,/)
    expect(rows[1]).toMatch(new RegExp(`^${erfLpi(1)},1,200,,,1,${ok.result.parcels[0].id},`))
    expect(rows.at(-1)).toMatch(new RegExp(`^${erfLpi(999)},2,404,ParcelNotFound,`))
    // CSV: gzip when accepted; a range ignored (the whole CSV, 200), as Accept-Ranges says
    const csvGz = await t.get(url, key, { Accept: 'text/csv', 'Accept-Encoding': 'gzip' })
    expect(csvGz.headers.get('Content-Encoding')).toBe('gzip')
    expect(gunzipSync(Buffer.from(await csvGz.arrayBuffer())).toString()).toBe(csv)
    const csvRange = await t.get(url, key, { Accept: 'text/csv', Range: 'bytes=10-' })
    expect(csvRange.status).toBe(200)
    expect(csvRange.headers.get('Accept-Ranges')).toBe('none')
    expect(await csvRange.text()).toBe(csv)
    const gz = await t.get(url, key, { 'Accept-Encoding': 'gzip' })
    expect(gz.headers.get('Content-Encoding')).toBe('gzip')
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(text)
    const from = text.indexOf('\n') + 1
    const part = await t.get(url, key, { Range: `bytes=${from}-` })
    expect(part.status).toBe(206)
    expect(part.headers.get('Content-Range')).toBe(`bytes ${from}-${text.length - 1}/${text.length}`)
    expect(await part.text()).toBe(text.slice(from))
    const beyond = await t.get(url, key, { Range: `bytes=${text.length}-` })
    expect(beyond.status).toBe(416)
    expect((await json(beyond)).error).toBe('RangeNotSatisfiable')
  })

  it('cancels a queued job (nothing runs), then deletes it with its files', async () => {
    const made = await json(await submit(t, key, 'getParcelAt', points(20)))
    const cancel = await t.app.request(`/api/v1/jobs/${made.id}`, { method: 'DELETE', headers: { 'X-API-KEY': key } })
    expect(cancel.status).toBe(200)
    expect((await json(cancel)).status).toBe('cancelled')
    await run(t)
    expect(t.jobStore.get(made.id)).toMatchObject({ status: 'cancelled', rowsDone: 0 })
    const del = await t.app.request(`/api/v1/jobs/${made.id}`, { method: 'DELETE', headers: { 'X-API-KEY': key } })
    expect(del.status).toBe(204)
    expect((await t.get(`/api/v1/jobs/${made.id}`, key)).status).toBe(404)
    expect(jobFiles(t).filter((f) => f.startsWith(made.id))).toEqual([])
  })

  it('expires a finished job after the retention: files deleted, results 404', async () => {
    const made = await json(await submit(t, key, 'getParcelByLpi', `lpi\n${erfLpi(2)}\n`))
    await run(t)
    expect(jobFiles(t).filter((f) => f.startsWith(made.id))).toHaveLength(2)
    now += 7 * 86_400_000 - 1000
    await t.runner.sweep()
    expect((await json(await t.get(`/api/v1/jobs/${made.id}`, key))).status).toBe('done')
    now += 2000
    await t.runner.sweep()
    expect((await json(await t.get(`/api/v1/jobs/${made.id}`, key))).status).toBe('expired')
    expect((await t.get(`/api/v1/jobs/${made.id}/results`, key)).status).toBe(404)
    expect(jobFiles(t).filter((f) => f.startsWith(made.id))).toEqual([])
  })
})

describe('uploads refused before anything is queued', () => {
  const t = makeTestApp({ jobs: { maxBytes: 1 << 20 } })
  const { key } = t.issue()

  /** Submits `body`; the error answer, with nothing queued and no file left. */
  async function refused(operation: string, body: Body, type = 'text/csv') {
    const res = await submit(t, key, operation, body, type)
    const out = { status: res.status, body: await json(res) }
    expect(t.jobStore.list(t.keys.list()[0]!.id)).toEqual([])
    expect(jobFiles(t)).toEqual([])
    return out
  }

  it('bytes that are not UTF-8: 400 naming the row', async () => {
    const bytes = Buffer.concat([Buffer.from('lpi\nC01307770000000100000\n'), Buffer.from([0xc3, 0x28, 0x0a])])
    const r = await refused('getParcelByLpi', bytes)
    expect(r.status).toBe(400)
    expect(r.body.message).toMatch(/not valid UTF-8 \(row 2\)/)
  })

  it('a ragged row, an empty line, an unknown column, a missing column, a bad value: 400 naming row and column', async () => {
    expect((await refused('getParcelAt', 'lat,lon\n1,2\n3\n')).body.message).toMatch(/row 2 has 1 fields/)
    const blank = await refused('getParcelAt', `lat,lon\n${'\n'.repeat(1_000_000)}`)
    expect([blank.status, blank.body.message]).toEqual([400, 'the upload is refused: row 1 is empty'])
    const unknown = await refused('getParcelAt', 'lat,lng\n1,2\n')
    expect(unknown.body.details).toEqual([{ field: 'lng', message: expect.stringMatching(/header names "lng"/) }])
    expect((await refused('getParcelAt', 'lat\n-34\n')).body.details[0].field).toBe('longitude')
    const bad = await refused('getParcelAt', 'lat,lon\n-34,17\n-34,200\n')
    expect(bad.body.message).toMatch(/row 2/)
    expect(bad.body.details[0].field).toBe('lon')
    const nd = await refused(
      'getParcelByLpi',
      '{"lpi":"C01307770000000100000"}\n{"lpi":"nope"}\n',
      'application/x-ndjson',
    )
    expect(nd.body.message).toMatch(/row 2: lpi/)
  })

  it('a wrong operation, no rows, another media type', async () => {
    const op = await refused('postParcelsBatch', 'lpi\nX\n')
    expect([op.status, op.body.details[0].field]).toEqual([400, 'operation'])
    expect((await refused('getParcelAt', 'lat,lon\n')).body.message).toMatch(/no rows/)
    expect((await refused('getParcelAt', '{}', 'application/json')).status).toBe(415)
  })

  it('a body past the cap (a 2 GB stream): 413 once the cap is read, the rest never', async () => {
    let sent = 0
    const chunk = new TextEncoder().encode(`${'-34.9,17.0\n'.repeat(6000)}`)
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('lat,lon\n'))
      },
      pull(c) {
        if (sent >= 2 * 2 ** 30) return c.close()
        sent += chunk.length
        c.enqueue(chunk)
      },
    })
    const r = await refused('getParcelAt', body)
    expect(r.status).toBe(413)
    expect(r.body.error).toBe('PayloadTooLarge')
    expect(sent).toBeLessThan(4 * 2 ** 20)
  })
})

describe('fair use', () => {
  const t = makeTestApp({ jobs: { maxRunningPerKey: 2 } })

  it('counts rows against the key allowance a day: 429 BulkAllowanceExceeded, headers naming what is left', async () => {
    const { key, record } = t.issue({ bulkRowsPerDay: 100 })
    const ok = await submit(t, key, 'getParcelAt', points(60))
    expect(ok.status).toBe(202)
    expect(ok.headers.get('Bulk-Allowance-Limit')).toBe('100')
    expect(ok.headers.get('Bulk-Allowance-Remaining')).toBe('40')
    expect(Number(ok.headers.get('Bulk-Allowance-Reset'))).toBeGreaterThan(0)
    await run(t)
    const over = await submit(t, key, 'getParcelAt', points(41))
    expect(over.status).toBe(429)
    expect((await json(over)).error).toBe('BulkAllowanceExceeded')
    expect(over.headers.get('Bulk-Allowance-Remaining')).toBe('40')
    expect(Number(over.headers.get('Retry-After'))).toBeGreaterThan(0)
    expect(t.jobStore.list(record.id)).toHaveLength(1)
    expect((await submit(t, key, 'getParcelAt', points(40))).status).toBe(202)
  })

  it('at most JOBS_MAX_RUNNING_PER_KEY jobs queued or running: 429 TooManyJobs', async () => {
    const { key } = t.issue()
    expect((await submit(t, key, 'getParcelAt', points(5))).status).toBe(202)
    expect((await submit(t, key, 'getParcelAt', points(5))).status).toBe(202)
    const third = await submit(t, key, 'getParcelAt', points(5))
    expect(third.status).toBe(429)
    expect((await json(third)).error).toBe('TooManyJobs')
    await run(t)
    expect((await submit(t, key, 'getParcelAt', points(5))).status).toBe(202)
  })

  it('rows are not counted against the per-minute rate: a key of 2 requests a minute runs 50 rows', async () => {
    const { key } = t.issue({ ratePerMinute: 2 })
    const made = await json(await submit(t, key, 'getParcelAt', points(50)))
    await run(t)
    const lines = linesOf(await (await t.get(`/api/v1/jobs/${made.id}/results`, key)).text())
    expect(lines).toHaveLength(50)
    expect(lines.filter((l) => l.status === 429)).toEqual([])
    // the submit and the fetch were the key's two requests this minute
    expect((await t.get(`/api/v1/jobs/${made.id}`, key)).status).toBe(429)
  })

  it("a key without the operation's product: 403 before the body is read", async () => {
    const { key } = t.issue({ products: ['plots'] })
    const res = await submit(t, key, 'getParcelAt', points(5))
    expect(res.status).toBe(403)
    expect((await json(res)).error).toBe('ProductNotPermitted')
    expect((await submit(t, key, 'getPlotsReverse', 'lat,lon\n-24.65,25.9\n')).status).toBe(202)
  })
})
