import { ConfigError, loadConfig } from './config.js'
import { runServer } from './server.js'

// process entry: config from the environment, then serve (see src/server.ts). A bad variable is
// one line and exit 2; a start the files make impossible, one line and exit 1; never a stack.
try {
  const config = loadConfig()
  runServer(config).catch((err) => {
    console.error(`cannot start: ${(err as Error).message}`)
    process.exit(1)
  })
} catch (err) {
  console.error(`cannot start: ${(err as Error).message}`)
  process.exit(err instanceof ConfigError ? 2 : 1)
}
