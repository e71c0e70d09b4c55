import { parseArgs } from 'node:util'
import { BuildError, buildDataset } from './build.js'

const USAGE =
  'usage: npm run build-index -- --source DIR --out DIR [--reuse PREVIOUS_BUILD] [--allow-rejects] [--force]'

async function main(argv: string[]): Promise<number> {
  // biome-ignore lint/suspicious/noImplicitAnyLet: typed by parseArgs where it is assigned
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        source: { type: 'string' },
        out: { type: 'string' },
        'allow-rejects': { type: 'boolean' },
        force: { type: 'boolean' },
        reuse: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }))
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`)
    return 2
  }
  if (values.help) {
    console.log(USAGE)
    return 0
  }
  if (!values.source || !values.out) {
    console.error(`--source and --out are required\n${USAGE}`)
    return 2
  }
  try {
    const m = await buildDataset({
      source: values.source,
      out: values.out,
      allowRejects: values['allow-rejects'],
      force: values.force,
      reuse: values.reuse,
    })
    const rows = Object.entries(m.domains).map(
      ([d, v]) =>
        `${d}: ${Object.entries(v!.layers)
          .map(([l, s]) => `${l} ${s.rows}`)
          .join(', ')}`,
    )
    console.error(`built ${values.out} (${m.files.length} files; ${rows.join('; ')})`)
    return 0
  } catch (err) {
    if (err instanceof BuildError || (err as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error(`build-index: ${(err as Error).message}`)
      return 1
    }
    console.error(`build-index: ${(err as Error).message}`)
    return 1
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code))
