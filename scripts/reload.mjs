// `npm run reload`: asks the running server to switch to the build DATASET_DIR names now (a
// symlink moved to a new build), by sending SIGHUP to the pid in PID_FILE (default
// data/server.pid, where `npm start` writes it). docs/operations.md "Swapping datasets".
import { readFileSync } from 'node:fs'

const file = process.env.PID_FILE || 'data/server.pid'
let pid
try {
  pid = Number(readFileSync(file, 'utf8').trim())
} catch {
  console.error(`reload: no server pid in ${file}: is the server running with PID_FILE=${file}?`)
  process.exit(1)
}
try {
  process.kill(pid, 'SIGHUP')
} catch (err) {
  console.error(
    `reload: cannot signal pid ${pid} (from ${file}): ${err.code === 'ESRCH' ? 'no such process' : err.message}`,
  )
  process.exit(1)
}
console.log(`reload: asked the server (pid ${pid}) to switch to the build DATASET_DIR names; its log says how it went`)
