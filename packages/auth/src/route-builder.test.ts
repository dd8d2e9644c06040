/**
 * The route builder (route-builder.ts): a body is parsed once and what a limit keys on is looked
 * up once, the handler reading the same values; and the document lists the answers of what the
 * builder installed on each operation, no more and no fewer.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { harness } from '../test/harness.js'
import { withTwoFactor } from '../test/two-factor.js'

type H = ReturnType<typeof harness>

/** Counts the store's calls by name and the parses of one request's body, for the length of a test. */
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
    /** Sends `body` to `path`; answers the status, how often its text was parsed, and the store calls it made. */
    async post(path: string, body: unknown) {
      const text = JSON.stringify(body)
      let parses = 0
      const parse = JSON.parse
      JSON.parse = ((source: string, reviver?: never) => {
        if (source === text) parses++
        return parse(source, reviver)
      }) as typeof JSON.parse
      calls.length = 0
      try {
        const res = await h.request('POST', path, { body: text, headers: { 'Content-Type': 'application/json' } })
        return { status: res.status, parses, calls: [...calls] }
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

  it('parses a two-factor verify body once and looks its challenge up once before the claim', async () => {
    const h = harness()
    const user = await withTwoFactor(h)
    const { challenge } = (await (await h.login()).json()) as { challenge: string }
    const sent = await watch(h).post('/auth/two-factor/verify', { challenge, code: user.code() })
    expect(sent.status).toBe(200)
    expect(sent.parses).toBe(1)
    expect(sent.calls.slice(0, 2)).toEqual(['findChallenge', 'claimChallenge'])
    expect(sent.calls.filter((name) => name === 'findChallenge')).toHaveLength(1)
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
