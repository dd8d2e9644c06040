/** The passkeys' store facet on each database family, for the stores' list (`feature-facets.ts`). */
import { defineFacet } from '../feature.js'
import { postgresPasskeyStore } from './postgres-store.js'
import { sqlitePasskeyStore } from './sqlite-store.js'

export const passkeysFacet = defineFacet({ sqlite: (db) => sqlitePasskeyStore(db), postgres: postgresPasskeyStore })
