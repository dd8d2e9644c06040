/** Sign-in by email's store facet on each database family, for the stores' list (`feature-facets.ts`). */
import { defineFacet } from '../feature.js'
import { emailSignInPostgres } from './postgres-store.js'
import { emailSignInSqlite } from './sqlite-store.js'

export const emailSignInFacet = defineFacet({ sqlite: emailSignInSqlite, postgres: emailSignInPostgres })
