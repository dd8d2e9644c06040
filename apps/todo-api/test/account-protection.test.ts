/**
 * Account protection in the reference server (README "Account protection"): `PWNED_PASSWORDS_URL`
 * points the breached-password check at a range service (here one on loopback built from a real
 * list); its production default is the public service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RangeService, startRangeServer, startStallingServer } from '../../../packages/auth/test/range-server.js'
import { loadConfig, PUBLIC_PWNED_PASSWORDS } from '../src/config.js'
import { type RunningServer, randomSecret, request, startServer } from './support.js'

const BREACHED = 'Tr0ub4dor&3'

describe('PWNED_PASSWORDS_URL', () => {
  it('defaults to the public service in production, to no check in development; off turns it off', () => {
    const base = { AUTH_SECRET: randomSecret(), SMTP_URL: 'smtp://127.0.0.1:2525' }
    expect(loadConfig({ ...base, NODE_ENV: 'production' }).pwnedPasswordsUrl).toBe(PUBLIC_PWNED_PASSWORDS)
    expect(loadConfig({ ...base, NODE_ENV: 'development' }).pwnedPasswordsUrl).toBeNull()
    expect(loadConfig({ ...base, NODE_ENV: 'production', PWNED_PASSWORDS_URL: 'off' }).pwnedPasswordsUrl).toBeNull()
    expect(
      loadConfig({ ...base, NODE_ENV: 'development', PWNED_PASSWORDS_URL: 'http://127.0.0.1:9/pwned/' }).pwnedPasswordsUrl,
    ).toBe('http://127.0.0.1:9/pwned')
    expect(() => loadConfig({ ...base, PWNED_PASSWORDS_URL: 'ftp://x' })).toThrow(/PWNED_PASSWORDS_URL/)
  })

  describe('against a range service', () => {
    let range: RangeService
    let stalling: RangeService
    let server: RunningServer
    let stalled: RunningServer
    beforeAll(async () => {
      ;[range, stalling] = await Promise.all([startRangeServer([BREACHED]), startStallingServer()])
      ;[server, stalled] = await Promise.all([
        startServer({ env: { PWNED_PASSWORDS_URL: range.url } }),
        startServer({ env: { PWNED_PASSWORDS_URL: stalling.url } }),
      ])
    })
    afterAll(async () => {
      await Promise.all([server?.stop(), stalled?.stop()])
      await Promise.all([range?.close(), stalling?.close()])
    })

    it('refuses a breached password at signup with the field code, sending five hex characters', async () => {
      const from = range.requests.length
      const reply = await request(server.base, 'POST', '/auth/signup', {
        body: { name: 'Ada', email: 'ada@example.com', password: BREACHED },
      })
      expect(reply.status).toBe(400)
      expect((reply.body as { errors: unknown[] }).errors).toEqual([
        expect.objectContaining({ path: 'password', code: 'breached_password' }),
      ])
      const sent = range.requests.slice(from)
      expect(sent.map((r) => [r.url.replace(/[0-9A-F]{5}$/, 'XXXXX'), r.headers['add-padding']])).toEqual([
        ['/range/XXXXX', 'true'],
      ])
    })

    it('accepts the password when the service stalls, and writes the audit line', async () => {
      const reply = await request(stalled.base, 'POST', '/auth/signup', {
        body: { name: 'Ada', email: 'ada@example.com', password: BREACHED },
      })
      expect(reply.status).toBe(201)
      await stalled.waitForOutput(/"type":"breach_check\.unavailable"/)
      expect(stalled.stdout()).not.toContain(BREACHED)
    })
  })
})
