// `npm run reload`: asks the running server to switch to the build DATASET_DIR names now (a
// symlink moved to a new build), by sending SIGHUP to the pid in PID_FILE (default
// data/server.pid, where `npm start` writes it). docs/operations.md "Swapping datasets".
import { runMain } from '../src/cli/run.js'
import { pidFileFrom, signalReload } from '../src/reload-signal.js'

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
    const pid = signalReload(pidFileFrom(process.env))
    console.log(
      `${path[0]}: asked the server (pid ${pid}) to switch to the build DATASET_DIR names; its log says how it went`,
    )
    return 0
  },
)
