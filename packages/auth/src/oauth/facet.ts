/** The provider identities' store facet on each database family, for the stores' list (`feature-facets.ts`). */
import { defineFacet } from '../feature.js'
import { postgresIdentities } from './postgres-store.js'
import { sqliteIdentities } from './sqlite-store.js'

export const oauthFacet = defineFacet({ sqlite: sqliteIdentities, postgres: postgresIdentities })
