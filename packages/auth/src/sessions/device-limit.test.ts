/**
 * Strangers cannot lock the owner out (docs/guide/account-protection.md), on both stores: failed logins
 * from browsers the account does not know count against its email's limit, as before; a browser
 * the account has signed in from counts per device instead, so after a flood of wrong passwords
 * from elsewhere the owner's known browser signs in at once while an unknown one gets 429.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { harness, PASSWORD } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'

type H = ReturnType<typeof harness>
const WRONG = 'not the password at all'

const login = (h: H, password: string, ip: string, cookie?: string) =>
  h.request('POST', '/auth/login', {
    json: { email: 'ada@example.com', password },
    ip,
    ...(cookie ? { headers: { Cookie: cookie } } : {}),
  })

describe.each(STORES)('login limits per known device on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })

  it.skipIf(skip !== null)('20 wrong passwords from elsewhere: the known browser signs in, an unknown one gets 429', async () => {
    const h = harness({ store: opened.store })
    const ada = await h.signup()
    // Another account's browser: a genuine device cookie, but not one Ada signed in from.
    const bob = await h.signup('bob@example.com')

    const flood = []
    for (let i = 0; i < 20; i++) flood.push((await login(h, WRONG, `192.0.2.${i + 1}`)).status)
    expect(flood.slice(0, 10)).toEqual(Array(10).fill(401))
    expect(flood.slice(10)).toEqual(Array(10).fill(429))

    const owner = await login(h, PASSWORD, '198.51.100.1', ada.device)
    expect(owner.status).toBe(200)
    const unknown = await login(h, PASSWORD, '198.51.100.2')
    expect(unknown.status).toBe(429)
    expect(unknown.headers.get('ratelimit')).toMatch(/^"login-email";r=0;t=\d+$/)
    expect((await login(h, PASSWORD, '198.51.100.3', bob.device)).status).toBe(429)
    // A tampered cookie of the known browser is no device.
    expect((await login(h, PASSWORD, '198.51.100.4', `${ada.device.slice(0, -1)}x`)).status).toBe(429)
  })

  it.skipIf(skip !== null)(
    'a known browser has its own limit of 10 per 15 minutes, and its failures spare the email',
    async () => {
      const h = harness({ store: opened.store })
      const ada = await h.signup()
      for (let i = 0; i < 10; i++) expect((await login(h, WRONG, `192.0.2.${i + 1}`, ada.device)).status).toBe(401)
      const limited = await login(h, PASSWORD, '192.0.2.99', ada.device)
      expect(limited.status).toBe(429)
      expect(limited.headers.get('ratelimit')).toMatch(/^"login-device";r=0;t=\d+$/)
      await h.auth.settled()
      expect(h.events.filter((e) => e.type === 'rate_limited').at(-1)).toMatchObject({ endpoint: 'login', userId: ada.user.id })
      // The known browser's failures did not count against the email: another browser still may try.
      expect((await login(h, PASSWORD, '198.51.100.2')).status).toBe(200)
      h.clock.advance(15 * 60 * 1000)
      expect((await login(h, PASSWORD, '192.0.2.99', ada.device)).status).toBe(200)
    },
  )
})
