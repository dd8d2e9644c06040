/** The second factor's store facet on each database family, for the stores' list (`feature-facets.ts`). */
import { defineFacet } from '../feature.js'
import { postgresTwoFactor } from './postgres-store.js'
import { sqliteTwoFactor } from './sqlite-store.js'

export const twoFactorFacet = defineFacet({ sqlite: sqliteTwoFactor, postgres: postgresTwoFactor })
