// `npm run reload`: asks the running server to switch to the build DATASET_DIR names now (a
// symlink moved to a new build), by sending SIGHUP to the pid in PID_FILE (default
// data/server.pid, where `npm start` writes it). docs/operations.md "Swapping datasets".
import { readFileSync } from 'node:fs'
import { runMain } from '../src/cli/run.js'

runMain(
  {
    name: 'reload',
    summary: 'Ask the running server to switch to the build DATASET_DIR names now (SIGHUP).',
    description:
      'Signals the pid in $PID_FILE (default data/server.pid, where npm start writes it); the\nserver log says how the switch went.',
    examples: ['PID_FILE=/run/landdata.pid reload'],
    notes: 'Exit codes: 0 signalled, 1 no server pid or no such process, 2 usage error.',
  },
  ({ path }) => {
    const file = process.env.PID_FILE || 'data/server.pid'
    let pid: number
    try {
      pid = Number(readFileSync(file, 'utf8').trim())
    } catch {
      throw new Error(`no server pid in ${file}: is the server running with PID_FILE=${file}?`)
    }
    try {
      process.kill(pid, 'SIGHUP')
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      throw new Error(
        `cannot signal pid ${pid} (from ${file}): ${code === 'ESRCH' ? 'no such process' : (err as Error).message}`,
      )
    }
    console.log(
      `${path[0]}: asked the server (pid ${pid}) to switch to the build DATASET_DIR names; its log says how it went`,
    )
    return 0
  },
)
