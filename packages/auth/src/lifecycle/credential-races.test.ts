/**
 * A session is only ever created for the password that was verified (docs/reference/lifecycle.md#credentials-version): a login or a
 * password change that verified a password which a concurrent reset replaced creates nothing and
 * overwrites nothing. The races are made deterministic by holding the verification at a latch.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../../test/harness.js'
import { latchHasher } from '../../test/latch-hasher.js'
import { type OpenedStore, STORES } from '../../test/stores.js'

const NEW_PASSWORD = 'copper meadow ninety owls'

describe.each(STORES)('credential races on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })

  const setup = async (email = 'ada@example.com') => {
    const latch = latchHasher()
    const h = harness({ store: opened.store, hasher: latch.hasher })
    const ada = await h.signup(email)
    expect((await h.request('POST', '/auth/forgot-password', { json: { email } })).status).toBe(202)
    // The token is written and mailed off the request path.
    await h.auth.settled()
    expect(h.mails).toHaveLength(1)
    return { h, latch, ada, token: h.mails[0]?.token ?? '' }
  }

  const reset = (h: ReturnType<typeof harness>, token: string) =>
    h.request('POST', '/auth/reset-password', { json: { token, newPassword: NEW_PASSWORD } })

  it.skipIf(skip !== null)('a login with the old password that a reset overtakes answers 401 and opens no session', async () => {
    const { h, latch, ada, token } = await setup()
    const sessionsBefore = await opened.count('auth_sessions')
    const held = latch.hold()
    const login = h.login(ada.user.email, PASSWORD)
    await held.entered
    expect((await reset(h, token)).status).toBe(204)
    held.release()

    const answer = await login
    expect(answer.status).toBe(401)
    expect(answer.headers.getSetCookie()).toEqual([])
    // The reset revoked the signup session; the racing login added none.
    expect(await opened.count('auth_sessions')).toBe(sessionsBefore - 1)
    expect((await h.login(ada.user.email, PASSWORD)).status).toBe(401)
    expect((await h.login(ada.user.email, NEW_PASSWORD)).status).toBe(200)
  })

  it.skipIf(skip !== null)('a re-hash of the old password never overwrites the new one a reset set meanwhile', async () => {
    for (let run = 0; run < 3; run++) {
      const { h, latch, ada, token } = await setup(`run-${run}@example.com`)
      const stored = (await opened.store.findUserById(ada.user.id))?.passwordHash ?? ''
      latch.markLegacy(stored)
      const held = latch.hold()
      const login = h.login(ada.user.email, PASSWORD)
      await held.entered
      expect((await reset(h, token)).status).toBe(204)
      held.release()
      expect((await login).status).toBe(401)

      expect((await h.login(ada.user.email, NEW_PASSWORD)).status).toBe(200)
      expect((await h.login(ada.user.email, PASSWORD)).status).toBe(401)
    }
  })

  it.skipIf(skip !== null)('a password change whose current password a reset replaced meanwhile is refused', async () => {
    const { h, latch, ada, token } = await setup()
    const held = latch.hold()
    const change = h.request('POST', '/auth/change-password', {
      headers: ada.bearer,
      json: { currentPassword: PASSWORD, newPassword: 'silver harbour seventy foxes' },
    })
    await held.entered
    expect((await reset(h, token)).status).toBe(204)
    held.release()
    expect((await change).status).toBe(400)
    expect((await h.login(ada.user.email, NEW_PASSWORD)).status).toBe(200)
    expect((await h.login(ada.user.email, 'silver harbour seventy foxes')).status).toBe(401)
  })

  it.skipIf(skip !== null)('a reset link mailed before a password change is dead after it', async () => {
    const { h, ada, token } = await setup()
    const changed = await h.request('POST', '/auth/change-password', {
      headers: ada.bearer,
      json: { currentPassword: PASSWORD, newPassword: 'silver harbour seventy foxes' },
    })
    expect(changed.status).toBe(204)
    expect((await reset(h, token)).status).toBe(400)
    expect((await h.login(ada.user.email, 'silver harbour seventy foxes')).status).toBe(200)
  })
})
