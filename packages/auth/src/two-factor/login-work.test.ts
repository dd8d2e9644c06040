/**
 * The two-step answer comes only after a correct password (docs/reference/two-factor.md#signing-in), so a wrong password
 * costs a two-factor account exactly what it costs any other: the same store calls, the same one
 * password verification, the same bytes. Compared as work done, not as time (the machines are
 * noisy; `pnpm bench` measures time).
 */
import * as OTPAuth from 'otpauth'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import type { PasswordHasher } from '../password.js'
import type { Store, UserRecord } from '../store/types.js'
import { fastHasher } from '../testing/index.js'

/** The store with every method call recorded by name. */
const recording = (store: Store<UserRecord>, calls: string[]): Store<UserRecord> =>
  new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        calls.push(String(key))
        return value.apply(target, args)
      }
    },
  })

describe.each(STORES)('a wrong password on a two-factor account, on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })

  it.skipIf(skip !== null)('does the same work and answers the same bytes as on any other account', async () => {
    const calls: string[] = []
    let verifications = 0
    const inner = fastHasher()
    const hasher: PasswordHasher = {
      ...inner,
      verify: (hash, password) => {
        verifications++
        return inner.verify(hash, password)
      },
    }
    const h = harness({ store: recording(opened.store, calls), hasher })
    const ada = await h.signup('ada@example.com')
    await h.signup('bob@example.com')
    await h.verifyEmail('ada@example.com')
    const setup = await h.request('POST', '/auth/two-factor/setup', { json: { currentPassword: PASSWORD }, headers: ada.bearer })
    const { uri } = (await setup.json()) as { uri: string }
    const code = OTPAuth.URI.parse(uri).generate({ timestamp: h.clock.now().getTime() })
    const emailCode = await h.emailCode('ada@example.com')
    expect((await h.request('POST', '/auth/two-factor/enable', { json: { code, emailCode }, headers: ada.bearer })).status).toBe(
      200,
    )

    const attempt = async (email: string) => {
      calls.length = 0
      verifications = 0
      const res = await h.request('POST', '/auth/login', { json: { email, password: 'not the password at all' } })
      return { status: res.status, body: await res.text(), calls: [...calls], verifications }
    }
    const twoFactor = await attempt('ada@example.com')
    const plain = await attempt('bob@example.com')
    expect(twoFactor.status).toBe(401)
    expect(twoFactor).toEqual(plain)
    expect(twoFactor.verifications).toBe(1)
    expect(twoFactor.calls).toEqual(['findUserByEmail'])
  })
})
