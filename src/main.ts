import { loadConfig } from './config.js'
import { runServer } from './server.js'

// process entry: config from the environment, then serve (see src/server.ts)
runServer(loadConfig()).catch((err) => {
  console.error(`cannot start: ${(err as Error).message}`)
  process.exit(1)
})
