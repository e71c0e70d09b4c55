import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Context, Hono } from 'hono'
import type { AppEnv } from './env.js'
import { ApiError } from './errors.js'
import type { Answer, Answerer } from './front-door.js'
import { reply, setHeader } from './reply.js'

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
}

/**
 * `/docs`: Swagger UI over `/api/v1/openapi.json`, served from the swagger-ui-dist package on
 * this machine (nothing is fetched from a CDN, so it works offline and behind firewalls).
 * An API key typed into "Authorize" lives in the page only: `persistAuthorization: false`
 * keeps Swagger UI from writing it to the browser's localStorage, where any script of the
 * origin, and anyone at the machine later, could read it (docs/api.md "Authentication").
 */
export function mountDocs(
  app: Hono<AppEnv>,
  specUrl: string,
  open: (handler: Answerer, route: string) => (c: Context<AppEnv>) => Answer,
): void {
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  const cache = new Map<string, string>()
  const asset = (c: Context<AppEnv>): Response => {
    const file = c.req.param('file') ?? ''
    const type = ASSETS[file]
    if (!type) throw new ApiError('NotFound', `no route for ${c.req.method} ${c.req.path}`)
    let body = cache.get(file)
    if (body === undefined) cache.set(file, (body = readFileSync(join(dir, file), 'utf8')))
    setHeader(c, 'Cache-Control', 'public, max-age=86400')
    return reply(c, body, 200, type)
  }
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Land-data API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#ui', deepLinking: true, persistAuthorization: false })</script>
</body></html>`
  app.get('/docs/assets/:file', open(asset, '/docs/assets/{file}'))
  app.get(
    '/docs',
    open((c) => reply(c, page, 200, 'text/html; charset=UTF-8'), '/docs'),
  )
}
