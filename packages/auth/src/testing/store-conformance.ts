/**
 * One conformance suite for every {@link Store}: the SQLite store runs it, so does PostgreSQL,
 * and so should yours. It checks what the store keeps and the atomicity of its conditional
 * steps (the refresh swap, single-use consumption, the second factor's replay guard) with 20 concurrent callers; the rotation
 * cases run the session core's rules over the store, as the routes do.
 *
 * @example
 * storeConformance('sqlite', async () => {
 *   const db = openSqlite(':memory:'); migrateSqlite(db)
 *   return { store: sqliteStore(db), close: async () => db.close() }
 * })
 */
import { afterEach, beforeEach, describe } from 'vitest'
import { adminConformance } from '../admin/conformance.js'
import { apiKeysConformance } from '../api-keys/conformance.js'
import { emailSignInConformance } from '../email-sign-in/conformance.js'
import { identitiesConformance } from '../oauth/conformance.js'
import { passkeysConformance } from '../passkeys/conformance.js'
import type { Store, UserRecord } from '../store/types.js'
import { twoFactorConformance } from '../two-factor/conformance.js'
import { accountEventsConformance } from './conformance/account-events.js'
import { addCredentialCodesConformance } from './conformance/add-credential-codes.js'
import { authenticationConformance } from './conformance/authentication.js'
import { conformance } from './conformance/context.js'
import { devicesConformance } from './conformance/devices.js'
import { lifecycleConformance } from './conformance/lifecycle.js'
import { pruneConformance } from './conformance/prune.js'
import { resetTokensConformance } from './conformance/reset-tokens.js'
import { sessionsConformance } from './conformance/sessions.js'
import { usersConformance } from './conformance/users.js'

export type StoreFactory = () => Promise<{ store: Store<UserRecord>; close?: () => Promise<void> }>

export const storeConformance = (name: string, factory: StoreFactory): void => {
  describe(`Store conformance: ${name}`, () => {
    let store: Store<UserRecord> | undefined
    let close: (() => Promise<void>) | undefined

    beforeEach(async () => {
      ;({ store, close } = await factory())
    })
    afterEach(async () => {
      await close?.()
    })

    const t = conformance(() => {
      if (!store) throw new Error('storeConformance: the factory has not made a store yet')
      return store
    })
    usersConformance(t)
    sessionsConformance(t)
    authenticationConformance(t)
    resetTokensConformance(t)
    pruneConformance(t)
    lifecycleConformance(t)
    accountEventsConformance(t)
    twoFactorConformance(t)
    addCredentialCodesConformance(t)
    emailSignInConformance(t)
    devicesConformance(t)
    passkeysConformance(t)
    apiKeysConformance(t)
    identitiesConformance(t)
    adminConformance(t)
  })
}
