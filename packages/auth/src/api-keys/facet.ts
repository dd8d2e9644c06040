/** The API keys' store facet on each database family, for the stores' list (`feature-facets.ts`). */
import { defineFacet } from '../feature.js'
import { postgresApiKeys } from './postgres-store.js'
import { sqliteApiKeys } from './sqlite-store.js'

export const apiKeysFacet = defineFacet({ sqlite: sqliteApiKeys, postgres: postgresApiKeys })
