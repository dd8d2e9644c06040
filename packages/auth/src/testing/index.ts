/**
 * `@latchkey/auth/testing`: the store conformance suite every store runs, and a fast hasher
 * for tests. Requires `vitest` (a peer dependency of this subpath only).
 */
export { fastHasher } from './fast-hasher.js'
export { type StoreFactory, storeConformance } from './store-conformance.js'
