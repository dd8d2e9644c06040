/**
 * The features' store facets, listed once (CONTRIBUTING.md, "Adding a feature"): each folder's
 * `facet.ts`, and the `Store` slice they make up. The stores (`sqlite/facets.ts`,
 * `postgres/store.ts`) compose their features' facets from this list; it reaches no route, so a
 * store's module graph holds only store code. `FeatureStore` is listed beside the records because
 * it is generic in the user (`U`), which a record's value cannot carry; the composition returns
 * what the records give as `FeatureStore`, so a facet in the type and missing from the list does
 * not compile.
 */
import { adminFacet } from './admin/facet.js'
import type { AdminStore } from './admin/store.js'
import { apiKeysFacet } from './api-keys/facet.js'
import type { ApiKeyStore } from './api-keys/store.js'
import { emailSignInFacet } from './email-sign-in/facet.js'
import type { EmailSignInStore } from './email-sign-in/store.js'
import type { Intersection } from './feature.js'
import { oauthFacet } from './oauth/facet.js'
import type { IdentityStore } from './oauth/store.js'
import { passkeysFacet } from './passkeys/facet.js'
import type { PasskeyStore } from './passkeys/store.js'
import type { PgDb } from './postgres/db.js'
import type { SqliteDb, SqliteSteps } from './sqlite/db.js'
import type { UserRecord } from './store/users.js'
import { twoFactorFacet } from './two-factor/facet.js'
import type { TwoFactorStore } from './two-factor/store.js'

/** Every feature's facet. */
const facets = [twoFactorFacet, emailSignInFacet, passkeysFacet, apiKeysFacet, oauthFacet, adminFacet] as const

type Listed = (typeof facets)[number]

/** Every feature's store facet: with the core's, the `Store` a database implements. */
export interface FeatureStore<U extends UserRecord = UserRecord>
  extends TwoFactorStore,
    EmailSignInStore,
    PasskeyStore,
    ApiKeyStore<U>,
    IdentityStore,
    AdminStore<U> {}

/** What the records' facets add up to. Returned as {@link FeatureStore}, it cannot lack a facet that type names. */
type ListedFacets = Intersection<ReturnType<Listed['sqlite'] | Listed['postgres']>>

/** Every feature's facet on a database of the SQLite family. */
export const sqliteFeatureFacets = (db: SqliteDb, steps: SqliteSteps): FeatureStore =>
  Object.assign({}, ...facets.map((facet) => facet.sqlite(db, steps))) as ListedFacets

/** Every feature's facet on PostgreSQL. */
export const postgresFeatureFacets = (db: PgDb): FeatureStore =>
  Object.assign({}, ...facets.map((facet) => facet.postgres(db))) as ListedFacets
