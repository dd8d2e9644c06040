/**
 * Account protection in the reference server (docs/guide/account-protection.md): `PWNED_PASSWORDS_URL`
 * points the breached-password check at a range service (here one on loopback built from a real
 * list); its production default is the public service.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RangeService, startRangeServer, startStallingServer } from '../../../packages/auth/test/range-server.js'
import { loadConfig, PUBLIC_PWNED_PASSWORDS } from '../src/config.js'
import { rawRequest } from './attack/helpers.js'
import {
  cookieFrom,
  type RunningServer,
  randomSecret,
  request,
  startServer,
  startServerWithMail,
  type startSmtp,
} from './support.js'

const BREACHED = 'Tr0ub4dor&3'

describe('PWNED_PASSWORDS_URL', () => {
  it('defaults to the public service in production, to no check in development; off turns it off', () => {
    const base = { AUTH_SECRET: randomSecret(), AUTH_ENCRYPTION_KEY: randomSecret(), SMTP_URL: 'smtp://127.0.0.1:2525' }
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

describe('new-sign-in notices', () => {
  let server: RunningServer
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  beforeAll(async () => {
    ;({ server, smtp } = await startServerWithMail({ env: { PUBLIC_URL: 'http://todo.test' } }))
  })
  afterAll(async () => {
    await server?.stop()
    await smtp?.close()
  })
  const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'

  it('mails the account when a browser it has not used signs in, and not for the browser that signed up', async () => {
    const email = 'notice@example.com'
    const password = 'plum tractor notice lantern'
    const signup = await request(server.base, 'POST', '/auth/signup', { body: { name: 'N', email, password } })
    expect(signup.status).toBe(201)
    const device = cookieFrom(signup, 'device') as string
    expect(device).toMatch(/^device=[\w-]{22}$/)
    const login = (cookie?: string) =>
      request(server.base, 'POST', '/auth/login', {
        body: { email, password },
        headers: { 'user-agent': UA },
        ...(cookie ? { cookie } : {}),
      })
    expect((await login(device)).status).toBe(200)
    const before = smtp.mails.length
    expect((await login()).status).toBe(200)
    const mail = await smtp.waitFor(email, before, 5_000, 'new-sign-in')
    expect(mail.text).toContain('Chrome 131 on Linux')
    expect(mail.text).toContain('127.0.0.1')
    expect(mail.text).toContain('http://todo.test/#/account')
    expect(server.stdout()).toMatch(/"type":"login\.new_device"/)
    // The signup's browser never got one.
    expect(smtp.mails.filter((m) => m.kind === 'new-sign-in')).toHaveLength(1)
    expect(server.stdout() + server.stderr()).not.toContain(device.split('=')[1] as string)
  })

  it.each([
    [
      'a sentence with a link',
      'SECURITY TEAM: your account is locked, visit https://evil.example/restore',
      'an unrecognised browser',
    ],
    ['a product bowser does not know', 'SECURITY TEAM/9 visit https://evil.example/restore', 'an unrecognised browser'],
    [
      'line breaks (NEL, U+2028 as UTF-8)',
      'Mozilla/5.0\x85SECURITY TEAM:\xe2\x80\xa8visit https://evil.example/restore',
      'an unrecognised browser',
    ],
    [
      '10,000 characters',
      `SECURITY TEAM ${'visit https://evil.example/restore '.repeat(300)}`.slice(0, 10_000),
      'an unrecognised browser',
    ],
    ['a real Chrome with a link behind it', `${UA} SECURITY TEAM visit https://evil.example/restore`, 'Chrome 131 on Linux'],
    [
      'a version that is not a number',
      'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.evil.example',
      'Firefox 133 on Linux',
    ],
    ['a real Chrome', UA, 'Chrome 131 on Linux'],
    [
      'a real Firefox',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
      'Firefox 133 on Windows',
    ],
    [
      'a real Safari',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      'Safari 17 on macOS',
    ],
  ])(
    'names the browser of %s by its parsed product and version only, never the User-Agent as written',
    async (_, agent, named) => {
      const email = `ua-${randomUUID()}@example.com`
      const password = 'plum tractor agent lantern'
      expect((await request(server.base, 'POST', '/auth/signup', { body: { name: 'U', email, password } })).status).toBe(201)
      const before = smtp.mails.length
      // On the wire byte for byte (latin1): fetch refuses a line break in a header.
      const body = JSON.stringify({ email, password })
      const login = await rawRequest(
        server.port,
        Buffer.from(
          `POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ${agent}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
          'latin1',
        ),
      )
      expect(login.status).toBe(200)
      const mail = await smtp.waitFor(email, before, 5_000, 'new-sign-in')
      expect(/^Browser: (.*?)\r?$/m.exec(mail.text)?.[1]).toBe(named)
      // The whole message as sent (headers, subject, text): nothing of what the stranger wrote.
      for (const planted of ['evil.example', 'SECURITY TEAM', 'restore', '\x85', '\xe2\x80\xa8', '\u2028'])
        expect(mail.text).not.toContain(planted)
    },
  )

  it('a flood of wrong passwords from elsewhere refuses unknown browsers, never the known browser of the owner', async () => {
    const email = 'owner@example.com'
    const password = 'plum tractor owner lantern'
    const signup = await request(server.base, 'POST', '/auth/signup', { body: { name: 'O', email, password } })
    const device = cookieFrom(signup, 'device') as string
    const statuses = []
    for (let i = 0; i < 20; i++)
      statuses.push((await request(server.base, 'POST', '/auth/login', { body: { email, password: 'wrong guess here' } })).status)
    expect(statuses.filter((s) => s === 429)).toHaveLength(10)
    const owner = await request(server.base, 'POST', '/auth/login', { body: { email, password }, cookie: device })
    expect(owner.status).toBe(200)
    const stranger = await request(server.base, 'POST', '/auth/login', { body: { email, password } })
    expect(stranger.status).toBe(429)
  })
})
