/**
 * Log hygiene: everything the server process writes (stdout and stderr, to its exit) during a
 * full end-to-end run, including failures, a dead mail server, credentials in the query
 * string, passkey ceremonies, API keys (made, used where they go and where they do not, revoked),
 * social sign-in against a real OpenID Connect provider in process (a link, callbacks with a wrong
 * state and a made-up code, a sign-in) and an operator's actions, holds no password, passkey
 * challenge, attestation or signature, JWT (nor its signature), refresh value, reset token, hash of
 * either, API key (nor its hash), provider code, state, nonce or flow cookie, stored `$argon2` hash
 * or the secret. The run is in production with SMTP, where
 * nothing prints a reset link; the development run excludes exactly the one line the development mailer
 * prints by design (docs/reference/lifecycle.md#mail) and checks that line is the only place its token appears. A client-chosen
 * path cannot forge log lines or write terminal escapes.
 */
import { createHash, randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import { join } from 'node:path'
import * as OTPAuth from 'otpauth'
import { describe, expect, it } from 'vitest'
import { type CreationOptions, type RequestOptions, softAuthenticator } from '../../../../packages/auth/test/authenticator.js'
import {
  browser,
  CLIENT_ID,
  CLIENT_SECRET,
  startProvider,
  type TestProvider,
} from '../../../../packages/auth/test/oidc-provider.js'
import {
  APP_DIR,
  cookieFrom,
  devMail,
  devMailCount,
  type RunningServer,
  randomSecret,
  request,
  run,
  startServer,
  startSmtp,
} from '../support.js'
import { ATTACK_STORES, type AttackStore, type DbView } from './db-view.js'
import { forgeJwt, freshIp, strongPassword, until } from './helpers.js'

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')
const CLI = join(APP_DIR, 'dist', 'cli.js')

/** What the run needs besides the server: the provider in process, and the CLI on the server's database. */
interface Extras {
  idp: TestProvider
  /** `pnpm cli …` on the server's database. */
  cli: (...args: string[]) => Promise<{ code: number | null; stderr: string }>
  /** Whether a mailed reset link may be sent once more (the development run counts its link lines). */
  resetMailOk: boolean
}

/** Drives every endpoint, good and bad, and returns every secret it handled. */
const endToEnd = async (
  server: RunningServer,
  view: DbView,
  resetToken: (email: string) => Promise<string>,
  mailedCode: (email: string, after: number) => Promise<string>,
  mailCount: (email: string) => number,
  { idp, cli, resetMailOk }: Extras,
) => {
  const secrets: string[] = []
  /** Six-digit codes (mailed or from the app), looked for as whole numbers. */
  const codes: string[] = []
  const keep = (...values: (string | undefined | null)[]) => {
    for (const v of values) if (v) secrets.push(v)
  }
  const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
    request(server.base, method, path, { ...options, headers: { 'x-forwarded-for': freshIp(), ...options.headers } })
  const refreshOf = (reply: Awaited<ReturnType<typeof call>>) => cookieFrom(reply, 'refresh_token')
  const keepAuth = (reply: Awaited<ReturnType<typeof call>>) => {
    const token = (reply.body as { accessToken?: string } | null)?.accessToken
    const cookie = refreshOf(reply)
    const value = cookie?.split('=')[1]
    keep(token, token?.split('.')[2], value, value && sha256(value))
    // The device cookie (a random id): its value, and the id's hash the store keeps.
    const device = cookieFrom(reply, 'device')
    const deviceId = device?.split('=')[1]?.split('.')[0]
    keep(device?.split('=')[1], deviceId, deviceId && sha256(deviceId))
    return { token: token ?? '', cookie: cookie ?? '', device: device ?? '' }
  }

  const email = `logs-${freshIp().replaceAll('.', '')}@example.com`
  const [first, second, third, wrong] = [strongPassword(), strongPassword(), strongPassword(), strongPassword()]
  keep(first, second, third, wrong)

  const signup = keepAuth(await call('POST', '/auth/signup', { body: { name: 'Logan', email, password: first } }))
  expect(signup.token).not.toBe('')
  expect((await call('POST', '/auth/login', { body: { email, password: wrong } })).status).toBe(401)
  expect((await call('POST', '/auth/login', { body: { email: 'nobody@example.com', password: wrong } })).status).toBe(401)
  const session = keepAuth(await call('POST', '/auth/login', { body: { email, password: first } }))
  // The signup's browser again: the device cookie travels in a request too.
  expect(signup.device).not.toBe('')
  expect((await call('POST', '/auth/login', { body: { email, password: wrong }, cookie: signup.device })).status).toBe(401)
  keepAuth(await call('POST', '/auth/login', { body: { email, password: first }, cookie: signup.device }))

  // Every place a credential can travel, including the query string.
  expect((await call('GET', '/auth/me', { token: session.token })).status).toBe(200)
  expect((await call('GET', `/todos?limit=5&access_token=${session.token}`)).status).toBe(200)
  expect((await call('GET', '/todos', { cookie: `token=${session.token}` })).status).toBe(200)
  const todo = await call('POST', `/todos?access_token=${session.token}`, { body: { title: 'log me not' } })
  expect(todo.status).toBe(201)
  const id = (todo.body as { id: string }).id
  expect((await call('PATCH', `/todos/${id}?access_token=${session.token}`, { body: { done: true } })).status).toBe(200)
  expect((await call('GET', `/todos?access_token=${session.token}x`)).status).toBe(401)
  expect((await call('GET', `/todos?access_token=${session.token}&access_token=${session.token}`)).status).toBe(401)
  const forged = forgeJwt({ alg: 'none' }, { sub: 'x', sid: 'y' }, null)
  keep(forged)
  expect((await call('GET', '/todos', { token: forged })).status).toBe(401)

  // Rotation, a loser of the race, and reuse of a rotated value.
  const rotated = keepAuth(await call('POST', '/auth/refresh', { cookie: session.cookie }))
  expect(rotated.cookie).not.toBe('')
  expect((await call('POST', '/auth/refresh', { cookie: session.cookie })).status).toBe(401)
  expect((await call('POST', '/auth/refresh', { cookie: 'refresh_token=not-a-real-value-at-all' })).status).toBe(401)

  // Bodies that fail, carrying passwords: malformed, oversized, not JSON, weak.
  const raw = { 'content-type': 'application/json' }
  expect((await call('POST', '/auth/login', { body: `{"email":"${email}","password":"${first}"`, headers: raw })).status).toBe(
    400,
  )
  expect((await call('POST', '/auth/login', { body: { email, password: `${first}${'x'.repeat(70_000)}` } })).status).toBe(413)
  const textBody = { 'content-type': 'text/plain' }
  expect((await call('POST', '/auth/login', { body: `email=${email}&password=${first}`, headers: textBody })).status).toBe(415)
  expect(
    (await call('POST', '/auth/signup', { body: { name: 'Weak', email: `w${email}`, password: 'password123' } })).status,
  ).toBe(400)

  expect(
    (await call('POST', '/auth/change-password', { token: rotated.token, body: { currentPassword: wrong, newPassword: second } }))
      .status,
  ).toBe(400)
  expect(
    (await call('POST', '/auth/change-password', { token: rotated.token, body: { currentPassword: first, newPassword: second } }))
      .status,
  ).toBe(204)

  // Step-up: a wrong and a right re-authentication (the password travels again), and a sensitive
  // change with the fresh session instead of the password.
  expect((await call('POST', '/auth/reauth', { token: rotated.token, body: { password: wrong } })).status).toBe(400)
  const reauthed = keepAuth(await call('POST', '/auth/reauth', { token: rotated.token, body: { password: second } }))
  expect(reauthed.token).not.toBe('')
  const moved = { newEmail: `moved-${email}` }
  expect((await call('POST', '/auth/change-email', { token: reauthed.token, body: moved })).status).toBe(202)

  // Reset: the page, a refused password (token kept), the redemption, a second redemption.
  const token = await resetToken(email)
  keep(token, sha256(token), encodeURIComponent(token))
  expect((await call('GET', `/reset-password?token=${encodeURIComponent(token)}`)).status).toBe(200)
  expect((await call('POST', '/auth/reset-password', { body: { token, newPassword: 'password123' } })).status).toBe(400)
  expect((await call('POST', '/auth/reset-password', { body: { token, newPassword: third } })).status).toBe(204)
  expect((await call('POST', '/auth/reset-password', { body: { token, newPassword: third } })).status).toBe(400)
  expect((await call('POST', '/auth/reset-password', { body: { token: `${token}x`, newPassword: third } })).status).toBe(400)

  const last = keepAuth(await call('POST', '/auth/login', { body: { email, password: third } }))
  const userId = ((await call('GET', '/auth/me', { token: last.token })).body as { id: string }).id

  // API keys, from this fresh session of an address the reset verified: a refused and two good
  // creations (the key is in that answer only), a use in the header, in the query and a cookie
  // (refused), a wrong checksum, a key without the scope, a key on an /auth route, a revocation.
  const createKey = async (scopes: string[]) => {
    const reply = await call('POST', '/auth/api-keys', { token: last.token, body: { name: 'Logged key', scopes } })
    expect(reply.status).toBe(201)
    const { id, key } = reply.body as { id: string; key: string }
    keep(key, sha256(key), key.slice(3))
    return { id, key }
  }
  expect(
    (await call('POST', '/auth/api-keys', { token: last.token, body: { name: 'Logged key', scopes: ['todos:admin'] } })).status,
  ).toBe(400)
  const apiKey = await createKey(['todos:read', 'todos:write'])
  const readKey = await createKey(['todos:read'])
  expect((await call('GET', '/todos', { token: apiKey.key })).status).toBe(200)
  expect((await call('POST', '/todos', { token: apiKey.key, body: { title: 'by key' } })).status).toBe(201)
  expect((await call('POST', '/todos', { token: readKey.key, body: { title: 'by key' } })).status).toBe(403)
  expect((await call('GET', `/todos?access_token=${apiKey.key}`)).status).toBe(401)
  expect((await call('GET', '/todos', { cookie: `token=${apiKey.key}` })).status).toBe(401)
  const wrongSum = `${apiKey.key.slice(0, -1)}${apiKey.key.endsWith('0') ? '1' : '0'}`
  keep(wrongSum)
  expect((await call('GET', '/todos', { token: wrongSum })).status).toBe(401)
  expect((await call('GET', '/auth/api-keys', { token: apiKey.key })).status).toBe(403)
  expect((await call('GET', '/auth/api-keys', { token: last.token })).status).toBe(200)
  expect((await call('DELETE', `/auth/api-keys/${readKey.id}`, { token: last.token })).status).toBe(204)
  expect((await call('GET', '/todos', { token: readKey.key })).status).toBe(401)

  // Social sign-in through the provider: a link from this session, a callback in another browser
  // (no flow cookie), a right state with a made-up code, a wrong state, then a sign-in by the
  // linked identity. Every code, state, nonce and flow cookie is a secret.
  const origin = `http://localhost:${server.port}`
  const app = {
    request: (path: string, init: RequestInit) => fetch(`${server.base}${path}`, { ...init, redirect: 'manual' as const }),
  }
  const subject = `logs-${randomUUID()}`
  idp.as(subject, { email: `idp-${email}`, email_verified: true, name: 'Logan' })
  /** A flow in browser `b`: the callback URL the provider sent it to, its secrets kept. */
  const throughProvider = async (b: ReturnType<typeof browser>, start: string) => {
    const { location } = await b.walk(start, { stopAtCallback: true })
    const back = new URL(location ?? '')
    expect(back.pathname).toBe('/auth/oauth/idp/callback')
    keep(back.searchParams.get('code'), back.searchParams.get('state'))
    for (const [name, value] of [
      ...b.cookies
        .header()
        .split('; ')
        .map((pair) => pair.split('=')),
    ])
      if (name?.endsWith('oauth_flow') && value) keep(value, sha256(value))
    return back
  }
  const linking = browser(app, origin)
  const link = await call('POST', '/auth/oauth/idp/link', { token: last.token, body: { returnTo: '/todos' } })
  expect(link.status).toBe(200)
  const authorize = new URL((link.body as { url: string }).url)
  keep(authorize.searchParams.get('state'), authorize.searchParams.get('nonce'))
  const flowCookie = cookieFrom(link, 'oauth_flow') ?? ''
  keep(flowCookie.split('=')[1])
  linking.cookies.set(flowCookie.split('=')[0] ?? '', flowCookie.split('=')[1] ?? '')
  const linkBack = await throughProvider(linking, authorize.href)
  // The provider's callback replayed in a browser without the flow: refused, nothing linked.
  expect((await call('GET', `${linkBack.pathname}${linkBack.search}`)).headers.get('location')).toMatch(/error=invalid_state/)
  expect((await linking.get(linkBack.href)).headers.get('location')).toBe('/todos?linked=idp')

  const stranger = browser(app, origin)
  const madeUp = await throughProvider(stranger, '/auth/oauth/idp?returnTo=/')
  madeUp.searchParams.set('code', `made-up-${randomUUID()}`)
  keep(madeUp.searchParams.get('code'))
  expect((await stranger.get(madeUp.href)).headers.get('location')).toMatch(/error=provider_error/)
  const wrongState = await throughProvider(stranger, '/auth/oauth/idp?returnTo=/')
  wrongState.searchParams.set('state', `wrong-${randomUUID()}`)
  keep(wrongState.searchParams.get('state'))
  expect((await stranger.get(wrongState.href)).headers.get('location')).toMatch(/error=invalid_state/)

  const signingIn = browser(app, origin)
  const signInBack = await throughProvider(signingIn, '/auth/oauth/idp?returnTo=/')
  const landed = await signingIn.get(signInBack.href)
  expect(landed.headers.get('location')).toBe('/')
  const byProvider = signingIn.cookies.get('__Secure-refresh_token') ?? signingIn.cookies.get('refresh_token') ?? ''
  expect(byProvider).not.toBe('')
  keep(byProvider, sha256(byProvider))
  const identities = await call('GET', '/auth/identities', { token: last.token })
  expect((identities.body as { provider: string }[]).map((i) => i.provider)).toEqual(['idp'])

  // Two-factor, verified by the reset: the code mailed by setup, a wrong one, then the right one.
  const before = mailCount(email)
  const setup = await call('POST', '/auth/two-factor/setup', { token: last.token, body: { currentPassword: third } })
  expect(setup.status).toBe(200)
  const { secret: totpSecret, uri } = setup.body as { secret: string; uri: string }
  keep(totpSecret)
  const emailCode = await mailedCode(email, before)
  const totpCode = OTPAuth.URI.parse(uri).generate()
  const wrongCode = String((Number(emailCode) + 1) % 1_000_000).padStart(6, '0')
  codes.push(emailCode, totpCode, wrongCode)
  const enable = (code: string) =>
    call('POST', '/auth/two-factor/enable', { token: last.token, body: { code: totpCode, emailCode: code } })
  expect((await enable(wrongCode)).status).toBe(400)
  const enabled = await enable(emailCode)
  expect(enabled.status).toBe(200)
  keep(...(enabled.body as { recoveryCodes: string[] }).recoveryCodes)

  // Passkeys: registration (a wrong mailed code, then the right one), a refused and an accepted
  // sign-in, a re-authentication, rename and removal. Every challenge, attestation, client data
  // and signature is credential material.
  const authenticator = softAuthenticator({ origin: `http://localhost:${server.port}` })
  /** New creation options (a new mailed code), answered by the authenticator, sent with the code or a wrong one. */
  const register = async (right: boolean) => {
    const beforeKey = mailCount(email)
    const creation = await call('POST', '/auth/passkeys/register/options', { token: last.token })
    expect(creation.status).toBe(200)
    const keyCode = await mailedCode(email, beforeKey)
    const wrongKeyCode = String((Number(keyCode) + 1) % 1_000_000).padStart(6, '0')
    codes.push(keyCode, wrongKeyCode)
    const created = await authenticator.create(creation.body as CreationOptions)
    keep((creation.body as CreationOptions).challenge, created.response.clientDataJSON, created.response.attestationObject)
    const emailCode = right ? keyCode : wrongKeyCode
    return call('POST', '/auth/passkeys/register', {
      token: last.token,
      body: { response: created, emailCode, name: 'Logged key' },
    })
  }
  expect((await register(false)).status).toBe(400)
  const added = await register(true)
  expect(added.status).toBe(201)
  const passkeyId = (added.body as { id: string }).id
  const assertion = async (tamper = false) => {
    const started = await call('POST', '/auth/passkeys/login/options')
    const { challengeId, options } = started.body as { challengeId: string; options: RequestOptions }
    const response = await authenticator.get(options, { tamper })
    keep(challengeId, response.response.clientDataJSON, response.response.signature, response.response.authenticatorData)
    return { challengeId, response }
  }
  expect((await call('POST', '/auth/passkeys/login', { body: await assertion(true) })).status).toBe(401)
  const byKey = keepAuth(await call('POST', '/auth/passkeys/login', { body: await assertion() }))
  expect(byKey.token).not.toBe('')
  expect((await call('POST', '/auth/reauth', { token: byKey.token, body: { passkey: await assertion(true) } })).status).toBe(400)
  keepAuth(await call('POST', '/auth/reauth', { token: byKey.token, body: { passkey: await assertion() } }))
  const path = `/auth/passkeys/${passkeyId}`
  expect((await call('PATCH', path, { token: byKey.token, body: { name: 'Renamed key' } })).status).toBe(200)
  expect((await call('DELETE', path, { token: byKey.token })).status).toBe(204)
  expect((await call('POST', '/auth/logout', { token: byKey.token })).status).toBe(204)

  expect((await call('POST', '/auth/logout', { token: last.token })).status).toBe(204)
  expect((await call('GET', '/auth/me', { token: last.token })).status).toBe(401)

  // An operator's actions on the account (docs/guide/operators.md), refused before the role.
  const operatorEmail = `op-${email}`
  const operatorPassword = strongPassword()
  keep(operatorPassword)
  const operator = keepAuth(
    await call('POST', '/auth/signup', { body: { name: 'Opal', email: operatorEmail, password: operatorPassword } }),
  )
  const admin = (method: string, path: string, body?: unknown) =>
    call(method, `/auth/admin/users${path}`, { token: operator.token, body })
  expect((await admin('GET', `/${userId}`)).status).toBe(403)
  const granted = await cli('set-role', operatorEmail, 'admin')
  expect(granted.code, granted.stderr).toBe(0)
  expect((await admin('GET', `?query=${encodeURIComponent(email.slice(0, 12))}&limit=5`)).status).toBe(200)
  expect((await admin('GET', '?cursor=not-a-cursor')).status).toBe(400)
  expect((await admin('GET', `/${userId}`)).status).toBe(200)
  expect((await admin('POST', `/${userId}/disable`, { reason: 'log hygiene' })).status).toBe(204)
  // Disabling revoked every key.
  expect((await call('GET', '/todos', { token: apiKey.key })).status).toBe(401)
  expect((await admin('POST', `/${userId}/enable`)).status).toBe(204)
  expect((await admin('POST', `/${userId}/verify-email`)).status).toBe(204)
  expect((await admin('DELETE', `/${userId}/sessions`)).status).toBe(204)
  expect((await admin('DELETE', `/${userId}/two-factor`)).status).toBe(204)
  if (resetMailOk) expect((await admin('POST', `/${userId}/send-password-reset`)).status).toBe(202)
  expect((await admin('POST', `/${randomUUID()}/disable`, { reason: 'nobody' })).status).toBe(404)

  // Every stored password hash, refresh hash and reset-token hash is a secret too.
  keep(...(await view.storedHashes()))
  return { email, secrets, codes }
}

/** The run reached the API keys', social sign-in's and operators' routes, and their audit events were written. */
const expectNewRoutesDriven = (output: string) => {
  for (const line of [
    /^POST \/auth\/api-keys 201 /m,
    /^GET \/todos 200 /m,
    /^DELETE \/auth\/api-keys\/[^ ]+ 204 /m,
    /^POST \/auth\/oauth\/idp\/link 200 /m,
    /^GET \/auth\/oauth\/idp\/callback 302 /m,
    /^POST \/auth\/admin\/users\/[^ ]+\/disable 204 /m,
    /^DELETE \/auth\/admin\/users\/[^ ]+\/two-factor 204 /m,
  ])
    expect(output).toMatch(line)
  for (const type of ['api_key.created', 'api_key.revoked', 'identity.linked', 'admin.user_disabled', 'admin.sessions_revoked'])
    expect(output).toContain(`{"audit":{"type":"${type}"`)
}

/** Hashes of every secret value the server stored (refresh values, reset tokens, passwords), read after it stopped. */
const storedTokenHashes = async (view: DbView): Promise<Set<string>> => new Set(await view.storedHashes())

/**
 * No known secret, and nothing shaped like one: no JWT, and no token or refresh value (256
 * random bits, base64url, and for a refresh value its mark) whose SHA-256 the server stored (which catches tokens the test itself never saw, such as the one
 * minted for a mail that could not be sent).
 */
const expectClean = (output: string, secrets: string[], tokenHashes: Set<string>, codes: string[]) => {
  expect(secrets.length).toBeGreaterThan(20)
  const found = secrets.filter((s) => output.includes(s))
  expect(found, 'a secret reached the server output').toEqual([])
  expect(codes.length).toBeGreaterThan(0)
  const foundCodes = codes.filter((code) => new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`).test(output))
  expect(foundCodes, 'a two-factor or mailed code reached the server output').toEqual([])
  expect(output).not.toContain('$argon2')
  expect(output).not.toContain('access_token')
  expect(output).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+/)
  // Tokens are 43 characters; refresh values 65 (43 random, 22 of mark): every window of a run.
  const windows = (run: string) =>
    [43, 65].flatMap((n) => Array.from({ length: Math.max(0, run.length - n + 1) }, (_, i) => run.slice(i, i + n)))
  const tokens = (output.match(/[A-Za-z0-9_-]{43,}/g) ?? []).flatMap(windows).filter((t) => tokenHashes.has(sha256(t)))
  expect(tokens, 'a refresh value or reset token reached the server output').toEqual([])
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

/**
 * A server on `store` with `env`, and an OpenID Connect provider (`idp`) it signs in through; the
 * view of its database, the CLI on it, and the cleanup of all.
 */
const serverOn = async (store: AttackStore, env: Record<string, string>) => {
  const target = await store.prepare()
  const port = await freePort()
  const idp = await startProvider({
    redirectUri: `http://localhost:${port}/auth/oauth/idp/callback`,
    conformIdTokenClaims: false,
  })
  const providers = [{ id: 'idp', name: 'Test IdP', issuer: idp.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }]
  const server = await startServer({
    env: { ...target.env, PORT: String(port), AUTH_OIDC_PROVIDERS: JSON.stringify(providers), ...env },
  })
  const view = target.view(server)
  const databaseUrl = target.env?.DATABASE_URL ?? `file:${server.dbPath}`
  const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { env: { DATABASE_URL: databaseUrl } })
  return {
    server,
    view,
    idp,
    cli,
    async done() {
      await idp.close()
      await view.close()
      await target.drop()
    },
  }
}

describe.each(ATTACK_STORES)('log hygiene on $name', (store) => {
  it.skipIf(store.skip !== null)(
    'in production with SMTP: no secret in anything the server writes, even when the mail server is gone',
    async () => {
      const smtp = await startSmtp()
      const secret = randomSecret()
      const { server, view, idp, cli, done } = await serverOn(store, {
        NODE_ENV: 'production',
        SMTP_URL: smtp.url,
        TRUST_PROXY: 'true',
        AUTH_SECRET: secret,
      })
      let secrets: string[] = []
      let codes: string[] = []
      try {
        const run = await endToEnd(
          server,
          view,
          async (email) => {
            const before = smtp.mails.length
            await request(server.base, 'POST', '/auth/forgot-password', {
              body: { email },
              headers: { 'x-forwarded-for': freshIp() },
            })
            const mail = await smtp.waitFor(email, before)
            return decodeURIComponent(/token=(\S+)/.exec(mail.text)?.[1] ?? '')
          },
          async (email, after) => {
            const mail = await smtp.waitFor(email, after, 5_000, 'add-credential')
            return /^ {4}([0-9]{6})\r?$/m.exec(mail.text)?.[1] ?? ''
          },
          () => smtp.mails.length,
          { idp, cli, resetMailOk: true },
        )
        secrets = [...run.secrets, secret, CLIENT_SECRET]
        codes = run.codes
        // The mail server goes away: the failure is logged, the token is not.
        await smtp.close()
        const forgot = await request(server.base, 'POST', '/auth/forgot-password', {
          body: { email: run.email },
          headers: { 'x-forwarded-for': freshIp() },
        })
        expect(forgot.status).toBe(202)
        await server.waitForOutput(/POST \/auth\/forgot-password 202/)
        await until(() => /sendMail failed/.test(server.stderr()), 5_000, 'the sendMail failure line')
      } finally {
        await server.stop()
      }
      const output = server.stdout() + server.stderr()
      expect(output).toMatch(/^POST \/auth\/reset-password 204 \d+ms$/m)
      // The audit line of a re-authentication names its methods (RFC 8176), and the failure has its own.
      expect(output).toMatch(/^\{"audit":\{"type":"reauthenticated",.*"amr":\["pwd"\]/m)
      expect(output).toMatch(/^\{"audit":\{"type":"reauthentication\.failed",/m)
      expectNewRoutesDriven(output)
      expect(output).not.toContain('reset-password?token=')
      expectClean(output, secrets, await storedTokenHashes(view), codes)
      await done()
    },
  )

  it.skipIf(store.skip !== null)(
    'in development without SMTP: the one reset-link line the development mailer prints is the only place its token appears',
    async () => {
      const secret = randomSecret()
      const { server, view, idp, cli, done } = await serverOn(store, {
        NODE_ENV: 'development',
        TRUST_PROXY: 'true',
        AUTH_SECRET: secret,
      })
      let codes: string[] = []
      let emailCode = ''
      const link = /^\[dev mail\] password reset link for \S+: http:\/\/localhost:\d+\/reset-password\?token=([A-Za-z0-9_-]{43})$/
      let secrets: string[] = []
      try {
        const run = await endToEnd(
          server,
          view,
          async (email) => {
            const before = server
              .stdout()
              .split('\n')
              .filter((l) => link.test(l)).length
            await request(server.base, 'POST', '/auth/forgot-password', {
              body: { email },
              headers: { 'x-forwarded-for': freshIp() },
            })
            const linkLines = () =>
              server
                .stdout()
                .split('\n')
                .filter((l) => link.test(l))
            await until(() => linkLines().length > before, 5_000, 'the reset link line')
            return link.exec(linkLines().at(-1) ?? '')?.[1] ?? ''
          },
          (email, after) => devMail(server, 'add-credential code', email, after),
          (email) => devMailCount(server, 'add-credential code', email),
          { idp, cli, resetMailOk: false },
        )
        secrets = [...run.secrets, secret, CLIENT_SECRET]
        codes = run.codes
        emailCode = run.codes[0] ?? ''
      } finally {
        await server.stop()
      }
      const lines = (server.stdout() + server.stderr()).split('\n')
      const linkLines = lines.filter((l) => link.test(l))
      expect(linkLines).toHaveLength(1)
      // Every mail with a token prints its link (docs/reference/lifecycle.md#mail): those lines are where tokens belong.
      const mailLink = /^\[dev mail\] [a-z ]+ link for \S+: http:\/\/localhost:\d+\/[a-z-]+\?token=[A-Za-z0-9_-]{43}$/
      // The mailed code is printed as its own line, like a link (docs/reference/lifecycle.md#mail); only there.
      const codeLine = /^\[dev mail\] add-credential code for \S+: [0-9]{6}$/
      expect(lines.filter((l) => codeLine.test(l) && l.endsWith(`: ${emailCode}`))).toHaveLength(1)
      expectNewRoutesDriven(lines.join('\n'))
      const elsewhere = lines.filter((l) => !mailLink.test(l) && !codeLine.test(l)).join('\n')
      expectClean(elsewhere, secrets, await storedTokenHashes(view), codes)
      await done()
    },
  )
})

describe('log hygiene of the request log', () => {
  it('writes one line per request: a path cannot forge log lines or send terminal escapes', async () => {
    const server = await startServer()
    try {
      const forged = [
        '/x%0AGET%20/admin/stats%20200%201ms',
        '/x%0D%0A%5Bdev%20mail%5D%20password%20reset%20link%20for%20admin@example.com:%20http://evil.example/reset-password',
        '/x%1B%5B2J%1B%5B31mRED',
        '/todos/%0Aforged',
        '/x%E2%80%A8y%C2%85z',
      ]
      for (const path of forged) expect((await request(server.base, 'GET', path)).status).toBe(404)
      await request(server.base, 'GET', '/health')
      await server.waitForOutput(/^GET \/health 200/)
    } finally {
      await server.stop()
    }
    const lines = server.stdout().split('\n')
    const requestLines = lines.filter((l) => /^[A-Z]+ \//.test(l))
    expect(requestLines).toHaveLength(6)
    expect(lines.filter((l) => /^GET \/admin\/stats/.test(l) || /^\[dev mail\]/.test(l))).toEqual([])
    expect(server.stdout().replaceAll('\n', '')).not.toMatch(/[\p{Cc}\u2028\u2029]/u)
  })
})
