/**
 * The published description: /openapi.json passes a standard OpenAPI 3.1 validator and says
 * what the guards do; /docs serves a reference page; /reset-password is self-contained.
 */
import { createHash } from 'node:crypto'
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, request, startServer } from './support.js'

interface Operation {
  operationId?: string
  security?: Record<string, string[]>[]
  responses: Record<string, unknown>
  'x-policy'?: string
  parameters?: { name: string; in: string }[]
}
interface Document {
  openapi: string
  info: { license?: { name: string } }
  servers?: { url: string }[]
  paths: Record<string, Record<string, Operation>>
  components: { securitySchemes: Record<string, { type: string; scheme?: string }> }
}

let server: RunningServer
let doc: Document

beforeAll(async () => {
  // A provider configured, so the social sign-in routes are described too (discovery waits for the first use).
  server = await startServer({ env: { GITHUB_CLIENT_ID: 'openapi-test', GITHUB_CLIENT_SECRET: 'openapi-test-secret' } })
  const reply = await request(server.base, 'GET', '/openapi.json')
  expect(reply.status).toBe(200)
  doc = reply.body as Document
})

afterAll(async () => {
  await server?.stop()
})

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ id: `${method.toUpperCase()} ${path}`, op })),
  )

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./)
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('describes every route of docs/reference/endpoints.md', () => {
    expect(
      operations()
        .map((o) => o.id)
        .sort(),
    ).toEqual(
      [
        'GET /.well-known/jwks.json',
        'POST /auth/signup',
        'POST /auth/login',
        'POST /auth/refresh',
        'POST /auth/logout',
        'GET /auth/me',
        'POST /auth/change-password',
        'POST /auth/reauth',
        'POST /auth/forgot-password',
        'POST /auth/reset-password',
        'POST /auth/verify-email',
        'POST /auth/resend-verification',
        'GET /auth/sessions',
        'DELETE /auth/sessions/{id}',
        'DELETE /auth/sessions',
        'POST /auth/change-email',
        'POST /auth/confirm-email',
        'POST /auth/delete-account',
        'GET /auth/two-factor',
        'POST /auth/two-factor/setup',
        'POST /auth/two-factor/enable',
        'POST /auth/two-factor/disable',
        'POST /auth/two-factor/recovery-codes',
        'POST /auth/two-factor/verify',
        'POST /todos',
        'GET /todos',
        'PATCH /todos/{id}',
        'DELETE /todos/{id}',
        'GET /admin/stats',
        'GET /admin/access',
        'GET /health',
        'GET /reset-password',
        'GET /verify-email',
        'GET /confirm-email',
        'GET /sign-in',
        'POST /auth/email-sign-in',
        'POST /auth/email-sign-in/verify',
        'POST /auth/passkeys/login/options',
        'POST /auth/passkeys/login',
        'POST /auth/passkeys/register/options',
        'POST /auth/passkeys/register',
        'GET /auth/passkeys',
        'PATCH /auth/passkeys/{id}',
        'DELETE /auth/passkeys/{id}',
        'POST /auth/api-keys',
        'GET /auth/api-keys',
        'DELETE /auth/api-keys/{id}',
        'GET /auth/oauth/providers',
        'GET /auth/oauth/{provider}',
        'GET /auth/oauth/{provider}/callback',
        'POST /auth/oauth/{provider}/link',
        'GET /auth/identities',
        'DELETE /auth/identities/{id}',
        'GET /auth/admin/users',
        'GET /auth/admin/users/{id}',
        'POST /auth/admin/users/{id}/disable',
        'POST /auth/admin/users/{id}/enable',
        'DELETE /auth/admin/users/{id}/sessions',
        'DELETE /auth/admin/users/{id}/two-factor',
        'POST /auth/admin/users/{id}/send-password-reset',
        'POST /auth/admin/users/{id}/verify-email',
      ].sort(),
    )
  })

  it('gives every guarded operation a bearer security requirement and a 401', () => {
    const bearer = Object.entries(doc.components.securitySchemes).find(([, s]) => s.type === 'http' && s.scheme === 'bearer')?.[0]
    expect(bearer).toBeDefined()
    const guarded = operations().filter(({ op }) => op.security?.some((req) => bearer! in req))
    expect(guarded.map((g) => g.id).sort()).toEqual(
      [
        'POST /auth/logout',
        'GET /auth/me',
        'POST /auth/change-password',
        'POST /auth/reauth',
        'POST /auth/resend-verification',
        'GET /auth/sessions',
        'DELETE /auth/sessions/{id}',
        'DELETE /auth/sessions',
        'POST /auth/change-email',
        'POST /auth/delete-account',
        'GET /auth/two-factor',
        'POST /auth/two-factor/setup',
        'POST /auth/two-factor/enable',
        'POST /auth/two-factor/disable',
        'POST /auth/two-factor/recovery-codes',
        'POST /auth/passkeys/register/options',
        'POST /auth/passkeys/register',
        'GET /auth/passkeys',
        'PATCH /auth/passkeys/{id}',
        'DELETE /auth/passkeys/{id}',
        'POST /auth/api-keys',
        'GET /auth/api-keys',
        'DELETE /auth/api-keys/{id}',
        'POST /auth/oauth/{provider}/link',
        'GET /auth/identities',
        'DELETE /auth/identities/{id}',
        'POST /todos',
        'GET /todos',
        'PATCH /todos/{id}',
        'DELETE /todos/{id}',
        'GET /admin/stats',
        'GET /admin/access',
        'GET /auth/admin/users',
        'GET /auth/admin/users/{id}',
        'POST /auth/admin/users/{id}/disable',
        'POST /auth/admin/users/{id}/enable',
        'DELETE /auth/admin/users/{id}/sessions',
        'DELETE /auth/admin/users/{id}/two-factor',
        'POST /auth/admin/users/{id}/send-password-reset',
        'POST /auth/admin/users/{id}/verify-email',
      ].sort(),
    )
    for (const { id, op } of guarded) expect(op.responses, id).toHaveProperty('401')
    // The guard's three places for the access token (§3 of the contract), as alternatives, the header first.
    expect(doc.components.securitySchemes.tokenCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'token' })
    expect(doc.components.securitySchemes.accessTokenQuery).toMatchObject({ type: 'apiKey', in: 'query', name: 'access_token' })
    for (const { id, op } of guarded)
      expect(op.security?.slice(0, 3), id).toEqual([{ [bearer as string]: [] }, { tokenCookie: [] }, { accessTokenQuery: [] }])
    // A cookie-borne token on an unsafe method from another site is 403 (docs/reference/credentials.md#cross-site-requests).
    for (const { id, op } of guarded.filter((g) => !g.id.startsWith('GET ')))
      expect((op.responses['403'] as { description?: string } | undefined)?.description, id).toMatch(/another site/)
  })

  it('names the scope an API key needs on each todo operation, and the apiKey bearer scheme', () => {
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' })
    const keyed = operations().flatMap(({ id, op }) =>
      (op.security ?? []).filter((req) => 'apiKey' in req).map((req) => [id, req.apiKey] as const),
    )
    expect(Object.fromEntries(keyed)).toEqual({
      'GET /auth/me': [],
      'POST /todos': ['todos:write'],
      'GET /todos': ['todos:read'],
      'PATCH /todos/{id}': ['todos:write'],
      'DELETE /todos/{id}': ['todos:write'],
    })
    for (const { id, op } of operations().filter((o) => o.id.includes('/todos')))
      expect((op.responses['403'] as { description?: string } | undefined)?.description, id).toMatch(/insufficient-scope/)
  })

  it('marks /admin/stats and the operators\' routes with x-policy "admin" and a 403, and no other operation with a policy', () => {
    const stats = doc.paths['/admin/stats']?.get
    expect(stats?.['x-policy']).toBe('admin')
    expect(stats?.responses).toHaveProperty('403')
    const withPolicy = operations().filter(({ op }) => op['x-policy'] !== undefined)
    expect(withPolicy.map((o) => o.id).sort()).toEqual(
      [
        'GET /admin/stats',
        'GET /auth/admin/users',
        'GET /auth/admin/users/{id}',
        'POST /auth/admin/users/{id}/disable',
        'POST /auth/admin/users/{id}/enable',
        'DELETE /auth/admin/users/{id}/sessions',
        'DELETE /auth/admin/users/{id}/two-factor',
        'POST /auth/admin/users/{id}/send-password-reset',
        'POST /auth/admin/users/{id}/verify-email',
      ].sort(),
    )
    for (const { id, op } of withPolicy) {
      expect(op['x-policy'], id).toBe('admin')
      expect(op.responses, id).toHaveProperty('403')
    }
  })

  it('documents the list query and the id path parameter', () => {
    const list = doc.paths['/todos']?.get
    expect(list?.parameters?.map((p) => `${p.in}:${p.name}`).sort()).toEqual(['query:done', 'query:limit'])
    expect(list?.responses).toHaveProperty('400')
    for (const method of ['patch', 'delete']) {
      const op = doc.paths['/todos/{id}']?.[method]
      expect(op?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id'])
      expect(op?.responses).toHaveProperty('404')
    }
    expect(doc.paths['/todos']?.post?.responses).toHaveProperty('201')
  })
})

describe('GET /openapi.json says exactly what the server does', () => {
  it('names every operation with a unique, stable camel-case operationId', () => {
    const ids = operations().map(({ id, op }) => [id, op.operationId])
    expect(Object.fromEntries(ids)).toEqual({
      'POST /auth/signup': 'signup',
      'POST /auth/login': 'login',
      'POST /auth/refresh': 'refresh',
      'POST /auth/logout': 'logout',
      'GET /auth/me': 'getMe',
      'POST /auth/change-password': 'changePassword',
      'POST /auth/reauth': 'reauthenticate',
      'POST /auth/forgot-password': 'forgotPassword',
      'POST /auth/reset-password': 'resetPassword',
      'POST /auth/verify-email': 'verifyEmail',
      'POST /auth/resend-verification': 'resendVerification',
      'GET /auth/sessions': 'listSessions',
      'DELETE /auth/sessions/{id}': 'deleteSession',
      'DELETE /auth/sessions': 'deleteOtherSessions',
      'POST /auth/change-email': 'changeEmail',
      'POST /auth/confirm-email': 'confirmEmail',
      'POST /auth/delete-account': 'deleteAccount',
      'GET /auth/two-factor': 'getTwoFactor',
      'POST /auth/two-factor/setup': 'setUpTwoFactor',
      'POST /auth/two-factor/enable': 'enableTwoFactor',
      'POST /auth/two-factor/disable': 'disableTwoFactor',
      'POST /auth/two-factor/recovery-codes': 'renewRecoveryCodes',
      'POST /auth/two-factor/verify': 'verifyTwoFactor',
      'POST /todos': 'createTodo',
      'GET /todos': 'listTodos',
      'PATCH /todos/{id}': 'updateTodo',
      'DELETE /todos/{id}': 'deleteTodo',
      'GET /admin/stats': 'getAdminStats',
      'GET /admin/access': 'getAdminAccess',
      'GET /health': 'getHealth',
      'GET /reset-password': 'getResetPasswordPage',
      'GET /verify-email': 'getVerifyEmailPage',
      'GET /confirm-email': 'getConfirmEmailPage',
      'POST /auth/email-sign-in': 'emailSignIn',
      'POST /auth/email-sign-in/verify': 'verifyEmailSignIn',
      'GET /sign-in': 'getSignInPage',
      'GET /.well-known/jwks.json': 'getJwks',
      'POST /auth/passkeys/login/options': 'passkeyLoginOptions',
      'POST /auth/passkeys/login': 'passkeyLogin',
      'POST /auth/passkeys/register/options': 'passkeyRegisterOptions',
      'POST /auth/passkeys/register': 'passkeyRegister',
      'GET /auth/passkeys': 'listPasskeys',
      'PATCH /auth/passkeys/{id}': 'renamePasskey',
      'DELETE /auth/passkeys/{id}': 'removePasskey',
      'POST /auth/api-keys': 'createApiKey',
      'GET /auth/api-keys': 'listApiKeys',
      'DELETE /auth/api-keys/{id}': 'revokeApiKey',
      'GET /auth/oauth/providers': 'listOAuthProviders',
      'GET /auth/oauth/{provider}': 'startOAuthSignIn',
      'GET /auth/oauth/{provider}/callback': 'oauthCallback',
      'POST /auth/oauth/{provider}/link': 'linkOAuthProvider',
      'GET /auth/identities': 'listIdentities',
      'DELETE /auth/identities/{id}': 'unlinkIdentity',
      'GET /auth/admin/users': 'adminListUsers',
      'GET /auth/admin/users/{id}': 'adminGetUser',
      'POST /auth/admin/users/{id}/disable': 'adminDisableUser',
      'POST /auth/admin/users/{id}/enable': 'adminEnableUser',
      'DELETE /auth/admin/users/{id}/sessions': 'adminSignOutEverywhere',
      'DELETE /auth/admin/users/{id}/two-factor': 'adminClearTwoFactor',
      'POST /auth/admin/users/{id}/send-password-reset': 'adminSendPasswordReset',
      'POST /auth/admin/users/{id}/verify-email': 'adminVerifyEmail',
    })
  })

  it('says `security: []` on the public operations and names the refresh cookie on refresh', () => {
    const publicOps = operations().filter(({ op }) => op.security !== undefined && op.security.length === 0)
    expect(publicOps.map((o) => o.id).sort()).toEqual(
      [
        'POST /auth/signup',
        'POST /auth/login',
        'POST /auth/forgot-password',
        'POST /auth/reset-password',
        'POST /auth/verify-email',
        'POST /auth/confirm-email',
        'POST /auth/two-factor/verify',
        'GET /health',
        'GET /reset-password',
        'GET /verify-email',
        'GET /confirm-email',
        'POST /auth/email-sign-in',
        'POST /auth/email-sign-in/verify',
        'GET /sign-in',
        'GET /.well-known/jwks.json',
        'POST /auth/passkeys/login/options',
        'POST /auth/passkeys/login',
        'GET /auth/oauth/providers',
        'GET /auth/oauth/{provider}',
        'GET /auth/oauth/{provider}/callback',
      ].sort(),
    )
    expect(doc.paths['/auth/refresh']?.post?.security).toEqual([{ refreshCookie: [] }])
    // The answers that set a cookie say so.
    for (const [path, status] of [
      ['/auth/signup', '201'],
      ['/auth/login', '200'],
      ['/auth/login', '202'],
      ['/auth/refresh', '200'],
      ['/auth/logout', '204'],
      ['/auth/two-factor/verify', '200'],
      ['/auth/email-sign-in/verify', '200'],
    ] as const) {
      const answer = doc.paths[path]?.post?.responses[status] as { headers?: Record<string, unknown> } | undefined
      expect(answer?.headers, `${path} ${status}`).toHaveProperty('Set-Cookie')
    }
    for (const { id, op } of operations()) expect(op.security, id).toBeDefined()
  })

  it('lists 413 and 415 on every operation that may carry a body, and 503 where a password is hashed', () => {
    for (const { id, op } of operations()) {
      if (!/^(POST|PATCH|PUT|DELETE) /.test(id)) continue
      expect(op.responses, id).toHaveProperty('413')
      expect(op.responses, id).toHaveProperty('415')
    }
    const hashing = ['/auth/signup', '/auth/login', '/auth/change-password', '/auth/reset-password', '/auth/change-email']
    const rechecking = [
      '/auth/reauth',
      '/auth/delete-account',
      '/auth/two-factor/setup',
      '/auth/two-factor/disable',
      '/auth/two-factor/recovery-codes',
    ]
    for (const path of [...hashing, ...rechecking])
      expect(doc.paths[path]?.post?.responses, path).toHaveProperty('503.headers.Retry-After')
  })

  it('documents the redirects of social sign-in: the 302s and their Location', () => {
    for (const path of ['/auth/oauth/{provider}', '/auth/oauth/{provider}/callback'])
      expect(doc.paths[path]?.get?.responses, path).toHaveProperty('302.headers.Location')
    expect(doc.paths['/auth/oauth/{provider}']?.get?.responses).toHaveProperty('400')
    expect(doc.paths['/auth/identities/{id}']?.delete?.responses).toHaveProperty('409')
  })

  it('documents x-fresh with AUTH_FRESH_AGE (default 300) where a fresh session stands in for the password', () => {
    const fresh = operations()
      .filter(({ op }) => 'x-fresh' in op)
      .map(({ id, op }) => [id, (op as unknown as Record<string, unknown>)['x-fresh']])
    expect(Object.fromEntries(fresh)).toEqual({
      'POST /auth/change-email': 300,
      'POST /auth/delete-account': 300,
      'POST /auth/two-factor/setup': 300,
      'POST /auth/two-factor/disable': 300,
      'POST /auth/two-factor/recovery-codes': 300,
      'POST /auth/passkeys/register/options': 300,
      'POST /auth/passkeys/register': 300,
      'DELETE /auth/passkeys/{id}': 300,
      'POST /auth/api-keys': 300,
      'POST /auth/oauth/{provider}/link': 300,
      'DELETE /auth/identities/{id}': 300,
      'POST /auth/admin/users/{id}/disable': 300,
      'POST /auth/admin/users/{id}/enable': 300,
      'DELETE /auth/admin/users/{id}/sessions': 300,
      'DELETE /auth/admin/users/{id}/two-factor': 300,
      'POST /auth/admin/users/{id}/send-password-reset': 300,
      'POST /auth/admin/users/{id}/verify-email': 300,
    })
    expect(doc.paths['/auth/reauth']?.post?.responses).toHaveProperty('200')
  })

  it('documents every 429 with Retry-After and the IETF RateLimit fields', () => {
    const limited = operations().filter(({ op }) => '429' in op.responses)
    expect(limited.length).toBeGreaterThanOrEqual(6)
    for (const { id, op } of limited)
      expect(Object.keys((op.responses['429'] as { headers: object }).headers), id).toEqual([
        'Retry-After',
        'RateLimit-Policy',
        'RateLimit',
      ])
  })

  it('documents WWW-Authenticate on every 401, as the server sends it', () => {
    const refusing = operations().filter(({ op }) => '401' in op.responses)
    expect(refusing.length).toBeGreaterThanOrEqual(20)
    for (const { id, op } of refusing)
      expect(Object.keys((op.responses['401'] as { headers?: object }).headers ?? {}), id).toEqual(['WWW-Authenticate'])
  })

  it('states the strings `done` accepts, in any case', () => {
    const done = doc.paths['/todos']?.get?.parameters?.find((p) => p.name === 'done') as { schema?: { pattern?: string } }
    const pattern = new RegExp(done.schema?.pattern ?? '^$')
    for (const ok of ['true', 'FALSE', 'Yes', 'no', '1', '0', 'ON', 'oFf']) expect(pattern.test(ok), ok).toBe(true)
    for (const bad of ['maybe', 'truex', '', '2', 'y']) expect(pattern.test(bad), bad).toBe(false)
  })

  it('has a relative server, so /docs "Try it out" works on any host name, and a license', () => {
    expect(doc.servers?.map((s) => s.url)).toEqual(['/'])
    expect(doc.info.license?.name).toBe('MIT')
  })
})

describe('GET /docs', () => {
  it('serves an interactive reference page for /openapi.json', async () => {
    const page = await request(server.base, 'GET', '/docs')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.text).toContain('/openapi.json')
  })
})

describe('GET /reset-password', () => {
  it('is a no-store, no-referrer page whose CSP allows exactly its own inline script and style', async () => {
    const page = await request(server.base, 'GET', '/reset-password?token=abc')
    expect(page.status).toBe(200)
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    const csp = page.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'none'")

    const hashOf = (source: string) => `'sha256-${createHash('sha256').update(source).digest('base64')}'`
    const scripts = [...page.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '')
    const styles = [...page.text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? '')
    expect(scripts).toHaveLength(1)
    expect(styles).toHaveLength(1)
    expect(csp).toContain(`script-src ${hashOf(scripts[0]!)}`)
    expect(csp).toContain(`style-src ${hashOf(styles[0]!)}`)
    expect(csp).toContain("connect-src 'self'")
    // The script posts JSON to the reset endpoint.
    expect(scripts[0]).toContain("fetch('auth/reset-password'")
    expect(scripts[0]).toContain("'Content-Type': 'application/json'")
  })

  it('answers 400 for a token no reset token can be, as its document says', async () => {
    for (const token of ['a'.repeat(1025), 'a\u0000b']) {
      const page = await request(server.base, 'GET', `/reset-password?token=${encodeURIComponent(token)}`)
      expect(page.status).toBe(400)
      expect(page.headers.get('content-type')).toBe('application/problem+json')
    }
  })

  it('loads nothing from elsewhere and never echoes the token into the HTML', async () => {
    const token = '"><script>alert(1)</script>'
    const page = await request(server.base, 'GET', `/reset-password?token=${encodeURIComponent(token)}`)
    expect(page.status).toBe(200)
    expect(page.text).not.toContain('alert(1)')
    expect(page.text).not.toMatch(/\bsrc\s*=/i)
    // Links only back into the app (the header and "Back to Latchkey todos"), never a load.
    const hrefs = [...page.text.matchAll(/\bhref\s*=\s*"([^"]*)"/gi)].map((m) => m[1])
    expect(hrefs).toEqual(['/', '/'])
    expect(page.text).not.toMatch(/<link\b/i)
    expect(page.text).not.toMatch(/https?:\/\//)
    expect(page.text).not.toMatch(/@import|url\(/)
  })
})
