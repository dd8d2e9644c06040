/**
 * The end-to-end flow every runtime's example must pass over HTTP: requests that hash nothing
 * (the app's first request), then signup, the guarded route,
 * login, refresh and the reuse of a rotated value, logout, forgot/reset through the mail hook,
 * and the 401, 403 and 429 answers, with the client address read from the runtime itself.
 * The example prints each mail and event as a JSON line (`{"mail":…}`, `{"event":…}`).
 */
import { connect } from 'node:net'
import { expect } from 'vitest'

const PASSWORD = 'plum tractor violet lantern'

const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((line) => /^(?:__Secure-)?refresh_token=([^;]*)/.exec(line)?.[1])
    .find((value) => value !== undefined)

/** The JSON lines of `key` a process printed. */
const linesOf = <T>(stdout: () => string, key: string): T[] =>
  stdout()
    .split('\n')
    .filter((line) => line.startsWith(`{"${key}":`))
    .map((line) => (JSON.parse(line) as Record<string, T>)[key] as T)

const until = async <T>(find: () => T | undefined, what: string): Promise<T> => {
  for (let i = 0; i < 100; i++) {
    const found = find()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/**
 * The status of a request sent as curl sends `curl -X POST` without data: no body, and neither
 * Content-Length nor Transfer-Encoding (fetch always sends `Content-Length: 0`).
 */
const bareStatus = (base: string, method: string, path: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const { hostname, port } = new URL(base)
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''))
    let answer = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      answer += chunk
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]
      if (status) {
        socket.destroy()
        resolve(Number(status))
      }
    })
    socket.on('error', reject)
    const lines = Object.entries({ Host: new URL(base).host, ...headers, Connection: 'close' }).map(([k, v]) => `${k}: ${v}`)
    socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`)
  })

export const runtimeFlow = async (base: string, stdout: () => string, { graceSeconds = 10 } = {}) => {
  const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  const email = `ada-${crypto.randomUUID().slice(0, 8)}@example.com`

  // First, requests that hash nothing, as a browser's first visit sends them: work the first
  // request started and left behind (on Workers, a hash its end cancels) must not stall the
  // signup that follows.
  const me = await fetch(`${base}/auth/me`)
  expect(me.status).toBe(401)
  await me.body?.cancel()
  const badLogin = await post('/auth/login', { email })
  expect(badLogin.status).toBe(400)
  await badLogin.body?.cancel()
  const noCookie = await post('/auth/refresh')
  expect(noCookie.status).toBe(401)
  await noCookie.body?.cancel()

  const signup = await post('/auth/signup', { name: 'Ada', email, password: PASSWORD })
  expect(signup.status).toBe(201)
  const { accessToken } = (await signup.json()) as { accessToken: string }
  expect(cookieOf(signup)).toBeTruthy()
  const hello = await fetch(`${base}/me/hello`, { headers: { Authorization: `Bearer ${accessToken}` } })
  expect(await hello.json()).toEqual({ hello: 'Ada' })
  const anonymous = await fetch(`${base}/me/hello`)
  expect(anonymous.status).toBe(401)
  expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/)
  expect((await fetch(`${base}/me/hello`, { headers: { Authorization: 'Bearer forged.token.value' } })).status).toBe(401)

  const login = await post('/auth/login', { email, password: PASSWORD })
  expect(login.status).toBe(200)
  const first = cookieOf(login) as string
  const refreshed = await post('/auth/refresh', undefined, { Cookie: `refresh_token=${first}` })
  expect(refreshed.status).toBe(200)
  const second = cookieOf(refreshed) as string
  expect(second).not.toBe(first)
  // From another site, a cookie-borne refresh is refused.
  expect(
    (await post('/auth/refresh', undefined, { Cookie: `refresh_token=${second}`, Origin: 'https://evil.example' })).status,
  ).toBe(403)
  // The rotated value again, after the grace for parallel tabs: reuse, and the session is revoked.
  await new Promise((resolve) => setTimeout(resolve, (graceSeconds + 1) * 1000))
  expect((await post('/auth/refresh', undefined, { Cookie: `refresh_token=${first}` })).status).toBe(401)
  expect((await post('/auth/refresh', undefined, { Cookie: `refresh_token=${second}` })).status).toBe(401)
  await until(
    () => linesOf<{ type: string }>(stdout, 'event').find((e) => e.type === 'refresh.reuse_detected'),
    'the reuse event',
  )

  // Logout ends the session of its access token.
  const again = await post('/auth/login', { email, password: PASSWORD })
  const { accessToken: token } = (await again.json()) as { accessToken: string }
  expect((await post('/auth/logout', undefined, { Authorization: `Bearer ${token}` })).status).toBe(204)
  expect((await post('/auth/refresh', undefined, { Cookie: `refresh_token=${cookieOf(again)}` })).status).toBe(401)
  // Or, sent as curl sends it (no body, no Content-Length), the session of its cookie alone.
  const third = cookieOf(await post('/auth/login', { email, password: PASSWORD })) as string
  expect(await bareStatus(base, 'POST', '/auth/logout', { Cookie: `refresh_token=${third}` })).toBe(204)
  expect((await post('/auth/refresh', undefined, { Cookie: `refresh_token=${third}` })).status).toBe(401)

  // Forgot and reset, through the mail hook.
  expect((await post('/auth/forgot-password', { email })).status).toBe(202)
  const mail = await until(
    () =>
      linesOf<{ kind: string; to: string; token: string }>(stdout, 'mail').find(
        (m) => m.kind === 'reset-password' && m.to === email,
      ),
    'the reset mail',
  )
  const newPassword = 'violet harbour kettle 42'
  expect((await post('/auth/reset-password', { token: mail.token, newPassword })).status).toBe(204)
  expect((await post('/auth/login', { email, password: PASSWORD })).status).toBe(401)
  expect((await post('/auth/login', { email, password: newPassword })).status).toBe(200)

  // Wrong passwords meet the per-account limit: 429 with Retry-After.
  let limited: Response | undefined
  for (let i = 0; i < 12 && !limited; i++) {
    const res = await post('/auth/login', { email, password: 'not the password at all' })
    if (res.status === 429) limited = res
    else expect(res.status).toBe(401)
  }
  expect(limited?.status).toBe(429)
  expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0)

  // The address in every event is the client's, read from the runtime: never unknown.
  const events = linesOf<{ ip: string | null }>(stdout, 'event')
  expect(events.length).toBeGreaterThan(5)
  for (const event of events) expect(event.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/)
}
