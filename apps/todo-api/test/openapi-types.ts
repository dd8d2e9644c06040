/**
 * Types generated from an OpenAPI document with openapi-typescript, formatted by the repository's
 * own formatter (so the committed file passes `pnpm lint` as generated), and compared with the
 * committed file. Used by the app's generated-client test and by @latchkey/client's.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript'
import { REPO_ROOT } from './support.js'

/**
 * The types `document` generates, under a comment of the `header` lines; written to `file` first
 * when `update` is set. Answers whether the committed file is what the document generates.
 */
export const generatedTypesAreCommitted = async (options: {
  document: object
  file: string
  header: string[]
  update: boolean
}): Promise<boolean> => {
  // defaultNonNullable off: a property with a `default` (CreateTodoRequest.done) stays optional
  // for the client that sends it; openapi-typescript would otherwise make it required.
  const comment = ['/**', ...options.header.map((line) => ` * ${line}`), ' */', ''].join('\n')
  const source = comment + astToString(await openapiTS(options.document as OpenAPI3, { defaultNonNullable: false }))
  const generated = execFileSync(join(REPO_ROOT, 'node_modules/.bin/biome'), ['format', `--stdin-file-path=${options.file}`], {
    cwd: REPO_ROOT,
    input: source,
    encoding: 'utf8',
  })
  if (options.update) writeFileSync(options.file, generated)
  return readFileSync(options.file, 'utf8') === generated
}
