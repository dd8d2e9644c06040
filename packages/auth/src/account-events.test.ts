/**
 * The core's table is the only place a revocation rule lives: a rule added to it is applied by
 * every bundled store (they apply what they are handed) and fails a store that decides for
 * itself (here: one that hands itself today's rule whatever it is given). Proven for every
 * target each event's row does not name yet, on SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest'
import { freshSchema, pgUnreachable } from '../test/stores.js'
import { type AccountEvent, accountEvents, REVOCATION_TARGETS, type Revocation } from './account-events.js'
import { postgresStore } from './postgres/index.js'
import { migrateSqlite, openSqlite, sqliteStore } from './sqlite/index.js'
import type { Store, UserRecord } from './store/types.js'
import { revocationMismatches } from './testing/conformance/account-events.js'

/** A store that ignores the revocation it is handed and applies the table as it is today. */
const deciding = (store: Store<UserRecord>): Store<UserRecord> => ({
  ...store,
  replacePassword: (input) => store.replacePassword({ ...input, revoke: accountEvents['password-changed'] }),
  consumeResetToken: (input) => store.consumeResetToken({ ...input, revoke: accountEvents['password-reset'] }),
  verifyEmail: (input) => store.verifyEmail({ ...input, revoke: accountEvents['email-verified'] }),
  settleEmailVerification: (input) =>
    store.settleEmailVerification({ ...input, revoke: accountEvents['email-verification-settled'] }),
  confirmEmailChange: (input) => store.confirmEmailChange({ ...input, revoke: accountEvents['email-change-confirmed'] }),
  enableTwoFactor: (input) => store.enableTwoFactor({ ...input, revoke: accountEvents['two-factor-enabled'] }),
  deleteTwoFactor: (input) => store.deleteTwoFactor({ ...input, revoke: accountEvents['two-factor-disabled'] }),
  settleEmailSignIn: (input) => store.settleEmailSignIn({ ...input, revoke: accountEvents['email-sign-in-settled'] }),
  setUserDisabled: (input) =>
    store.setUserDisabled({ ...input, revoke: accountEvents[input.disabledAt ? 'account-disabled' : 'account-enabled'] }),
  revokeUser: (userId) => store.revokeUser(userId, accountEvents['signed-out-by-operator']),
})

/** Every event whose store method is handed its revocation, with each rule its row could gain. */
const additions = (Object.keys(accountEvents) as AccountEvent[])
  .filter(
    (event) =>
      ![
        'passkey-added',
        'passkey-removed',
        'identity-linked',
        'identity-unlinked',
        'account-deleted',
        'email-verified-by-operator',
      ].includes(event),
  )
  .flatMap((event) => {
    const row: Revocation = accountEvents[event]
    // Enabling makes the factor itself: that it would then revoke it is not observable. Nor that a
    // settling verification would delete every kind of email token: its own kind has one, the spent one.
    const unobservable = (target: keyof Revocation) =>
      (event === 'two-factor-enabled' && target === 'twoFactor') ||
      (event === 'email-verification-settled' && target === 'emailTokens')
    const observable = REVOCATION_TARGETS.filter((target) => !unobservable(target))
    return observable
      .filter((target) => row[target] === undefined || row[target] === 'change-email')
      .map((target): [AccountEvent, Revocation] => [
        event,
        { ...row, [target]: target === 'sessions' || target === 'emailTokens' ? 'all' : true },
      ])
  })

const proof = (name: string, open: () => Promise<{ store: Store<UserRecord>; close: () => Promise<unknown> }>) =>
  describe(`a rule added to the core table (${name})`, () => {
    it.each(additions)('%s with %j: applied by the store, refused by a store that decides for itself', async (event, rule) => {
      const { store, close } = await open()
      try {
        expect(await revocationMismatches(store, event, rule)).toEqual([])
        expect(await revocationMismatches(deciding(store), event, rule)).not.toEqual([])
      } finally {
        await close()
      }
    })
  })

proof('sqlite', async () => {
  const db = openSqlite(':memory:')
  migrateSqlite(db)
  return { store: sqliteStore(db), close: async () => db.close() }
})

describe.skipIf(pgUnreachable !== null)('PostgreSQL', () => {
  proof('postgres', async () => {
    const db = await freshSchema()
    return { store: postgresStore(db.pool), close: db.drop }
  })
})
