/**
 * `npm run dataset` (bundled to dist/dataset.js): `publish` and `pull`, on the shared parser
 * (src/cli/). docs/cli.md holds the help as printed; docs/operations.md "Publishing and pulling
 * builds" the behaviour.
 *
 * @module
 */
import { formatBytes, createPullProgress } from './progress.js'
import { runMain } from '../cli/run.js'
import { type CommandSpec, UsageError } from '../cli/spec.js'
import { badBuildName, COMPRESSIONS, type Compression } from './layout.js'
import { publishDataset } from './publish.js'
import { pullBuild } from './pull.js'
import { openSource, parseHeader } from './source.js'

export const DATASET_CLI: CommandSpec = {
  name: 'dataset',
  summary: 'Publish built datasets as immutable files and pull them onto the machines that serve them.',
  commands: [
    {
      name: 'publish',
      summary: 'Write a built dataset into TARGET_DIR as content-addressed files, only those it lacks.',
      description:
        'Writes objects/<sha256> for each file of the build (its manifest.json included), skipping\n' +
        'those TARGET_DIR holds already, then builds/<build_digest>.json and latest.json. Serve\n' +
        'TARGET_DIR as it is: a static web server, an object store bucket, an artifact.',
      positionals: [
        { name: 'DATASET_DIR', required: true, description: 'a built dataset (holds manifest.json)' },
        { name: 'TARGET_DIR', required: true, description: 'the published directory (created when missing)' },
      ],
      options: {
        compress: {
          type: 'string',
          choices: COMPRESSIONS,
          default: 'none',
          description: 'store new objects compressed (the digest stays that of the\nuncompressed bytes)',
        },
        name: {
          type: 'string',
          value: 'NAME',
          description: 'the directory name pull gives it (default build-<digest>)',
        },
        quiet: { type: 'boolean', short: 'q', description: 'no line per file' },
      },
      examples: ['dataset publish data/datasets/2026-12-04 /srv/publish --compress zstd --name 2026-12-04'],
      notes: 'Exit codes: 0 published, 1 a file differs from its manifest or cannot be written, 2 usage error.',
    },
    {
      name: 'pull',
      summary: 'Install a published build under DATASETS_DIR, fetching only the files it lacks.',
      description:
        'Links every file the builds under DATASETS_DIR hold already, fetches the rest into\n' +
        'DATASETS_DIR/.pull-<digest>.tmp (an interrupted pull resumes there), checks every\n' +
        "file's SHA-256 and the build digest, then renames it into place. With --activate, moves\n" +
        'that symlink to it and signals the server in $PID_FILE (default data/server.pid), as\n' +
        'npm run reload does; with no server running, only the link moves.',
      positionals: [
        { name: 'SOURCE', required: true, description: 'the published directory: an http(s):// URL or a path' },
        { name: 'DATASETS_DIR', required: true, description: 'the directory that holds the builds' },
      ],
      options: {
        build: { type: 'string', value: 'DIGEST|latest', default: 'latest', description: 'the build to pull' },
        name: { type: 'string', value: 'NAME', description: 'its directory name (default: the published one)' },
        activate: {
          type: 'string',
          value: 'LINK',
          description: 'point this symlink (DATASET_DIR) at it, then signal the\nserver',
        },
        header: {
          type: 'string',
          value: "'NAME: VALUE'",
          description: "an HTTP header on every request ('Authorization: Bearer …')",
        },
        retries: {
          type: 'string',
          value: 'N',
          default: '6',
          description: 'retries of a failed request (back-off 0.5 s doubling to 30 s)',
        },
      },
      examples: [
        'dataset pull https://builds.example.org/landdata/ /srv/landdata/datasets --activate /srv/landdata/datasets/current',
        'dataset pull /mnt/artifact /srv/landdata/datasets --build 3f2a…',
      ],
      notes:
        'Progress: on a terminal one line (bytes, rate, time left), else one line per file, on stderr.\n' +
        'Exit codes: 0 installed (or already there), 1 not installed (one line says why; the\n' +
        'served build and the link are untouched), 2 usage error.',
    },
  ],
}

function retries(v: string | boolean | undefined): number {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 0 || n > 100)
    throw new UsageError(`--retries '${v}' is not a whole number from 0 to 100`)
  return n
}

runMain(DATASET_CLI, async ({ path, values, positionals }) => {
  if (typeof values.name === 'string') {
    const bad = badBuildName(values.name)
    if (bad) throw new UsageError(`--name ${bad}`)
  }
  if (path[1] === 'publish') {
    const [dir, target] = positionals
    const r = await publishDataset(dir, target, {
      compression: values.compress as Compression,
      name: values.name as string | undefined,
      log: values.quiet ? undefined : (l) => process.stderr.write(`${l}\n`),
    })
    console.log(
      `published build ${r.build.build_digest} (${r.build.name}) into ${target}: ${r.written} objects written ` +
        `(${formatBytes(r.bytesWritten)}), ${r.reused} present already; the build's objects: ${formatBytes(r.bytesTotal)}`,
    )
    return 0
  }
  const [from, datasets] = positionals
  let headers: Record<string, string> = {}
  if (typeof values.header === 'string') {
    try {
      headers = parseHeader(values.header)
    } catch (err) {
      throw new UsageError((err as Error).message)
    }
  }
  const r = await pullBuild(openSource(from, headers), datasets, {
    build: values.build as string,
    name: values.name as string | undefined,
    activate: values.activate as string | undefined,
    retry: { retries: retries(values.retries), baseMs: 500, maxMs: 30_000 },
    progress: createPullProgress(process.stderr),
  })
  const what = r.present
    ? `build ${r.digest} is in ${r.dir} already`
    : `pulled build ${r.digest} into ${r.dir}: ${r.filesFetched} files fetched (${formatBytes(r.bytesFetched)}), ` +
      `${r.filesLinked} linked from builds held (${formatBytes(r.bytesLinked)})`
  const activated = values.activate
    ? r.signalled === null
      ? `; ${values.activate} points at it (no server running: it serves it when started)`
      : `; ${values.activate} points at it, server (pid ${r.signalled}) signalled: its log says how the switch went`
    : ''
  console.log(`${what}${activated}`)
  return 0
})
