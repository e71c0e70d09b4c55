import { runMain } from './cli/run.js'
import { ConfigError, loadConfig } from './config.js'
import { runServer } from './server.js'

// process entry: config from the environment, then serve (see src/server.ts). A bad variable is
// one line and exit 2; a start the files make impossible, one line and exit 1; never a stack.
// The command line takes only --help and --version: everything else is the environment.
runMain(
  {
    name: 'serve',
    summary: 'Serve the dataset DATASET_DIR names (no sample, no demo key: see start).',
    description:
      'Configured by the environment only (DATASET_DIR, PORT, KEYS_DB, WORKERS, REDIS_URL...):\nsee docs/operations.md "Configuration".',
    examples: ['DATASET_DIR=/data/current PORT=8080 WORKERS=4 serve'],
    notes: 'Exit codes: 1 the start failed (a missing or damaged dataset), 2 a bad variable.',
  },
  () => {
    try {
      const config = loadConfig()
      runServer(config).catch((err) => {
        console.error(`cannot start: ${(err as Error).message}`)
        process.exit(1)
      })
      return 0
    } catch (err) {
      console.error(`cannot start: ${(err as Error).message}`)
      return err instanceof ConfigError ? 2 : 1
    }
  },
)
