/**
 * A worker started after the start (a replacement) with real processes on loopback
 * (docs/operations.md "Running in production"): it opens the build the primary checked and the
 * other workers serve, never the one the DATASET_DIR symlink names unchecked; one that cannot
 * open that build is retried without taking the serving workers down, and the primary exits 1
 * only once no worker serves. Every wait is bounded.
 */
import { rmSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { type Builds, makeBuilds, pointAt } from './fixtures/builds.js'
import { fresh, listeningPids, type ServerProcess, spawnServer, until } from './fixtures/server-process.js'

/** The production entry with two workers on DATASET_DIR=`builds.current`, once both listen. */
const serve = (builds: Builds): Promise<ServerProcess> =>
  spawnServer({ DATASET_DIR: builds.current, SHUTDOWN_TIMEOUT_S: '5' }, 2, ['jurisdiction'], 'respawn')

const count = (text: string, re: RegExp) => (text.match(re) ?? []).length

/** `n` rounds of /readyz and a coverage answer: how many named each build and each dataset version. */
async function ask(p: ServerProcess, n: number): Promise<Record<string, number>> {
  const seen: Record<string, number> = {}
  const tally = (k: string) => (seen[k] = (seen[k] ?? 0) + 1)
  const readyz = async () => {
    const r = await fresh(p, '/readyz')
    tally(`${r?.status} ${r?.body?.build?.name}`)
  }
  const coverage = async () => {
    const r = await fresh(p, '/api/v1/jurisdiction/coverage')
    tally(`${r?.status} ${r?.body?.dataset_version}`)
  }
  // in either order by turns, so that each worker answers both
  for (let i = 0; i < n; i++) for (const q of i % 2 ? [coverage, readyz] : [readyz, coverage]) await q()
  return seen
}

describe('replacing a worker', () => {
  it('the replacement serves the build the others serve, not the one the symlink names unchecked', async () => {
    const builds = makeBuilds('respawn')
    const p = await serve(builds)
    try {
      // a damaged build is refused: the workers serve on build-a
      pointAt(builds.current, builds.damaged)
      p.child.kill('SIGHUP')
      await until('the refusal', () => /dataset switch refused/.test(p.output()), p.output)
      const [first, second] = listeningPids(p.output())
      process.kill(first!, 'SIGKILL')
      await until('the replacement', () => listeningPids(p.output()).length === 3, p.output)
      expect(await ask(p, 150)).toEqual({ '200 build-a': 150, [`200 ${builds.versionA}`]: 150 })

      // switched to build-b, then the symlink moved back without a SIGHUP: a replacement opens b
      pointAt(builds.current, builds.b)
      p.child.kill('SIGHUP')
      await until('both workers to switch', () => count(p.output(), /"msg":"dataset switched"/g) === 2, p.output)
      pointAt(builds.current, builds.a)
      process.kill(second!, 'SIGKILL')
      await until('the second replacement', () => listeningPids(p.output()).length === 4, p.output)
      expect(await ask(p, 50)).toEqual({ '200 build-b': 50, [`200 ${builds.versionB}`]: 50 })
      expect(p.child.exitCode).toBeNull()
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 90_000)

  it('a replacement that cannot open the served build leaves the serving worker be', async () => {
    const builds = makeBuilds('respawn')
    const p = await serve(builds)
    try {
      const [victim, survivor] = listeningPids(p.output())
      // the served build deleted under the server: its open files serve on, a new worker cannot open it
      rmSync(builds.a, { recursive: true })
      process.kill(victim!, 'SIGKILL')
      await until('five deaths', () => /workers died 5 times within 60 s/.test(p.output()), p.output)
      expect(p.output()).toMatch(/workers died 5 times within 60 s .*1 still serving/)
      expect(await ask(p, 10)).toEqual({ '200 build-a': 10, [`200 ${builds.versionA}`]: 10 })
      expect(p.child.exitCode).toBeNull()
      // with none serving, the primary stops: its supervisor takes over
      process.kill(survivor!, 'SIGKILL')
      expect(await p.exited).toBe(1)
      expect(p.output()).toMatch(/workers died \d+ times within 60 s .*none serves; stopping/)
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 60_000)
})
