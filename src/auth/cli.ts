// Entry point of `npm run keys` (bundled to dist/keys.js); the logic lives in cli-commands.ts.
import { runKeysCli } from './cli-commands.js'

const io = {
  out: (s: string) => void process.stdout.write(s + '\n'),
  err: (s: string) => void process.stderr.write(s + '\n'),
  env: process.env,
}
// exitCode rather than process.exit(): lets piped stdout drain before the process ends.
void runKeysCli(process.argv.slice(2), io).then((code) => (process.exitCode = code))
