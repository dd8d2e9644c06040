/** The operators' store facet on each database family, for the stores' list (`feature-facets.ts`). */
import { defineFacet } from '../feature.js'
import { postgresAdminStore } from './postgres-store.js'
import { sqliteAdminStore } from './sqlite-store.js'

export const adminFacet = defineFacet({ sqlite: sqliteAdminStore, postgres: postgresAdminStore })
