/**
 * The rotations of docs/guide/rotating-keys.md, end to end over HTTP on both stores, each step a "restart" (a new
 * `createAuth` on the same database): rotating the signing secret and dropping the old one never
 * touches the sealed TOTP keys; rotating the encryption key, running the sweep until no row names
 * the old key and then dropping it locks nobody out; a key sealed by the earlier version under
 * a signing secret still opens and is sealed again under the encryption key; and a provider's
 * kept tokens are counted, sealed again and still open once the old key is gone.
 */
import * as OTPAuth from 'otpauth'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { harness, PASSWORD, T0 } from '../../test/harness.js'
import { HOSTILE_CLIENT, startHostileProvider } from '../../test/hostile-provider.js'
import { begin, callback, landed } from '../../test/oauth-flow.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import type { AuthOptions, UserRecord } from '../index.js'

type H = ReturnType<typeof harness>
const STEP_MS = 30_000
const [S1, S2] = ['signing-secret-one-0123456789abcdefghijklmn', 'signing-secret-two-nmlkjihgfedcba9876543210']
const [E1, E2] = ['encryption-key-one-0123456789ABCDEFGHIJKLMN', 'encryption-key-two-NMLKJIHGFEDCBA9876543210']

/** A provider on a loopback port whose tokens the app keeps (`keepTokens: true`). */
let idp: Awaited<ReturnType<typeof startHostileProvider>>
beforeAll(async () => {
  idp = await startHostileProvider()
})
afterAll(async () => {
  await idp.close()
})

describe.each(STORES)('key rotation on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const run = it.skipIf(skip !== null)

  /** One clock across restarts: each server starts where the last one stopped. */
  let elapsed = 0
  const restart = (keys: Pick<AuthOptions<UserRecord>, 'secret' | 'encryptionKeys' | 'providers'>) => {
    const h = harness({ store: opened.store, prune: { intervalSeconds: 0 }, ...keys })
    h.clock.advance(elapsed)
    return h
  }
  const later = (h: H, ms: number) => {
    h.clock.advance(ms)
    elapsed = h.clock.now().getTime() - T0.getTime()
  }

  /** Signs up, proves the mailbox, turns two-factor on over HTTP; answers the authenticator. */
  const withTwoFactor = async (h: H) => {
    elapsed = 0
    const user = await h.signup()
    await h.verifyEmail()
    const setup = await h.request('POST', '/auth/two-factor/setup', { json: { currentPassword: PASSWORD }, headers: user.bearer })
    expect(setup.status).toBe(200)
    const totp = OTPAuth.URI.parse(((await setup.json()) as { uri: string }).uri) as OTPAuth.TOTP
    const code = (at: H) => totp.generate({ timestamp: at.clock.now().getTime() })
    // Adding a factor needs the mailbox: the code mailed by setup.
    const enable = await h.request('POST', '/auth/two-factor/enable', {
      json: { code: code(h), emailCode: await h.emailCode() },
      headers: user.bearer,
    })
    expect(enable.status).toBe(200)
    later(h, STEP_MS)
    return { ...user, code }
  }

  /** A full two-factor sign-in, then turning the factor off with a code: what a locked-out user cannot do. */
  const signInAndDisable = async (h: H, code: (h: H) => string) => {
    const login = await h.login()
    expect(login.status).toBe(202)
    const { challenge } = (await login.json()) as { challenge: string }
    const verified = await h.request('POST', '/auth/two-factor/verify', { json: { challenge, code: code(h) } })
    expect(verified.status).toBe(200)
    const { accessToken } = (await verified.json()) as { accessToken: string }
    later(h, STEP_MS)
    const disabled = await h.request('POST', '/auth/two-factor/disable', {
      json: { currentPassword: PASSWORD, code: code(h) },
      headers: { Authorization: `Bearer ${accessToken}` },
    })
    expect(disabled.status).toBe(204)
  }

  run('rotating the signing secret and dropping the old one leaves two-factor users able to sign in and disable', async () => {
    const first = restart({ secret: S1, encryptionKeys: E1 })
    const { code } = await withTwoFactor(first)
    // Step 1: the new secret first; step 2, 15 minutes later: the old one dropped. No code was
    // used during the overlap.
    const overlap = restart({ secret: [S2, S1], encryptionKeys: E1 })
    later(overlap, 15 * 60_000)
    const after = restart({ secret: S2, encryptionKeys: E1 })
    await signInAndDisable(after, code)
    expect(await after.auth.sealedUnderOldKeys()).toBe(0)
  })

  run('rotating the encryption key: the sweep seals everything again, the count reaches 0, the old key goes', async () => {
    const first = restart({ secret: S1, encryptionKeys: E1 })
    const { code } = await withTwoFactor(first)
    const rotated = restart({ secret: S1, encryptionKeys: [E2, E1] })
    expect(await rotated.auth.sealedUnderOldKeys()).toBe(1)
    expect(await rotated.auth.prune()).toMatchObject({ resealed: 1 })
    expect(await rotated.auth.sealedUnderOldKeys()).toBe(0)
    const secrets = (await opened.rows('auth_two_factors')).map((row) => String(row.secret))
    expect(secrets).toHaveLength(1)
    expect(secrets[0]?.startsWith('v2.')).toBe(true)
    const dropped = restart({ secret: S1, encryptionKeys: E2 })
    await signInAndDisable(dropped, code)
  })

  run(
    'a key sealed the old way, under the signing secret, opens, is sealed again, and survives dropping that secret',
    async () => {
      // The earlier version: no encryption keys, the signing secret seals.
      const old = restart({ secret: S1, encryptionKeys: undefined })
      expect(old.logs.some((line) => line.includes('encryptionKeys'))).toBe(true)
      const { code } = await withTwoFactor(old)
      expect(String((await opened.rows('auth_two_factors'))[0]?.secret).startsWith('v1.')).toBe(true)

      const upgraded = restart({ secret: S1, encryptionKeys: E1 })
      expect(await upgraded.auth.sealedUnderOldKeys()).toBe(1)
      expect(await upgraded.auth.prune()).toMatchObject({ resealed: 1 })
      expect(await upgraded.auth.sealedUnderOldKeys()).toBe(0)
      const rotated = restart({ secret: S2, encryptionKeys: E1 })
      await signInAndDisable(rotated, code)
    },
  )

  run('a provider’s kept tokens: counted under the old key, sealed again by the sweep, open after the old key goes', async () => {
    elapsed = 0
    const providers = [{ id: 'idp', name: 'Provider', issuer: idp.issuer, ...HOSTILE_CLIENT, keepTokens: true }]
    const first = restart({ secret: S1, encryptionKeys: E1, providers })
    const started = await begin(first, 'idp')
    const seconds = Math.floor(Date.now() / 1000)
    idp.respond({
      iss: idp.issuer,
      aud: HOSTILE_CLIENT.clientId,
      sub: 'person-1',
      nonce: started.nonce,
      iat: seconds,
      exp: seconds + 300,
      email: 'person@example.com',
      email_verified: true,
    })
    const signedIn = await callback(
      first,
      'idp',
      `code=c0de&state=${started.state}&iss=${encodeURIComponent(idp.issuer)}`,
      started.cookie,
    )
    expect(await landed(signedIn)).toBe('/back')
    const userId = (await opened.store.findUserByEmail('person@example.com'))?.user.id ?? ''
    const kept = await first.auth.providerTokens(userId, 'idp')
    expect(kept?.accessToken).toMatch(/^at-/)
    expect(await first.auth.sealedUnderOldKeys()).toBe(0)
    const sealedBefore = String((await opened.rows('auth_identities'))[0]?.sealed_tokens)

    // Dropping the old key before the sweep would lose them: nothing the new key alone opens.
    expect(await restart({ secret: S1, encryptionKeys: E2, providers }).auth.providerTokens(userId, 'idp')).toBeNull()

    const rotated = restart({ secret: S1, encryptionKeys: [E2, E1], providers })
    expect(await rotated.auth.sealedUnderOldKeys()).toBe(1)
    expect(await rotated.auth.providerTokens(userId, 'idp')).toEqual(kept)
    expect(await rotated.auth.prune()).toMatchObject({ resealed: 1 })
    expect(await rotated.auth.sealedUnderOldKeys()).toBe(0)
    const sealedAfter = String((await opened.rows('auth_identities'))[0]?.sealed_tokens)
    expect(sealedAfter).not.toBe(sealedBefore)
    expect(sealedAfter).not.toContain(kept?.accessToken)
    expect(await rotated.auth.providerTokens(userId, 'idp')).toEqual(kept)
    // A second sweep finds nothing left to seal.
    expect(await rotated.auth.prune()).toMatchObject({ resealed: 0 })

    const dropped = restart({ secret: S1, encryptionKeys: E2, providers })
    expect(await dropped.auth.providerTokens(userId, 'idp')).toEqual(kept)
    expect(await dropped.auth.sealedUnderOldKeys()).toBe(0)
  })

  run('without encryption keys, the count says when a signing secret may be dropped', async () => {
    const old = restart({ secret: S1, encryptionKeys: undefined })
    const { code } = await withTwoFactor(old)
    const rotated = restart({ secret: [S2, S1], encryptionKeys: undefined })
    expect(await rotated.auth.sealedUnderOldKeys()).toBe(1)
    await rotated.auth.prune()
    expect(await rotated.auth.sealedUnderOldKeys()).toBe(0)
    await signInAndDisable(restart({ secret: S2, encryptionKeys: undefined }), code)
  })
})
