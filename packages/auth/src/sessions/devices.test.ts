/**
 * The device cookie and new-device notices (docs/guide/account-protection.md), on both stores: the
 * cookie's attributes on every answer of the sign-in routes, a `new-sign-in` mail and a
 * `login.new_device` event for a browser the account has not signed in from (not after signup,
 * not on the same browser again), through the second factor too; a made-up, malformed or foreign
 * cookie is no device. Cookies a sibling host can plant and the previous release's name:
 * `devices-planted.test.ts`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { deviceCookie, harness, PASSWORD, SECRET } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import { withTwoFactor } from '../../test/two-factor.js'

type H = ReturnType<typeof harness>
const OTHER_SECRET = 'another-secret-that-is-long-enough-9876543210'
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'

/** Login from a browser: `device` is its `Cookie` header (none for a browser never seen). */
const loginFrom = (h: H, device: string | null, ip = '198.51.100.9', password = PASSWORD) =>
  h.request('POST', '/auth/login', {
    json: { email: 'ada@example.com', password },
    ip,
    headers: { 'User-Agent': UA, ...(device ? { Cookie: device } : {}) },
  })

const notices = async (h: H) => {
  await h.auth.settled()
  return h.allMails.filter((m) => m.kind === 'new-sign-in')
}

describe.each(STORES)('known devices on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const setup = (overrides: Parameters<typeof harness>[0] = {}) => harness({ store: opened.store, ...overrides })

  it.skipIf(skip !== null)('sets a random, HttpOnly, one-year, SameSite=Lax device cookie on signup and login', async () => {
    const h = setup()
    const ada = await h.signup()
    const res = await loginFrom(h, ada.device)
    for (const answer of [res]) {
      const line = answer.headers.getSetCookie().find((l) => l.startsWith('device=')) ?? ''
      expect(line).toMatch(/^device=[A-Za-z0-9_-]{22};/)
      expect(line).toContain('Max-Age=31536000')
      expect(line).toContain('Path=/auth')
      expect(line).toContain('HttpOnly')
      expect(line).toContain('SameSite=Lax')
      expect(line).not.toContain('Secure')
    }
    // The same browser keeps its id.
    expect(`device=${deviceCookie(res)}`).toBe(ada.device)
    const secure = harness({ store: opened.store, secureCookies: true })
    const signup = await secure.request('POST', '/auth/signup', {
      json: { name: 'Bo', email: 'bo@example.com', password: PASSWORD },
    })
    const line = signup.headers.getSetCookie().find((l) => l.startsWith('__Host-device=')) ?? ''
    expect(line).toMatch(/^__Host-device=[A-Za-z0-9_-]{22};/)
    expect(line).toContain('Secure')
    expect(line).toContain('HttpOnly')
    // A __Host- cookie: Path=/ and no Domain, so no other host can set or shadow it.
    expect(line).toContain('Path=/;')
    expect(line).not.toContain('Domain')
  })

  it.skipIf(skip !== null)('mails new-sign-in for a browser the account has not used, once, and not after signup', async () => {
    const h = setup()
    const ada = await h.signup()
    expect((await loginFrom(h, ada.device)).status).toBe(200)
    expect(await notices(h)).toEqual([])

    const fresh = await loginFrom(h, null, '198.51.100.77')
    expect(fresh.status).toBe(200)
    const { user } = (await fresh.clone().json()) as { user: { id: string } }
    expect(await notices(h)).toEqual([
      { kind: 'new-sign-in', to: 'ada@example.com', at: h.clock.now().toISOString(), ip: '198.51.100.77', userAgent: UA },
    ])
    const events = h.events.filter((e) => e.type === 'login.new_device')
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ userId: user.id, ip: '198.51.100.77', userAgent: UA })
    expect(events[0]?.sessionId).toEqual(expect.any(String))

    // That browser is known now; the first one still is.
    expect((await loginFrom(h, `device=${deviceCookie(fresh)}`)).status).toBe(200)
    expect((await loginFrom(h, ada.device)).status).toBe(200)
    expect(await notices(h)).toHaveLength(1)
    // A failed login from a new browser mails nothing.
    expect((await loginFrom(h, null, '198.51.100.78', 'not the password at all')).status).toBe(401)
    expect(await notices(h)).toHaveLength(1)
  })

  it.skipIf(skip !== null)('takes a made-up, malformed or foreign device cookie for no device', async () => {
    const h = setup()
    const ada = await h.signup()
    const id = ada.device.slice('device='.length)
    const foreign = harness({ store: opened.store, secret: OTHER_SECRET })
    const other = await foreign.request('POST', '/auth/signup', {
      json: { name: 'Bo', email: 'bo@example.com', password: PASSWORD },
    })
    const forgeries = [
      `device=${'A'.repeat(22)}`,
      `device=${id.slice(1)}`,
      `device=${id}A`,
      `device=${id}.short-mac`,
      `device=${deviceCookie(other)}`,
    ]
    for (const [i, forged] of forgeries.entries()) {
      const res = await loginFrom(h, forged)
      expect(res.status).toBe(200)
      expect(`device=${deviceCookie(res)}`).not.toBe(ada.device)
      expect(await notices(h)).toHaveLength(i + 1)
    }
  })

  it.skipIf(skip !== null)('keeps a device known across a secret rotation, also once the old secret is removed', async () => {
    const h = setup()
    const ada = await h.signup()
    const rotated = harness({ store: opened.store, secret: [OTHER_SECRET, SECRET] })
    const res = await rotated.request('POST', '/auth/login', {
      json: { email: 'ada@example.com', password: PASSWORD },
      headers: { Cookie: ada.device },
    })
    expect(res.status).toBe(200)
    expect(await notices(rotated)).toEqual([])
    expect(`device=${deviceCookie(res)}`).toBe(ada.device)
    // The old secret removed: the browser that never signed in meanwhile is still known.
    const retired = harness({ store: opened.store, secret: OTHER_SECRET })
    const later = await retired.request('POST', '/auth/login', {
      json: { email: 'ada@example.com', password: PASSWORD },
      headers: { Cookie: ada.device },
    })
    expect(later.status).toBe(200)
    expect(`device=${deviceCookie(later)}`).toBe(ada.device)
    expect(await notices(retired)).toEqual([])
  })

  it.skipIf(skip !== null)('with a second factor: the 202 sets the cookie, and the verify from a new browser mails', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const known = await loginFrom(h, ada.device)
    expect(known.status).toBe(202)
    expect(`device=${deviceCookie(known)}`).toBe(ada.device)
    const { challenge } = (await known.json()) as { challenge: string }
    const verified = await h.request('POST', '/auth/two-factor/verify', {
      json: { challenge, code: ada.code() },
      headers: { Cookie: ada.device },
    })
    expect(verified.status).toBe(200)
    expect(`device=${deviceCookie(verified)}`).toBe(ada.device)
    expect(await notices(h)).toEqual([])

    h.clock.advance(30_000)
    const fresh = await loginFrom(h, null)
    expect(fresh.status).toBe(202)
    const device = `device=${deviceCookie(fresh)}`
    expect(device).not.toBe(ada.device)
    // The password step alone is no sign-in: nothing mailed yet.
    expect(await notices(h)).toEqual([])
    const second = (await fresh.json()) as { challenge: string }
    const done = await h.request('POST', '/auth/two-factor/verify', {
      json: { challenge: second.challenge, code: ada.code() },
      headers: { Cookie: device },
    })
    expect(done.status).toBe(200)
    expect(await notices(h)).toHaveLength(1)
  })
})
