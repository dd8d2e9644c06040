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
import { at, T0 } from './context.js'

/** What the walk looks at after the event: each `true` when the event took it. */
interface Taken {
  /** The session that made the change (the one an event with a session keeps on `others`). */
  currentSession: boolean
  otherSession: boolean
  resetToken: boolean
  verifyToken: boolean
  changeToken: boolean
  challenge: boolean
  twoFactor: boolean
  recoveryCode: boolean
  password: boolean
  credentialsVersion: boolean
  apiKey: boolean
  identity: boolean
}

interface Fixture {
  user: UserRecord
  current: string
  /** The credentials version after setting up. */
  version: number
  /** The hashes of the user's reset, verify-email and change-email tokens and challenge. */
  hash: (kind: 'reset' | 'verify' | 'change' | 'challenge' | 'code' | 'new-code' | 'key') => string
}

interface Driver {
  /** Runs the event, handed `revoke`, and checks it happened. */
  run(store: Store<UserRecord>, f: Fixture, revoke: Revocation): Promise<void>
  /** Whether the event has a session of its own, which `sessions: 'others'` keeps. */
  keeps?: boolean
  /** What the event spends or changes by itself (not by its revocation): not judged. */
  spends?: (keyof Taken)[]
  /** The event needs the second factor pending, not enabled. */
  pendingFactor?: boolean
}

const SECRET = 'sealed-secret'
/** A passkey of `userId` as the store keeps it (the key material is not under test). */
export const passkey = (userId: string) => ({
  id: `pk-${userId}`,
  userId,
  publicKey: 'cose-key',
  counter: 0,
  transports: [],
  multiDevice: false,
  backedUp: false,
  name: 'Key',
  createdAt: T0,
})
const identity = (userId: string) => ({
  id: `id-${userId}`,
  userId,
  provider: 'example',
  issuer: 'https://id.example.com',
  subject: `sub-${userId}`,
  email: null,
  sealedTokens: null,
  createdAt: T0,
})

/** How each event is run through the store. A new event does not compile until it has one. */
const drivers: Record<AccountEvent, Driver> = {
  'password-changed': {
    keeps: true,
    run: async (store, { user, current, version }, revoke) => {
      const input = { userId: user.id, passwordHash: 'hash-2', credentialsVersion: version, keepSessionId: current, revoke }
      expect(await store.replacePassword(input)).toBe(true)
    },
  },
  'password-reset': {
    spends: ['resetToken'],
    run: async (store, { user, hash }, revoke) => {
      expect(await store.consumeResetToken({ tokenHash: hash('reset'), now: T0, passwordHash: 'hash-2', revoke })).toBe(user.id)
    },
  },
  'password-reset-first-proof': {
    spends: ['resetToken'],
    run: async (store, { user, hash }, revoke) => {
      expect(await store.consumeResetToken({ tokenHash: hash('reset'), now: T0, passwordHash: 'hash-2', revoke })).toBe(user.id)
    },
  },
  'email-verified': {
    spends: ['verifyToken'],
    run: async (store, { user, hash }, revoke) => {
      expect(await store.verifyEmail({ tokenHash: hash('verify'), now: T0, revoke })).toBe(user.id)
    },
  },
  'email-verification-settled': {
    spends: ['verifyToken'],
    run: async (store, { user, hash }, revoke) => {
      const settled = await store.settleEmailVerification({ tokenHash: hash('verify'), now: T0, revoke })
      expect(settled).toMatchObject({ userId: user.id, settled: true })
    },
  },
  'email-change-confirmed': {
    spends: ['changeToken'],
    run: async (store, { hash }, revoke) => {
      expect((await store.confirmEmailChange({ tokenHash: hash('change'), now: T0, revoke })).status).toBe('changed')
    },
  },
  'two-factor-enabled': {
    keeps: true,
    pendingFactor: true,
    spends: ['twoFactor', 'recoveryCode'],
    run: async (store, { user, current, hash }, revoke) => {
      const input = {
        userId: user.id,
        secret: SECRET,
        step: 1,
        recoveryCodeHashes: [hash('new-code')],
        keepSessionId: current,
        now: T0,
      }
      expect(await store.enableTwoFactor({ ...input, revoke })).not.toBeNull()
    },
  },
  'two-factor-disabled': {
    keeps: true,
    run: async (store, { user, current }, revoke) => {
      expect(await store.deleteTwoFactor({ userId: user.id, keepSessionId: current, revoke })).toBe(true)
    },
  },
  'email-sign-in-settled': {
    run: async (store, { user }, revoke) => {
      const settled = await store.settleEmailSignIn({ email: user.email, userId: user.id, newUser: null, revoke })
      expect(settled).toMatchObject({ userId: user.id, settled: true })
    },
  },
  'passkey-added': {
    run: async (store, { user }) => {
      expect(await store.createPasskey(passkey(user.id))).toBe(true)
    },
  },
  'passkey-removed': {
    run: async (store, { user }) => {
      expect(await store.createPasskey(passkey(user.id))).toBe(true)
      expect(await store.deletePasskey(user.id, passkey(user.id).id)).toBe('deleted')
    },
  },
  'identity-linked': {
    run: async (store, { user }) => {
      expect(await store.linkIdentity(identity(user.id))).toBe('linked')
    },
  },
  'identity-unlinked': {
    run: async (store, { user }) => {
      expect(await store.linkIdentity(identity(user.id))).toBe('linked')
      expect(await store.deleteIdentity(user.id, identity(user.id).id)).toBe('deleted')
    },
  },
  'account-disabled': {
    run: async (store, { user }, revoke) => {
      expect(await store.setUserDisabled({ userId: user.id, disabledAt: T0, revoke })).not.toBeNull()
      expect((await store.findUserById(user.id))?.user.disabledAt).toEqual(T0)
    },
  },
  'account-enabled': {
    run: async (store, { user }, revoke) => {
      expect(await store.setUserDisabled({ userId: user.id, disabledAt: null, revoke })).not.toBeNull()
      expect((await store.findUserById(user.id))?.user.disabledAt).toBeNull()
    },
  },
  'signed-out-by-operator': {
    run: async (store, { user }, revoke) => {
      await store.revokeUser(user.id, revoke)
    },
  },
  'two-factor-cleared-by-operator': {
    run: async (store, { user }, revoke) => {
      expect(await store.deleteTwoFactor({ userId: user.id, keepSessionId: null, revoke })).toBe(true)
    },
  },
  'email-verified-by-operator': {
    run: async (store, { user }) => {
      expect(await store.markEmailVerified(user.id)).toBe(true)
      expect((await store.findUserById(user.id))?.user.emailVerified).toBe(true)
    },
  },
  'account-deleted': {
    run: async (store, { user, version }) => {
      expect(await store.deleteUser(user.id, version)).toBe(true)
    },
  },
}

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
