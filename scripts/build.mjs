// Bundles the TypeScript entry points into dist/ with esbuild (about 100 ms), so that starting
// the server never type-checks or transpiles the tree at run time. `--if-stale` skips the
// bundle when every source file is older than the newest output.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, statSync, existsSync } from 'node:fs'
import { dirname, join } from 'node:path'

const ENTRIES = {
  start: 'scripts/start.ts',
  server: 'src/main.ts',
  keys: 'src/auth/cli.ts',
  'build-index': 'build-index/main.ts',
  // the parcel layer pass's worker thread
  'parcel-worker': 'build-index/domains/parcel-worker.ts',
  // the encumbrance overlap pass's worker thread, loaded next to whichever bundle builds
  'overlap-worker': 'build-index/domains/overlap-worker.ts',
  // the parcel relation pass's worker thread
  'relation-worker': 'build-index/domains/relation-worker.ts',
  // the tile store build's worker thread (parcel and plot tiles)
  'tile-worker': 'build-index/tiles/tile-worker.ts',
  // the bulk jobs' worker thread (src/jobs/thread-rows.ts), loaded next to the server bundle
  'row-thread': 'src/jobs/row-thread.ts',
  // the background dataset check's worker thread, loaded next to the server bundle
  'integrity-worker': 'src/data/integrity-worker.ts',
  verify: 'build-index/verify.ts',
  // npm run dataset: publish and pull builds (src/ship/)
  dataset: 'src/ship/cli.ts',
  synth: 'build-index/synth/main.ts',
  bench: 'bench/main.ts',
  // the multi-instance example behind nginx (scripts/lb/)
  lb: 'scripts/lb.ts',
  // npm run reload (SIGHUP to the server) and npm run fuzz (a long fuzz run)
  reload: 'scripts/reload.ts',
  fuzz: 'scripts/fuzz.ts',
}

function newestMtime(dir) {
  let newest = 0
  if (!existsSync(dir)) return newest
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, name.name)
    if (name.isDirectory()) newest = Math.max(newest, newestMtime(p))
    else if (/\.(ts|mjs|json|js|html|css)$/.test(name.name)) newest = Math.max(newest, statSync(p).mtimeMs)
  }
  return newest
}

// The native addon that memory-maps the dataset's index files (native/mmap.c; about a second
// with node-gyp, when missing or older than its source). It is optional: where it cannot be
// built (no C compiler, no Node headers) the server reads those files into memory instead, so
// a failure here is a warning.
const ADDON = 'native/build/Release/mmap.node'
function buildAddon() {
  const sources = ['native/mmap.c', 'native/binding.gyp']
  if (existsSync(ADDON) && Math.max(...sources.map((s) => statSync(s).mtimeMs)) < statSync(ADDON).mtimeMs) return
  // node-gyp: npm's own (npm names it to the scripts it runs), else the one installed beside node
  const prefix = dirname(dirname(process.execPath))
  const gyp = [
    process.env.npm_config_node_gyp,
    join(prefix, 'lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'),
  ].find((p) => p && existsSync(p))
  if (!gyp) {
    console.error(`build: node-gyp not found, ${ADDON} not built: the server will read its index files into memory`)
    return
  }
  // the headers of this node, where its install has them (no download)
  const nodedir = existsSync(join(prefix, 'include/node/node_api.h')) ? [`--nodedir=${prefix}`] : []
  const r = spawnSync(process.execPath, [gyp, 'rebuild', ...nodedir], { cwd: 'native', encoding: 'utf8' })
  if (r.status !== 0) {
    console.error(`${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n'))
    console.error(`build: ${ADDON} not built (above): the server will read its index files into memory`)
  }
}
buildAddon()

// The map page (src/features/map/page: HTML, browser ES modules, CSS) and the basemap's country
// outlines are served as files, not bundled: copied to dist/map/, where the server bundle reads
// them (src/features/map/assets.ts), so the Docker image (dist/ only) serves the map too.
const MAP_PAGE = 'src/features/map/page'
const MAP_OUT = 'dist/map'
const COUNTRIES = 'data/real/naturalearth-za-bw/ne10m_countries_southern_africa.geojson'
function copyMapPage() {
  mkdirSync(MAP_OUT, { recursive: true })
  cpSync(MAP_PAGE, MAP_OUT, { recursive: true })
  cpSync(COUNTRIES, `${MAP_OUT}/countries.geojson`)
}

const entries = Object.fromEntries(Object.entries(ENTRIES).filter(([, p]) => existsSync(p)))
if (process.argv.includes('--if-stale')) {
  const outputs = [...Object.keys(entries).map((n) => `dist/${n}.js`), `${MAP_OUT}/index.html`]
  if (outputs.every((o) => existsSync(o))) {
    const oldestOut = Math.min(...outputs.map((o) => statSync(o).mtimeMs))
    const newestSrc = Math.max(
      ...['src', 'build-index', 'scripts', 'bench'].map(newestMtime),
      statSync('package.json').mtimeMs,
    )
    if (newestSrc < oldestOut) process.exit(0)
  }
}

copyMapPage()

// esbuild is a development dependency: a production install (`npm ci --omit=dev`, the Docker
// runtime image) runs the bundles already in dist/ and never needs it
const esbuild = await import('esbuild').catch(() => null)
if (!esbuild) {
  const missing = Object.keys(entries).filter(
    (n) => !existsSync(`dist/${n}.js`) && ['start', 'server', 'keys'].includes(n),
  )
  if (missing.length) {
    console.error(
      `build: esbuild is not installed (a production install) and dist/ lacks ${missing.join(', ')}: ` +
        'run `npm ci` with the development dependencies, then `npm run build`',
    )
    process.exit(1)
  }
  console.error('build: esbuild is not installed (a production install): using the bundles already in dist/')
  process.exit(0)
}
const { build } = esbuild

const common = {
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node26',
  sourcemap: true,
  logLevel: 'warning',
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
}
// The server bundle also holds its dependencies: resolving and loading ~150 modules from
// node_modules (and lexing the CommonJS ones for their exports) took ~300 ms of a national
// cold start. Left outside: better-sqlite3 (native), pino (starts worker threads by file path)
// and swagger-ui-dist (assets read from its package directory). The bundle's source map keeps
// each function's package for the bench's CPU-profile breakdown (bench/lib/profile.ts).
// The jobs' thread is the server's code too (an app of its own), bundled the same way.
const { server, 'row-thread': rowThread, ...rest } = entries
await Promise.all([
  build({
    ...common,
    entryPoints: { server, 'row-thread': rowThread },
    external: ['better-sqlite3', 'pino', 'swagger-ui-dist'],
  }),
  build({ ...common, entryPoints: rest, packages: 'external' }),
])
