/**
 * Tools shared by the attack suite (`test/attack/*.test.ts`; the database view is db-view.ts):
 * the problem-document check every error must pass, raw HTTP for framing the
 * fetch API refuses to send, forged JWTs, and client addresses that never repeat. Nothing here
 * imports the app: like the rest of the tests, the attack suite only sees the wire and the file.
 */
import { createHmac, randomUUID } from 'node:crypto'
import { connect } from 'node:net'
import { expect } from 'vitest'
import { cookieFrom, type Reply, request } from '../support.js'

/** Asserts an error reply is an RFC 9457 problem document whose `status` is the HTTP status. */
export const expectProblem = (reply: { status: number; headers: Headers; text: string }, context = '') => {
  expect(reply.headers.get('content-type'), context).toBe('application/problem+json')
  const doc = JSON.parse(reply.text) as Record<string, unknown>
  expect(doc, context).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status: reply.status,
    detail: expect.any(String),
  })
  expect(reply.text, context).not.toMatch(/\bat .+:\d+:\d+\)?/) // no stack frame
}

let ipCounter = 0
/** A client address no other request of this process used (for `X-Forwarded-For` under TRUST_PROXY). */
export const freshIp = (): string => {
  const n = ++ipCounter
  return `100.${64 + ((n >> 16) & 63)}.${(n >> 8) & 255}.${n & 255}`
}

/** `request()` from a fresh client address, so per-IP limits never decide a test by accident. */
export const requestFrom = (base: string, method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
  request(base, method, path, { ...options, headers: { 'x-forwarded-for': freshIp(), ...options.headers } })

/** A passphrase that is on no common-password list. */
export const strongPassword = () => `plum tractor ${randomUUID().slice(0, 8)} lantern`

export interface Member {
  name: string
  email: string
  password: string
  token: string
  userId: string
  /** The refresh cookie's value (without its name). */
  refresh: string
}

const cookieValue = (reply: Reply) => cookieFrom(reply, 'refresh_token')?.split('=').slice(1).join('=') ?? ''

/** Signs up a fresh account from a fresh client address. */
export const newMember = async (base: string, name = `Member ${randomUUID().slice(0, 8)}`): Promise<Member> => {
  const email = `m-${randomUUID()}@example.com`
  const password = strongPassword()
  const reply = await requestFrom(base, 'POST', '/auth/signup', { body: { name, email, password } })
  if (reply.status !== 201) throw new Error(`signup answered ${reply.status}: ${reply.text}`)
  const body = reply.body as { accessToken: string; user: { id: string } }
  return { name, email, password, token: body.accessToken, userId: body.user.id, refresh: cookieValue(reply) }
}

/** The new refresh value a reply set, or `undefined`. */
export const refreshValueOf = (reply: Reply): string | undefined => {
  const value = cookieValue(reply)
  return value === '' ? undefined : value
}

const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

/** A JWT with any header and claims, signed with HMAC (`sha256` for HS256, `sha512` for HS512) or unsigned. */
export const forgeJwt = (
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  secret: string | null,
  hash: 'sha256' | 'sha512' = 'sha256',
): string => {
  const input = `${b64url(header)}.${b64url(claims)}`
  const signature = secret === null ? '' : createHmac(hash, secret).update(input).digest('base64url')
  return `${input}.${signature}`
}

/** The `sid` claim of an access token we were issued. */
export const sessionIdOf = (jwt: string): string =>
  (JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as { sid: string }).sid

/** Percent-encodes every byte of the UTF-8 form (lone surrogates become U+FFFD), so any string fits a URL. */
export const encodeAll = (s: string): string =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('')

export interface RawReply {
  status: number
  headers: Headers
  text: string
}

/** Writes one request exactly as given on a fresh connection and reads until the server closes it (send `Connection: close`). */
export const rawRequest = (port: number, bytes: string | Buffer, timeoutMs = 5_000) =>
  new Promise<RawReply>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete response within ${timeoutMs} ms`))
    }, timeoutMs)
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    socket.on('close', () => {
      clearTimeout(timer)
      const raw = Buffer.concat(chunks).toString('latin1')
      const end = raw.indexOf('\r\n\r\n')
      const [statusLine = '', ...lines] = raw.slice(0, end === -1 ? raw.length : end).split('\r\n')
      const headers = new Headers()
      for (const line of lines) {
        const colon = line.indexOf(':')
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
      }
      let body = end === -1 ? '' : raw.slice(end + 4)
      if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) body = dechunk(body)
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        text: Buffer.from(body, 'latin1').toString('utf8'),
      })
    })
    socket.write(bytes)
  })

const dechunk = (body: string): string => {
  let out = ''
  let rest = body
  for (;;) {
    const eol = rest.indexOf('\r\n')
    const size = Number.parseInt(rest.slice(0, eol), 16)
    if (eol === -1 || !size) return out
    out += rest.slice(eol + 2, eol + 2 + size)
    rest = rest.slice(eol + 2 + size + 2)
  }
}

/** Polls until `condition` holds. */
export const until = async (condition: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = 'condition') => {
  const end = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** The median of timing samples (the upper middle for an even count); NaN for none. */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
