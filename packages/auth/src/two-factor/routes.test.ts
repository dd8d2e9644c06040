/**
 * The second factor over HTTP (docs/reference/two-factor.md), on both stores, tried as an attacker would: wrong,
 * malformed, early and late codes, replays, 20 concurrent answers to one challenge, one user's
 * code on another's challenge, expired and exhausted challenges, the rate limits, recovery codes
 * spent twice or concurrently, and every route that could hand out a token without the second
 * step. Codes come from `otpauth`, an implementation independent of ours; the clock is frozen.
 */
import * as OTPAuth from 'otpauth'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cookieHeader, harness, PASSWORD, refreshCookie } from '../../test/harness.js'
import { type OpenedStore, STORES } from '../../test/stores.js'
import { STEP_MS, withTwoFactor } from '../../test/two-factor.js'

type H = ReturnType<typeof harness>
type Json = Record<string, unknown>

const json = async (res: Response) => (await res.json()) as Json

/** The challenge a right password gets: 202, no token, no cookie. */
const challengeOf = async (h: H, email = 'ada@example.com', ip?: string) => {
  const res = await h.login(email, PASSWORD, ip)
  expect(res.status).toBe(202)
  // No refresh cookie: only the device cookie, so the second step finds the same browser.
  expect(res.headers.getSetCookie().map((line) => line.split('=')[0])).toEqual(['device'])
  const body = await json(res)
  expect(Object.keys(body).sort()).toEqual(['challenge', 'expiresIn', 'methods', 'twoFactorRequired'])
  expect(body.methods).toEqual(['totp', 'recovery'])
  expect(body).toMatchObject({ twoFactorRequired: true, expiresIn: 300 })
  return body.challenge as string
}

const verify = (h: H, challenge: string, code: string, ip?: string) =>
  h.request('POST', '/auth/two-factor/verify', { json: { challenge, code }, ...(ip ? { ip } : {}) })

describe.each(STORES)('two-factor over HTTP on $name', ({ skip, open }) => {
  let opened: OpenedStore
  beforeEach(async () => {
    if (!skip) opened = await open()
  })
  afterEach(async () => {
    await opened?.close()
  })
  const setup = (overrides: Parameters<typeof harness>[0] = {}) => harness({ store: opened.store, ...overrides })
  const run = it.skipIf(skip !== null)

  run('a right password answers a challenge; a right code finishes the sign-in with tokens and the cookie', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const challenge = await challengeOf(h)
    // At least 128 bits, opaque.
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{22,}$/)
    await h.auth.settled()
    expect(h.events.map((e) => e.type)).toContain('login.challenged')
    const res = await verify(h, challenge, ada.code())
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body).toMatchObject({ tokenType: 'Bearer', user: { email: 'ada@example.com' } })
    const cookie = refreshCookie(res)
    expect(cookie).toMatch(/\.[A-Za-z0-9_-]{40,}$/)
    expect((await h.request('GET', '/private', { headers: { Authorization: `Bearer ${body.accessToken}` } })).status).toBe(200)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(cookie as string) })).status).toBe(200)
    // Single use.
    expect((await verify(h, challenge, ada.code(1))).status).toBe(401)
    await h.auth.settled()
    expect(h.events.filter((e) => e.type === 'login.challenged' || e.type === 'login.succeeded')).toEqual([
      expect.objectContaining({ type: 'login.challenged', method: 'password', userId: ada.user.id }),
      expect.objectContaining({ type: 'login.succeeded', method: 'password', userId: ada.user.id }),
    ])
  })

  run('a sign-in by email that a code finishes reports its method, email, on both events', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const started = await h.request('POST', '/auth/email-sign-in', { json: { email: 'ada@example.com' } })
    const { flow } = (await json(started)) as { flow: string }
    await h.auth.settled()
    const mail = h.allMails.findLast((m) => m.kind === 'sign-in')
    if (mail?.kind !== 'sign-in') throw new Error('no sign-in mail')
    const answered = await h.request('POST', '/auth/email-sign-in/verify', { json: { flow, code: mail.code } })
    expect(answered.status).toBe(202)
    const { challenge } = (await json(answered)) as { challenge: string }
    expect((await verify(h, challenge, ada.code())).status).toBe(200)
    await h.auth.settled()
    expect(h.events.filter((e) => e.type === 'login.challenged' || e.type === 'login.succeeded')).toEqual([
      expect.objectContaining({ type: 'login.challenged', method: 'email', userId: ada.user.id }),
      expect.objectContaining({ type: 'login.succeeded', method: 'email', userId: ada.user.id }),
    ])
  })

  run('a wrong password on a two-factor account is the plain 401, no challenge', async () => {
    const h = setup()
    await withTwoFactor(h)
    const res = await h.login('ada@example.com', 'not the password at all')
    expect(res.status).toBe(401)
    expect(await json(res)).not.toHaveProperty('challenge')
  })

  run('refuses malformed codes with a 400 that spends nothing; 5- and 7-digit codes included', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const challenge = await challengeOf(h)
    const right = ada.code()
    for (const code of [right.slice(0, 5), `${right}0`, '', 'abcdef', '12 456', '１２３４５６', `${right}\n`]) {
      const res = await verify(h, challenge, code)
      expect(res.status, JSON.stringify(code)).toBe(400)
      expect(await json(res)).toMatchObject({ type: 'urn:latchkey:problem:validation-failed' })
    }
    // None of them counted against the challenge.
    expect((await verify(h, challenge, right)).status).toBe(200)
  })

  run('accepts ±1 step, refuses ±2 steps, and never the same step twice', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    h.clock.advance(5 * STEP_MS)
    const first = await challengeOf(h)
    for (const steps of [-2, 2]) {
      const res = await verify(h, first, ada.code(steps))
      expect(res.status, `${steps} steps`).toBe(401)
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/)
    }
    expect((await verify(h, first, ada.code(-1))).status).toBe(200)
    // The step just used, and older ones, are spent; a newer one is not.
    const second = await challengeOf(h)
    expect((await verify(h, second, ada.code(-1))).status).toBe(401)
    expect((await verify(h, second, ada.code(0))).status).toBe(200)
    const third = await challengeOf(h)
    expect((await verify(h, third, ada.code(0))).status).toBe(401)
    expect((await verify(h, third, ada.code(1))).status).toBe(200)
  })

  run('20 concurrent answers to one challenge with the right code: exactly one signs in', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const challenge = await challengeOf(h)
    const code = ada.code()
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(h, challenge, code)))
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    // The others find the challenge claimed or spent (401), or meet the per-account limit (429).
    expect(
      statuses.filter((s) => s !== 200).every((s) => s === 401 || s === 429),
      statuses.join(),
    ).toBe(true)
    expect(answers.map(refreshCookie).filter(Boolean)).toHaveLength(1)
  })

  run('concurrent wrong codes each count: six at once kill the challenge, and the right code after them is refused', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const challenge = await challengeOf(h)
    const right = ada.code()
    const wrong = Array.from({ length: 6 }, (_, i) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, '0'))
    const answers = await Promise.all(wrong.map((code, i) => verify(h, challenge, code, `198.51.100.${i + 1}`)))
    const codes = await Promise.all(answers.map(async (r) => (await json(r)).code))
    // Five are judged wrong and counted; the sixth finds the challenge dead.
    expect(codes.sort()).toEqual(['invalid_challenge', ...Array(5).fill('two_factor_failed')])
    expect((await verify(h, challenge, right)).status).toBe(401)
    expect(answers.map(refreshCookie).filter(Boolean)).toEqual([])
  })

  run('a wrong code and the right one sent at once: the right one signs in, whichever is judged first', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    for (const order of ['wrong first', 'right first']) {
      const challenge = await challengeOf(h)
      const right = ada.code()
      const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0')
      const pair = order === 'wrong first' ? [wrong, right] : [right, wrong]
      const [a, b] = await Promise.all(pair.map((code) => verify(h, challenge, code)))
      const [fromRight, fromWrong] = order === 'wrong first' ? [b, a] : [a, b]
      expect(fromRight?.status, order).toBe(200)
      expect(fromWrong?.status, order).toBe(401)
      h.clock.advance(STEP_MS)
    }
  })

  run("user A's challenge answered with user B's code is refused", async () => {
    const h = setup()
    await withTwoFactor(h, 'ada@example.com')
    const bob = await withTwoFactor(h, 'bob@example.com')
    const challenge = await challengeOf(h, 'ada@example.com')
    const res = await verify(h, challenge, bob.code())
    expect(res.status).toBe(401)
    // And Bob's code is still his to use.
    expect((await verify(h, await challengeOf(h, 'bob@example.com'), bob.code())).status).toBe(200)
  })

  run('a challenge dies after 5 minutes', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const challenge = await challengeOf(h)
    h.clock.advance(300_000 + 1_000)
    const res = await verify(h, challenge, ada.code())
    expect(res.status).toBe(401)
    expect(await json(res)).toMatchObject({ type: 'urn:latchkey:problem:invalid-challenge' })
  })

  run('the fifth wrong code kills the challenge, even for the right code after it', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const challenge = await challengeOf(h)
    const wrong = ada.code() === '000000' ? '111111' : '000000'
    for (let i = 0; i < 5; i++) expect((await verify(h, challenge, wrong)).status).toBe(401)
    await h.auth.settled()
    expect(h.events.filter((e) => e.type === 'two_factor.failed').length).toBeGreaterThanOrEqual(5)
    const res = await verify(h, challenge, ada.code())
    expect(res.status).toBe(401)
    expect(await json(res)).toMatchObject({ type: 'urn:latchkey:problem:invalid-challenge' })
    // A new password step gives a new challenge.
    expect((await verify(h, await challengeOf(h), ada.code())).status).toBe(200)
  })

  run("the rate limits stop a brute force: 10 per the challenge's account, 100 per address", async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const wrong = ada.code() === '000000' ? '111111' : '000000'
    let limited: Response | undefined
    let refused = 0
    // Each try from its own address, over three challenges (four tries each, under the five that
    // kill one): only the per-account count adds up.
    for (let round = 0; round < 3 && !limited; round++) {
      const challenge = await challengeOf(h, 'ada@example.com', `198.51.100.${round + 1}`)
      for (let i = 0; i < 4 && !limited; i++) {
        const res = await verify(h, challenge, wrong, `203.0.113.${round * 4 + i + 1}`)
        if (res.status === 429) limited = res
        else {
          expect(res.status).toBe(401)
          refused++
        }
      }
    }
    expect(refused).toBe(10)
    expect(limited?.status).toBe(429)
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0)
    await h.auth.settled()
    // The event names the challenge's account (docs/reference/lifecycle.md#events: whenever the account is known).
    expect(h.events.find((e) => e.type === 'rate_limited')).toMatchObject({ endpoint: 'two-factor-verify', userId: ada.user.id })

    // Unknown challenges from one address: the per-address limit.
    let fromOneAddress = 0
    for (let i = 0; i < 101; i++) {
      const res = await verify(h, `unknown-challenge-${i}-xxxxxxxxxxxxxxxx`, '123456', '192.0.2.55')
      if (res.status === 429) break
      fromOneAddress++
    }
    expect(fromOneAddress).toBe(100)
  })

  run('answers to a used or expired challenge count against its account too', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const used = await challengeOf(h, 'ada@example.com', '198.51.100.1')
    expect((await verify(h, used, ada.code(), '203.0.113.1')).status).toBe(200)
    const late = await challengeOf(h, 'ada@example.com', '198.51.100.2')
    h.clock.advance(301_000)
    // Each from its own address: only the account's count can add up. Nine spent on the dead
    // challenges (with the one that finished the sign-in, ten): the right code then meets 429.
    for (let i = 0; i < 9; i++) expect((await verify(h, i % 2 ? late : used, '123456', `203.0.113.${i + 2}`)).status).toBe(401)
    const fresh = await challengeOf(h, 'ada@example.com', '198.51.100.3')
    expect((await verify(h, fresh, ada.code(), '203.0.113.99')).status).toBe(429)
  })

  run('a recovery code works once, sends a notice, and 20 concurrent uses of one code sign in once', async () => {
    // Limits out of the way: the race is the point here (the limits have their own test).
    const h = setup({ rateLimit: { email: { max: 1000, windowSeconds: 900 }, user: { max: 1000, windowSeconds: 900 } } })
    const ada = await withTwoFactor(h)
    const [first, second] = ada.recoveryCodes as [string, string]
    expect(first).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/i)
    expect((await verify(h, await challengeOf(h), first)).status).toBe(200)
    await h.auth.settled()
    expect(await h.mailOf('recovery-code-used', 'ada@example.com')).toMatchObject({ usedFor: 'sign-in' })
    expect(h.events.map((e) => e.type)).toContain('recovery_code.used')
    expect((await verify(h, await challengeOf(h), first)).status).toBe(401)

    // From 20 addresses: one client may hold only a quarter of the hashing queue at once.
    const challenges = await Promise.all(
      Array.from({ length: 20 }, (_, i) => challengeOf(h, 'ada@example.com', `192.0.2.${i + 1}`)),
    )
    const answers = await Promise.all(challenges.map((challenge) => verify(h, challenge, second)))
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1)
    const status = await h.request('GET', '/auth/two-factor', { headers: ada.bearer })
    expect(await json(status)).toMatchObject({ enabled: true, recoveryCodesLeft: 8 })
  })

  run('new recovery codes kill the old set', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const renew = await h.request('POST', '/auth/two-factor/recovery-codes', {
      json: { currentPassword: PASSWORD, code: ada.code() },
      headers: ada.bearer,
    })
    expect(renew.status).toBe(200)
    const { recoveryCodes } = (await renew.json()) as { recoveryCodes: string[] }
    expect(recoveryCodes).toHaveLength(10)
    expect(recoveryCodes.filter((c) => ada.recoveryCodes.includes(c))).toEqual([])
    expect((await verify(h, await challengeOf(h), ada.recoveryCodes[3] as string)).status).toBe(401)
    expect((await verify(h, await challengeOf(h), recoveryCodes[3] as string)).status).toBe(200)
  })

  run('setup, enable and disable refuse what docs/reference/two-factor.md refuses, and a refusal changes nothing', async () => {
    const h = setup()
    const ada = await h.signup()
    await h.verifyEmail()
    const post = (path: string, body: Json) => h.request('POST', `/auth/two-factor/${path}`, { json: body, headers: ada.bearer })
    expect((await post('setup', { currentPassword: 'not the password at all' })).status).toBe(400)
    expect((await post('enable', { code: '123456', emailCode: '123456' })).status).toBe(409)
    expect((await post('disable', { currentPassword: PASSWORD, code: '123456' })).status).toBe(409)
    const { uri } = (await (await post('setup', { currentPassword: PASSWORD })).json()) as { uri: string }
    const totp = OTPAuth.URI.parse(uri)
    const code = (steps = 0) => totp.generate({ timestamp: h.clock.now().getTime() + steps * STEP_MS })
    const emailCode = await h.emailCode()
    const wrongEnable = await post('enable', { code: code(5), emailCode })
    expect(wrongEnable.status).toBe(400)
    expect(await json(wrongEnable)).toMatchObject({ errors: [expect.objectContaining({ path: 'code', code: 'wrong_code' })] })
    expect((await post('enable', { code: code(), emailCode })).status).toBe(200)
    expect((await post('enable', { code: code(1), emailCode })).status).toBe(409)
    expect((await post('setup', { currentPassword: PASSWORD })).status).toBe(409)
    // Disabling needs a code, and the password or a fresh session (docs/guide/step-up.md).
    expect((await post('disable', { currentPassword: PASSWORD })).status).toBe(400)
    h.clock.advance(301_000)
    expect((await post('disable', { code: code(1) })).status).toBe(401)
    expect((await post('disable', { currentPassword: 'not the password at all', code: code(1) })).status).toBe(400)
    expect((await post('disable', { currentPassword: PASSWORD, code: code(5) })).status).toBe(400)
    expect(await json(await h.request('GET', '/auth/two-factor', { headers: ada.bearer }))).toMatchObject({ enabled: true })
    expect((await h.login()).status).toBe(202)
    expect((await post('disable', { currentPassword: PASSWORD, code: code(1) })).status).toBe(204)
    expect(await json(await h.request('GET', '/auth/two-factor', { headers: ada.bearer }))).toMatchObject({ enabled: false })
    expect((await h.login()).status).toBe(200)
  })

  run('enabling signs out every other session and keeps the current one', async () => {
    const h = setup()
    const ada = await h.signup()
    await h.verifyEmail()
    const other = refreshCookie(await h.login()) as string
    const { uri } = (await json(
      await h.request('POST', '/auth/two-factor/setup', { json: { currentPassword: PASSWORD }, headers: ada.bearer }),
    )) as { uri: string }
    const code = OTPAuth.URI.parse(uri).generate({ timestamp: h.clock.now().getTime() })
    const emailCode = await h.emailCode()
    expect((await h.request('POST', '/auth/two-factor/enable', { json: { code, emailCode }, headers: ada.bearer })).status).toBe(
      200,
    )
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(other) })).status).toBe(401)
    expect((await h.request('POST', '/auth/refresh', { headers: cookieHeader(ada.refresh) })).status).toBe(200)
  })

  run('a password reset keeps the factor, signs nobody in and kills the open challenges', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const challenge = await challengeOf(h)
    await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
    await h.auth.settled()
    const mail = h.allMails.filter((m) => m.kind === 'reset-password').at(-1) as { token: string }
    const newPassword = 'violet harbour kettle 42'
    const reset = await h.request('POST', '/auth/reset-password', { json: { token: mail.token, newPassword } })
    expect(reset.status).toBe(204)
    expect(reset.headers.getSetCookie()).toEqual([])
    expect((await verify(h, challenge, ada.code())).status).toBe(401)
    const res = await h.login('ada@example.com', newPassword)
    expect(res.status).toBe(202)
  })

  run('no route hands out a token or the cookie for a two-factor account without the second step', async () => {
    const h = setup()
    await h.signup('bob@example.com')
    const ada = await h.signup()
    await h.verifyEmail()
    const older = refreshCookie(await h.login()) as string
    const { uri } = (await json(
      await h.request('POST', '/auth/two-factor/setup', { json: { currentPassword: PASSWORD }, headers: ada.bearer }),
    )) as { uri: string }
    const code = OTPAuth.URI.parse(uri).generate({ timestamp: h.clock.now().getTime() })
    const emailCode = await h.emailCode()
    expect((await h.request('POST', '/auth/two-factor/enable', { json: { code, emailCode }, headers: ada.bearer })).status).toBe(
      200,
    )

    // Every operation whose success carries a token (AuthResult or Token), from the routes' own
    // OpenAPI document: a new one fails this test until it is tried here.
    const document = h.auth.routes.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'auth', version: '0' } })
    const issuing: string[] = []
    for (const [path, item] of Object.entries(document.paths ?? {}))
      for (const [method, op] of Object.entries(item ?? {})) {
        const responses = (op as { responses?: Record<string, unknown>; operationId?: string }).responses ?? {}
        const success = Object.entries(responses).filter(([status]) => status.startsWith('2'))
        if (success.some(([, r]) => /#\/components\/schemas\/(AuthResult|AccessToken)"/.test(JSON.stringify(r))))
          issuing.push(`${method.toUpperCase()} ${path}`)
      }
    const attempts: Record<string, () => Response | Promise<Response>> = {
      // The account exists: signing up its address again must not sign anyone in.
      'POST /signup': () =>
        h.request('POST', '/auth/signup', { json: { name: 'Eve', email: 'ada@example.com', password: PASSWORD } }),
      'POST /login': () => h.login(),
      // A session from before the factor was enabled.
      'POST /refresh': () => h.request('POST', '/auth/refresh', { headers: cookieHeader(older) }),
      // The second step itself, without a challenge of the password step.
      'POST /two-factor/verify': () => verify(h, 'made-up-challenge-0123456789abcdef', code),
      // A re-authentication with the password alone.
      'POST /reauth': () => h.request('POST', '/auth/reauth', { json: { password: PASSWORD }, headers: ada.bearer }),
      // A sign-in mail of the (verified) account: the mailbox is one factor, so it gets the 202.
      'POST /email-sign-in/verify': async () => {
        const { flow } = (await json(await h.request('POST', '/auth/email-sign-in', { json: { email: 'ada@example.com' } }))) as {
          flow: string
        }
        await h.auth.settled()
        const signIn = h.allMails.findLast((m) => m.kind === 'sign-in')
        if (signIn?.kind !== 'sign-in') throw new Error('no sign-in mail')
        const res = await h.request('POST', '/auth/email-sign-in/verify', { json: { flow, code: signIn.code } })
        expect(res.status).toBe(202)
        return res
      },
    }
    expect(issuing.sort()).toEqual(Object.keys(attempts).sort())
    for (const [name, attempt] of Object.entries(attempts)) {
      const res = await attempt()
      const text = await res.text()
      expect(
        res.headers.getSetCookie().filter((c) => /refresh_token=[^;]/.test(c)),
        name,
      ).toEqual([])
      expect(text, name).not.toMatch(/accessToken|eyJ/)
    }
  })

  run('nothing secret is stored in the clear or reported in an event or a log line', async () => {
    const h = setup()
    const ada = await withTwoFactor(h)
    const challenge = await challengeOf(h)
    expect((await verify(h, challenge, ada.code())).status).toBe(200)
    await verify(h, await challengeOf(h), ada.recoveryCodes[0] as string)
    const secrets = [ada.secret, ada.secret.toLowerCase(), challenge, ...ada.recoveryCodes]
    const tables = ['auth_two_factors', 'auth_recovery_codes', 'auth_challenges']
    const stored = JSON.stringify(await Promise.all(tables.map((t) => opened.rows(t))))
    const [factor] = await opened.rows('auth_two_factors')
    expect(String(factor?.secret)).toMatch(/^v2\./)
    const reported = JSON.stringify([h.events, h.logs])
    for (const secret of secrets) {
      expect(stored).not.toContain(secret)
      expect(reported).not.toContain(secret)
    }
    expect(reported).not.toContain(ada.code())
  })

  run(
    'a key sealed under a retired encryption key still works after rotation, and is sealed under the new one when used',
    async () => {
      const OLD = 'an-old-encryption-key-long-enough-0123456789'
      const NEW = 'a-new-encryption-key-long-enough-9876543210'
      const before = setup({ encryptionKeys: OLD })
      const ada = await withTwoFactor(before)
      const [sealed] = await opened.rows('auth_two_factors')
      const after = setup({ encryptionKeys: [NEW, OLD] })
      after.clock.advance(before.clock.now().getTime() - after.clock.now().getTime())
      const challenge = await challengeOf(after)
      expect((await verify(after, challenge, ada.code())).status).toBe(200)
      const [resealed] = await opened.rows('auth_two_factors')
      expect(resealed?.secret).not.toBe(sealed?.secret)
      // Sealed under the new key alone: a server that knows only NEW still verifies it.
      const only = setup({ encryptionKeys: NEW })
      only.clock.advance(before.clock.now().getTime() - only.clock.now().getTime() + STEP_MS)
      expect((await verify(only, await challengeOf(only), ada.code(1))).status).toBe(200)
    },
  )

  run('setup, disable and new recovery codes are limited per user, each on its own count', async () => {
    const h = setup()
    const plain = await h.signup('bob@example.com')
    await h.verifyEmail('bob@example.com')
    const ada = await withTwoFactor(h)
    /** Wrong passwords from ever new addresses until a 429: how many were answered 400. */
    const triesUntilLimited = async (path: string, bearer: Record<string, string>, body: Json) => {
      for (let i = 0; i < 12; i++) {
        const res = await h.request('POST', `/auth/two-factor/${path}`, {
          json: body,
          headers: bearer,
          ip: `198.51.100.${i + 1}`,
        })
        if (res.status === 429) {
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
          return i
        }
        expect(res.status, path).toBe(400)
      }
      return Number.POSITIVE_INFINITY
    }
    const wrong = 'not the password at all'
    expect(await triesUntilLimited('setup', plain.bearer, { currentPassword: wrong })).toBe(10)
    expect(await triesUntilLimited('disable', ada.bearer, { currentPassword: wrong, code: ada.code() })).toBe(10)
    expect(await triesUntilLimited('recovery-codes', ada.bearer, { currentPassword: wrong, code: ada.code() })).toBe(10)
    expect(await json(await h.request('GET', '/auth/two-factor', { headers: ada.bearer }))).toMatchObject({ enabled: true })
  })
})
