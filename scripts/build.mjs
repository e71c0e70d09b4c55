// Bundles the TypeScript entry points into dist/ with esbuild (about 100 ms), so that starting
// the server never type-checks or transpiles the tree at run time. `--if-stale` skips the
// bundle when every source file is older than the newest output.
import { build } from 'esbuild'
import { readdirSync, statSync, existsSync } from 'node:fs'
import { join } from 'node:path'

const ENTRIES = {
  start: 'scripts/start.ts',
  server: 'src/main.ts',
  keys: 'src/auth/cli.ts',
  'build-index': 'build-index/main.ts',
  // the encumbrance overlap pass's worker thread, loaded next to whichever bundle builds
  'overlap-worker': 'build-index/overlap-worker.ts',
  // the parcel relation pass's worker thread
  'relation-worker': 'build-index/relation-worker.ts',
  verify: 'build-index/verify.ts',
  synth: 'build-index/synth/main.ts',
  bench: 'bench/main.ts',
}

function newestMtime(dir) {
  let newest = 0
  if (!existsSync(dir)) return newest
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, name.name)
    if (name.isDirectory()) newest = Math.max(newest, newestMtime(p))
    else if (/\.(ts|mjs|json)$/.test(name.name)) newest = Math.max(newest, statSync(p).mtimeMs)
  }
  return newest
}

const entries = Object.fromEntries(Object.entries(ENTRIES).filter(([, p]) => existsSync(p)))
if (process.argv.includes('--if-stale')) {
  const outputs = Object.keys(entries).map((n) => `dist/${n}.js`)
  if (outputs.every((o) => existsSync(o))) {
    const oldestOut = Math.min(...outputs.map((o) => statSync(o).mtimeMs))
    const newestSrc = Math.max(...['src', 'build-index', 'scripts', 'bench'].map(newestMtime), statSync('package.json').mtimeMs)
    if (newestSrc < oldestOut) process.exit(0)
  }
}

await build({
  entryPoints: entries,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
})
