/**
 * `@latchkey/auth/testing`: for store authors and tests. `storeKit` is one namespace holding the
 * store conformance suite every store runs and the types a store implements; beside it a fast
 * hasher, `tableShape` to keep a table's SQLite and PostgreSQL definitions alike, and `keyIdOf`
 * for tools that sign tokens, `seededApiKey` for tools that write API keys straight into a database. The suite requires `vitest` (a peer dependency of this subpath
 * only); the types cost nothing at run time.
 *
 * @example
 * import { storeKit } from '@latchkey/auth/testing'
 * storeKit.storeConformance('my store', async () => ({ store: myStore(), close: async () => {} }))
 */

export { keyIdOf } from '../access-token.js'
export { seededApiKey } from '../api-keys/key-format.js'
export { fastHasher } from './fast-hasher.js'
export * as storeKit from './store-kit.js'
export { type TableShape, tableShape } from './table-shape.js'
