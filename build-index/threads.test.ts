import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { OrderedWorkerPool, runChunksOnWorkers } from './threads.js'

const dir = mkdtempSync(join(tmpdir(), 'threads-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// answers each chunk after its own delay, so later chunks often finish first; counts the chunks
// it holds at once
const script = join(dir, 'echo-worker.mjs')
writeFileSync(
  script,
  `import { parentPort, threadId } from 'node:worker_threads'
let held = 0
parentPort.on('message', (m) => {
  if (m.fail) throw new Error('chunk ' + m.chunk + ' failed')
  held++
  setTimeout(() => {
    parentPort.postMessage({ chunk: m.chunk, doubled: m.v * 2, held, thread: threadId })
    held--
  }, m.delay)
})
`,
)

type Answer = { chunk: number; doubled: number; held: number; thread: number }

describe('OrderedWorkerPool', () => {
  it(
    'hands answers over in submission order, at most two chunks in flight per worker and four per worker ' +
      'outstanding',
    async () => {
      const got: Answer[] = []
      const pool = new OrderedWorkerPool<Answer>(script, 2, null, (a) => got.push(a))
      let maxAhead = 0
      for (let k = 0; k < 24; k++) {
        await pool.submit({ message: { v: k, delay: (k * 7) % 5 === 0 ? 15 : 1 } })
        maxAhead = Math.max(maxAhead, k + 1 - got.length)
      }
      await pool.drain()
      await pool.close()
      expect(got.map((a) => a.chunk)).toEqual([...Array(24).keys()])
      expect(got.map((a) => a.doubled)).toEqual([...Array(24).keys()].map((k) => 2 * k))
      expect(new Set(got.map((a) => a.thread)).size).toBe(2)
      expect(Math.max(...got.map((a) => a.held))).toBeLessThanOrEqual(2)
      expect(maxAhead).toBeLessThanOrEqual(8)
      expect(maxAhead).toBeGreaterThan(2)
    },
  )

  it('rejects submit and drain once a worker fails, and still closes', async () => {
    const pool = new OrderedWorkerPool<Answer>(script, 1, null, () => {})
    await pool.submit({ message: { v: 1, delay: 1 } })
    await pool.submit({ message: { fail: true } })
    await expect(
      (async () => {
        for (let k = 0; k < 10; k++) await pool.submit({ message: { v: k, delay: 1 } })
        await pool.drain()
      })(),
    ).rejects.toThrow('chunk 1 failed')
    await pool.close()
  })

  it('rejects when the answer handler throws', async () => {
    const pool = new OrderedWorkerPool<Answer>(script, 1, null, (a) => {
      if (a.chunk === 2) throw new Error('insert failed')
    })
    const run = async () => {
      for (let k = 0; k < 6; k++) await pool.submit({ message: { v: k, delay: 1 } })
      await pool.drain()
    }
    await expect(run()).rejects.toThrow('insert failed')
    await pool.close()
  })
})

describe('runChunksOnWorkers', () => {
  it('runs every chunk and answers in chunk order', async () => {
    const got: number[] = []
    await runChunksOnWorkers<Answer>(
      script,
      3,
      null,
      10,
      (k) => ({ message: { chunk: k, v: k, delay: (10 - k) % 3 } }),
      (a) => got.push(a.doubled),
    )
    expect(got).toEqual([...Array(10).keys()].map((k) => 2 * k))
  })
})
