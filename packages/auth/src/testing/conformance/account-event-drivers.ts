/**
 * How each account event is run through a store, for the walk of `account-events.ts`: one driver
 * an event (a new event does not compile until it has one), and what the walk looks at.
 */
import { expect } from 'vitest'
import type { AccountEvent, Revocation } from '../../account-events.js'
import type { Store, UserRecord } from '../../store/types.js'
import { T0 } from './context.js'

/** What the walk looks at after the event: each `true` when the event took it. */
export interface Taken {
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

export interface Fixture {
  user: UserRecord
  current: string
  /** The credentials version after setting up. */
  version: number
  /** The hashes of the user's reset, verify-email and change-email tokens and challenge. */
  hash: (kind: 'reset' | 'verify' | 'change' | 'challenge' | 'code' | 'new-code' | 'key') => string
}

export interface Driver {
  /** Runs the event, handed `revoke`, and checks it happened. */
  run(store: Store<UserRecord>, f: Fixture, revoke: Revocation): Promise<void>
  /** Whether the event has a session of its own, which `sessions: 'others'` keeps. */
  keeps?: boolean
  /** What the event spends or changes by itself (not by its revocation): not judged. */
  spends?: (keyof Taken)[]
  /** The event needs the second factor pending, not enabled. */
  pendingFactor?: boolean
}

export const SECRET = 'sealed-secret'
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
export const drivers: Record<AccountEvent, Driver> = {
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
