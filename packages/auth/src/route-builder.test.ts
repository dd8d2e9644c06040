/**
 * The route builder (route-builder.ts): a body is parsed once and what a limit keys on is looked
 * up once, the handler reading the same values (a record, a token's SHA-256, a parsed cookie);
 * and the document lists the answers of what the builder installed on each operation, no more
 * and no fewer.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { cookieHeader, harness, PASSWORD } from '../test/harness.js'
import { withTwoFactor } from '../test/two-factor.js'
import * as cookies from './cookies.js'
import * as opaque from './opaque-token.js'

// Every SHA-256 of a token and every parse of a refresh cookie, counted (the real ones run).
vi.mock('./opaque-token.js', async (original) => {
  const actual = await original<typeof import('./opaque-token.js')>()
  return { ...actual, tokenHash: vi.fn(actual.tokenHash) }
})
vi.mock('./cookies.js', async (original) => {
  const actual = await original<typeof import('./cookies.js')>()
  return { ...actual, parseRefreshValue: vi.fn(actual.parseRefreshValue) }
})
const tokenHash = vi.mocked(opaque.tokenHash)
const parseRefreshValue = vi.mocked(cookies.parseRefreshValue)

type H = ReturnType<typeof harness>

const timesOf = (list: readonly string[], item: string) => list.filter((x) => x === item).length

/**
 * Counts, for one request, the store's calls by name, the parses of its body, the tokens it
 * hashed and its refresh-cookie parses, for the length of a test.
 */
const watch = (h: H) => {
  const calls: string[] = []
  const store = h.store as unknown as Record<string, unknown>
  for (const [name, fn] of Object.entries(store))
    if (typeof fn === 'function')
      store[name] = (...args: unknown[]) => {
        calls.push(name)
        return (fn as (...a: unknown[]) => unknown).apply(store, args)
      }
  return {
    /**
     * Sends `body` (if any) to `path`; answers the status, the code of a problem, how often its
     * text was parsed, the store calls it made, the tokens it hashed and its cookie parses.
     */
    async post(path: string, body: unknown, headers: Record<string, string> = {}) {
      const text = body === undefined ? undefined : JSON.stringify(body)
      let parses = 0
      const parse = JSON.parse
      JSON.parse = ((source: string, reviver?: never) => {
        if (source === text) parses++
        return parse(source, reviver)
      }) as typeof JSON.parse
      calls.length = 0
      tokenHash.mockClear()
      parseRefreshValue.mockClear()
      try {
        const res = await h.request('POST', path, {
          ...(text === undefined ? {} : { body: text }),
          headers: { ...(text === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        })
        const code = res.status >= 400 ? ((await res.json()) as { code?: string }).code : undefined
        return {
          status: res.status,
          code,
          parses,
          calls: [...calls],
          hashed: tokenHash.mock.calls.map(([value]) => value),
          cookieParses: parseRefreshValue.mock.calls.length,
        }
      } finally {
        JSON.parse = parse
      }
    },
  }
}

const parse = JSON.parse
afterEach(() => {
  JSON.parse = parse
})

describe('the route builder', () => {
  it('parses a reset-password body once and looks its token up once, for the limit and the handler alike', async () => {
    const h = harness()
    await h.signup()
    await h.request('POST', '/auth/forgot-password', { json: { email: 'ada@example.com' } })
    const { token } = await h.mailOf('reset-password', 'ada@example.com')
    const sent = await watch(h).post('/auth/reset-password', { token, newPassword: 'a brand new passphrase' })
    expect(sent.status).toBe(204)
    expect(sent.parses).toBe(1)
    expect(sent.calls.filter((name) => name === 'findResetToken')).toHaveLength(1)
  })

  it('parses a two-factor verify body once, hashes its challenge once and looks it up once before the claim', async () => {
    const h = harness()
    const user = await withTwoFactor(h)
    const { challenge } = (await (await h.login()).json()) as { challenge: string }
    const sent = await watch(h).post('/auth/two-factor/verify', { challenge, code: user.code() })
    expect(sent.status).toBe(200)
    expect(sent.parses).toBe(1)
    expect(sent.calls.slice(0, 2)).toEqual(['findChallenge', 'claimChallenge'])
    expect(sent.calls.filter((name) => name === 'findChallenge')).toHaveLength(1)
    expect(timesOf(sent.hashed, challenge)).toBe(1)
  })

  it('refuses a two-factor challenge its lookup did not find without claiming it', async () => {
    const h = harness()
    const user = await withTwoFactor(h)
    const sent = await watch(h).post('/auth/two-factor/verify', { challenge: 'made-up-challenge', code: user.code() })
    expect(sent.status).toBe(401)
    expect(sent.code).toBe('invalid_challenge')
    expect(sent.calls).toEqual(['findChallenge'])
  })

  it('reads the account of a login from a browser with a device cookie once, for the limit and the handler', async () => {
    const h = harness()
    const { device } = await h.signup()
    const watched = watch(h)
    for (const [email, status] of [
      ['ada@example.com', 200],
      ['nobody@example.com', 401],
    ] as const) {
      const sent = await watched.post('/auth/login', { email, password: PASSWORD }, { Cookie: device })
      expect(sent.status).toBe(status)
      expect(sent.parses).toBe(1)
      // A known and an unknown address cost the same reads (the device is looked up under no account).
      expect(sent.calls.slice(0, 2)).toEqual(['findUserByEmail', 'knowsDevice'])
      expect(timesOf(sent.calls, 'findUserByEmail')).toBe(1)
    }
  })

  it('parses a refresh cookie once, for the limit and the rotation, and hashes each of its parts once', async () => {
    const h = harness()
    const { refresh } = await h.signup()
    const [, key, value] = refresh.split('.') as [string, string, string]
    const sent = await watch(h).post('/auth/refresh', undefined, cookieHeader(refresh))
    expect(sent.status).toBe(200)
    expect(sent.cookieParses).toBe(1)
    expect(timesOf(sent.hashed, key)).toBe(1)
    expect(timesOf(sent.hashed, value)).toBe(1)
  })

  it('counts a malformed body on the limit before answering it 400', async () => {
    const h = harness({ rateLimit: { ip: { max: 2, windowSeconds: 900 } } })
    for (let i = 0; i < 2; i++) {
      const res = await h.request('POST', '/auth/reset-password', {
        body: '{"token":',
        headers: { 'Content-Type': 'application/json' },
      })
      expect(res.status).toBe(400)
      expect(((await res.json()) as { code: string }).code).toBe('malformed_json')
    }
    const limited = await h.request('POST', '/auth/reset-password', {
      body: '{"token":',
      headers: { 'Content-Type': 'application/json' },
    })
    expect(limited.status).toBe(429)
  })

  it('documents on each /auth operation the answers of what it installed', () => {
    const h = harness({ passkeys: { rpId: 'localhost', rpName: 'Latchkey test', origins: ['http://localhost:3000'] } })
    const doc = h.app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } })
    const hashing: string[] = []
    const limited: string[] = []
    for (const [path, ops] of Object.entries(doc.paths ?? {})) {
      if (!path.startsWith('/auth/')) continue
      for (const [method, op] of Object.entries(
        ops as Record<string, { responses: Record<string, unknown>; security?: unknown[] }>,
      )) {
        const id = `${method.toUpperCase()} ${path}`
        const statuses = Object.keys(op.responses)
        // Every route sits behind the body guard: an unsafe method may meet its 413 and 415.
        const unsafe = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase())
        expect(statuses.includes('413') && statuses.includes('415'), id).toBe(unsafe)
        expect(statuses, id).toContain('500')
        if (statuses.includes('503')) hashing.push(id)
        if (statuses.includes('429')) limited.push(id)
      }
    }
    expect(hashing.sort()).toEqual(
      [
        'POST /auth/signup',
        'POST /auth/login',
        'POST /auth/change-password',
        'POST /auth/reauth',
        'POST /auth/reset-password',
        'POST /auth/change-email',
        'POST /auth/delete-account',
        'POST /auth/two-factor/setup',
        'POST /auth/two-factor/disable',
        'POST /auth/two-factor/recovery-codes',
        // Its optional password keeps a password set before the mailbox was proven.
        'POST /auth/verify-email',
      ].sort(),
    )
    // Not limited: me, the two-factor state, logout, the session routes, and listing, renaming and removing passkeys.
    expect(limited).not.toContain('GET /auth/me')
    expect(limited).not.toContain('POST /auth/logout')
    expect(limited).not.toContain('DELETE /auth/sessions')
    expect(limited).not.toContain('GET /auth/two-factor')
    expect(limited).toHaveLength(23)
    // A route's own 403 is joined to the guard's, never replaced by it.
    const setup = doc.paths?.['/auth/two-factor/setup']?.post?.responses?.['403'] as { description: string }
    expect(setup.description).toMatch(/another site.*email-unverified/)
  })
})
