/**
 * The device cookie where cookies are secure (docs/guide/account-protection.md#the-device-cookie),
 * on both stores: `__Host-device`, so a sibling host can neither plant nor shadow it; a cookie a
 * sibling could plant (the previous release's `__Secure-device`, a plain `device`) beside the real
 * one never becomes known to the account, while a request with several device cookies is the
 * browser of any one the account knows; and a previous release's cookie of a known browser stays
 * known after the upgrade, whatever secret signed it, and moves to the new name at the next sign-in.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { deviceCookie, harness, PASSWORD, SECRET } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import { hmacSha256Base64url } from '../web.js'

type H = ReturnType<typeof harness>
const WRONG = 'not the password at all'
const RETIRED_SECRET = 'a-secret-since-removed-that-is-long-enough-0123'

/** What the previous release set where cookies were secure: `__Secure-device=<id>.<mac>`, Path=/auth. */
const previousCookie = (id: string, secret = SECRET) =>
  `__Secure-device=${id}.${hmacSha256Base64url(hmacSha256Base64url(secret, 'latchkey device cookie v1'), id)}`

const login = (h: H, email: string, cookie: string | null, password = PASSWORD, ip = '198.51.100.9') =>
  h.request('POST', '/auth/login', { json: { email, password }, ip, headers: cookie ? { Cookie: cookie } : {} })

const notices = async (h: H, to = 'ada@example.com') => {
  await h.auth.settled()
  return h.allMails.filter((m) => m.kind === 'new-sign-in' && m.to === to)
}

describe.each(STORES)('device cookies a sibling host could set, on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const run = it.skipIf(skip !== null)
  const setup = () => harness({ store: opened.store, secureCookies: true })
  /** Signs `email` up from a new browser: its `__Host-device` cookie, as a `Cookie` header. */
  const browserOf = async (h: H, email: string) => {
    const res = await h.request('POST', '/auth/signup', { json: { name: 'N', email, password: PASSWORD } })
    expect(res.status).toBe(201)
    return `__Host-device=${deviceCookie(res)}`
  }
  const idOf = (cookie: string) => cookie.slice(cookie.indexOf('=') + 1)

  run('a planted cookie beside the real one: the owner’s browser stays known, the planted id never becomes known', async () => {
    const h = setup()
    const ada = await browserOf(h, 'ada@example.com')
    const mallory = await browserOf(h, 'mallory@example.com')
    // Mallory's own id, planted in Ada's browser under every name a sibling host can write.
    for (const planted of [previousCookie(idOf(mallory)), `device=${idOf(mallory)}`]) {
      const res = await login(h, 'ada@example.com', `${planted}; ${ada}`)
      expect(res.status).toBe(200)
      // The answer keeps Ada's own id; nothing is mailed.
      expect(`__Host-device=${deviceCookie(res)}`).toBe(ada)
    }
    expect(await notices(h)).toEqual([])
    // Mallory's browser is still a stranger to Ada's account: its sign-in is announced.
    expect((await login(h, 'ada@example.com', mallory)).status).toBe(200)
    expect(await notices(h)).toHaveLength(1)
  })

  run('a planted cookie alone: a new browser to the account, which gets a new id, not the planted one', async () => {
    const h = setup()
    await browserOf(h, 'ada@example.com')
    const mallory = await browserOf(h, 'mallory@example.com')
    const res = await login(h, 'ada@example.com', previousCookie(idOf(mallory)))
    expect(res.status).toBe(200)
    expect(await notices(h)).toHaveLength(1)
    expect(deviceCookie(res)).not.toBe(idOf(mallory))
    // The id set is the one recorded: that browser is known now, Mallory's is not.
    expect((await login(h, 'ada@example.com', `__Host-device=${deviceCookie(res)}`)).status).toBe(200)
    expect(await notices(h)).toHaveLength(1)
    expect((await login(h, 'ada@example.com', mallory)).status).toBe(200)
    expect(await notices(h)).toHaveLength(2)
  })

  run('a plain `device` cookie means nothing where cookies are secure', async () => {
    const h = setup()
    const ada = await browserOf(h, 'ada@example.com')
    expect((await login(h, 'ada@example.com', `device=${idOf(ada)}`)).status).toBe(200)
    expect(await notices(h)).toHaveLength(1)
  })

  run(
    'shadowing does not lock the owner out: with a planted cookie beside it, the known browser keeps its own limit',
    async () => {
      const h = setup()
      const ada = await browserOf(h, 'ada@example.com')
      const mallory = await browserOf(h, 'mallory@example.com')
      for (let i = 0; i < 10; i++) await login(h, 'ada@example.com', null, WRONG, `192.0.2.${i + 1}`)
      expect((await login(h, 'ada@example.com', null, PASSWORD, '192.0.2.50')).status).toBe(429)
      // Planted before or after the real one, the request is Ada's known browser.
      for (const cookie of [`${previousCookie(idOf(mallory))}; ${ada}`, `${ada}; ${previousCookie(idOf(mallory))}`])
        expect((await login(h, 'ada@example.com', cookie, PASSWORD, '198.51.100.1')).status).toBe(200)
      // Mallory's browser, or one carrying only Mallory's id, counts on the email: refused.
      expect((await login(h, 'ada@example.com', mallory, PASSWORD, '198.51.100.2')).status).toBe(429)
    },
  )

  run('several cookies of the current name (no browser sends that): known if one is, and a new id is set', async () => {
    const h = setup()
    const ada = await browserOf(h, 'ada@example.com')
    const mallory = await browserOf(h, 'mallory@example.com')
    const res = await login(h, 'ada@example.com', `${mallory}; ${ada}`)
    expect(res.status).toBe(200)
    expect(await notices(h)).toEqual([])
    expect([idOf(ada), idOf(mallory)]).not.toContain(deviceCookie(res))
    expect((await login(h, 'ada@example.com', mallory)).status).toBe(200)
    expect(await notices(h)).toHaveLength(1)
  })

  run(
    'upgrade: the previous release’s cookie of a known browser stays known, whatever secret signed it, and moves to __Host-device',
    async () => {
      const h = setup()
      // The browser as the previous release knew it: the id recorded, the cookie under the old name.
      const ada = await browserOf(h, 'ada@example.com')
      const old = previousCookie(idOf(ada), RETIRED_SECRET)
      // Bob signed in from the same browser too.
      await h.signup('bob@example.com')
      expect((await login(h, 'bob@example.com', ada)).status).toBe(200)
      // (Bob's first sign-in from that browser was announced.)
      expect(await notices(h, 'bob@example.com')).toHaveLength(1)

      const moved = await login(h, 'ada@example.com', old)
      expect(moved.status).toBe(200)
      expect(await notices(h)).toEqual([])
      const line = moved.headers.getSetCookie().find((l) => l.startsWith('__Host-device=')) ?? ''
      expect(line).toMatch(/^__Host-device=[A-Za-z0-9_-]{22}; Max-Age=31536000; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
      const now = `__Host-device=${deviceCookie(moved)}`
      // The browser now sends both (the old cookie expires on its own): known to Ada under its new
      // name alone, and still to Bob, who has not signed in since.
      expect((await login(h, 'ada@example.com', now)).status).toBe(200)
      expect((await login(h, 'bob@example.com', `${now}; ${old}`)).status).toBe(200)
      expect((await login(h, 'bob@example.com', now)).status).toBe(200)
      expect(await notices(h)).toEqual([])
      expect(await notices(h, 'bob@example.com')).toHaveLength(1)
    },
  )
})
