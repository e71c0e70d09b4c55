/**
 * The served OpenAPI document is the API's contract: it must change only on purpose. A change
 * that alters it fails here; when the change is meant, regenerate the snapshot with
 * `UPDATE_OPENAPI=1 npx vitest run test/openapi.test.ts` and say in the commit what changed.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { json, makeTestApp } from './helpers.js'

const SNAPSHOT = fileURLToPath(new URL('./fixtures/openapi.json', import.meta.url))

describe('the OpenAPI document', () => {
  it('equals the committed snapshot', async () => {
    const doc = await json(await makeTestApp().get('/api/v1/openapi.json'))
    const text = JSON.stringify(doc, null, 1) + '\n'
    if (process.env.UPDATE_OPENAPI === '1') writeFileSync(SNAPSHOT, text)
    expect(text).toBe(readFileSync(SNAPSHOT, 'utf8'))
  })
})
