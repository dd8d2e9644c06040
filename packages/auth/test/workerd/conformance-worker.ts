/**
 * A Worker that runs the store conformance suite on the D1 store inside workerd, the store's code
 * and D1 both in the runtime (test/runtimes.test.ts bundles it with `vitest` mapped to
 * vitest-shim.ts and reads the outcomes from its answer).
 */
import { type D1DatabaseLike, d1Store, migrateD1 } from '../../src/d1/index.js'
import { storeConformance } from '../../src/testing/store-conformance.js'
import { AUTH_TABLES as TABLES } from './tables.js'
import { run } from './vitest-shim.js'

export default {
  async fetch(_request: Request, env: { DB: D1DatabaseLike & { prepare(query: string): unknown } }) {
    await migrateD1(env.DB)
    storeConformance('d1 inside workerd', async () => {
      await env.DB.batch(TABLES.map((table) => env.DB.prepare(`DELETE FROM ${table}`)))
      return { store: d1Store(env.DB) }
    })
    return Response.json(await run())
  },
}
