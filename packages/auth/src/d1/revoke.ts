/** The revocation primitive under its D1 names, for the facets still written per driver (`sqlite/revoke.ts`). */
export { lastRows, revokeSteps as revokeD1 } from '../sqlite/revoke.js'
