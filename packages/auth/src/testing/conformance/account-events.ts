/**
 * What each account event revokes (docs/reference/lifecycle.md#what-each-account-event-revokes),
 * walked from the core's table: for every event, a user with one of everything a revocation may
 * name, the event run through the store with its row of the table, then every target looked at.
 * A store that applies what it is handed passes whatever the table says; one that decides for
 * itself fails as soon as a row changes.
 */
import { describe, expect, it } from 'vitest'
import { type AccountEvent, type AccountEventTable, accountEvents, type Revocation } from '../../account-events.js'
import type { Store, UserRecord } from '../../store/types.js'
import { type Driver, drivers, type Fixture, SECRET, type Taken } from './account-event-drivers.js'
import { at, T0 } from './context.js'

/** A user with a second factor, two sessions, a reset, verify-email and change-email token, a challenge and an API key. */
const setUp = async (store: Store<UserRecord>, driver: Driver): Promise<Fixture> => {
  const tag = crypto.randomUUID()
  const hash = (kind: string) => `${kind}-${tag}`
  const user = await store.createUser({
    id: tag,
    name: 'Ada',
    email: `${tag}@example.com`,
    passwordHash: 'hash-1',
    createdAt: T0,
  })
  if (!user) throw new Error('createUser refused a fresh email')
  await store.setPendingTwoFactor(user.id, SECRET, T0)
  if (!driver.pendingFactor) {
    // Setting up, before anything an enable could revoke exists: not the event under test.
    const enable = {
      userId: user.id,
      secret: SECRET,
      step: 1,
      recoveryCodeHashes: [hash('code')],
      keepSessionId: 'none',
      now: T0,
    }
    if (!(await store.enableTwoFactor({ ...enable, revoke: {} }))) throw new Error('enableTwoFactor refused a pending factor')
  }
  const version = (await store.findUserById(user.id))?.credentialsVersion ?? Number.NaN
  const session = async () => {
    const id = crypto.randomUUID()
    if (!(await store.createSession({ id, userId: user.id, refreshHash: id, now: T0, credentialsVersion: version })))
      throw new Error('createSession refused a fresh user')
    return id
  }
  const current = await session()
  await session()
  const expiresAt = at(3_600_000)
  await store.createResetToken({ userId: user.id, tokenHash: hash('reset'), expiresAt })
  await store.createEmailToken({ kind: 'verify-email', userId: user.id, tokenHash: hash('verify'), expiresAt })
  const newEmail = `new-${tag}@example.com`
  await store.createEmailToken({ kind: 'change-email', userId: user.id, tokenHash: hash('change'), expiresAt, newEmail })
  await store.createChallenge({
    hash: hash('challenge'),
    userId: user.id,
    credentialsVersion: version,
    firstFactor: 'pwd',
    expiresAt,
  })
  const key = { id: `key-${tag}`, userId: user.id, name: 'CI', scopes: ['read'], prefix: 'lk_000000000' }
  await store.createApiKey({ ...key, hash: hash('key'), createdAt: T0, expiresAt: at(86_400_000) }, 50, T0)
  const identity = {
    id: `identity-${tag}`,
    userId: user.id,
    provider: 'corp',
    issuer: 'https://sso.corp.example',
    subject: `subject-${tag}`,
    email: null,
    sealedTokens: null,
    createdAt: T0,
  }
  if ((await store.linkIdentity(identity)) !== 'linked') throw new Error('linkIdentity refused a fresh identity')
  return { user, current, version, hash }
}

/** What the fixture has lost since it was set up. */
const look = async (store: Store<UserRecord>, f: Fixture, other: string[]): Promise<Taken> => {
  const found = await store.findUserById(f.user.id)
  const sessions = new Set((await store.listSessions(f.user.id)).map((s) => s.id))
  return {
    currentSession: !sessions.has(f.current),
    otherSession: other.some((id) => !sessions.has(id)),
    resetToken: (await store.findResetToken(f.hash('reset'), T0)) === null,
    verifyToken: (await store.findEmailToken(f.hash('verify'), 'verify-email', T0)) === null,
    changeToken: (await store.findEmailToken(f.hash('change'), 'change-email', T0)) === null,
    challenge: (await store.findChallenge(f.hash('challenge'), T0)) === null,
    twoFactor: (await store.findTwoFactor(f.user.id)) === null,
    recoveryCode: !(await store.useRecoveryCode(f.user.id, f.hash('code'), T0)),
    password: found === null || found.passwordHash === null,
    credentialsVersion: found === null || found.credentialsVersion > f.version,
    apiKey: (await store.findApiKey(f.hash('key'))) === null,
    identity: (await store.listIdentities(f.user.id)).length === 0,
  }
}

/** What a revocation should take of the fixture. */
const expected = (revoke: Revocation, keeps: boolean): Taken => ({
  currentSession: revoke.sessions === 'all' || (revoke.sessions === 'others' && !keeps),
  otherSession: revoke.sessions !== undefined,
  resetToken: revoke.resetTokens === true,
  verifyToken: revoke.emailTokens === 'all',
  changeToken: revoke.emailTokens !== undefined,
  challenge: revoke.challenges === true,
  twoFactor: revoke.twoFactor === true,
  recoveryCode: revoke.twoFactor === true,
  password: revoke.password === true,
  credentialsVersion: revoke.credentialsVersion === true,
  apiKey: revoke.apiKeys === true,
  identity: revoke.identities === true,
})

/**
 * Runs `event` through `store` with `revoke` on a fresh fixture; answers every target where what
 * the store did differs from `revoke` (empty: it applied exactly that).
 */
export const revocationMismatches = async (store: Store<UserRecord>, event: AccountEvent, revoke: Revocation) => {
  const driver = drivers[event]
  const f = await setUp(store, driver)
  const other = (await store.listSessions(f.user.id)).map((s) => s.id).filter((id) => id !== f.current)
  await driver.run(store, f, revoke)
  const taken = await look(store, f, other)
  const want = expected(revoke, driver.keeps === true)
  return (Object.keys(want) as (keyof Taken)[])
    .filter((target) => !driver.spends?.includes(target) && taken[target] !== want[target])
    .map((target) => `${event}: ${target} ${want[target] ? 'should be revoked, is kept' : 'should be kept, is revoked'}`)
}

/** Every row of `table` (the core's by default) over the store. */
export const accountEventsConformance = (t: { readonly store: Store<UserRecord> }, table: AccountEventTable = accountEvents) => {
  describe('what each account event revokes (the core table)', () => {
    for (const event of Object.keys(drivers) as AccountEvent[]) {
      it(`${event} revokes ${JSON.stringify(table[event])}, and nothing else`, async () => {
        expect(await revocationMismatches(t.store, event, table[event])).toEqual([])
      })
    }
  })
}
