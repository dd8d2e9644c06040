/**
 * The fuzz suite's cases by construction: for every endpoint, one request that must succeed and
 * one that must be refused, so that "every endpoint reached a success and a refusal" never rests
 * on the random generator's luck. The random cases of each property come after and add to them.
 * Each success is built from the attacker's own credentials (a fresh account, see `surely` in
 * fuzz-suite.ts); each refusal differs from it in one thing the endpoint must refuse.
 */
import { randomUUID } from 'node:crypto'
import type { Case, RefName, Val } from './fuzz-model.js'

const r = (name: RefName): Val => ({ '§ref': name, i: 0 })

/** A plain request: the attacker's token in the `Authorization` header, its refresh cookie, a JSON body. */
export const plainCase = (
  method: string,
  path: readonly Val[],
  value?: Record<string, unknown>,
  over: Partial<Case> = {},
): Case => ({
  method,
  path,
  query: [],
  rawQuery: '',
  auth: { kind: 'header', token: r('a.token') },
  refresh: { name: 'secure', value: r('a.refresh') },
  flow: null,
  cookies: [],
  headers: [],
  site: 'none',
  sharedIp: false,
  proxyJunk: null,
  body: value === undefined ? { kind: 'none' } : { kind: 'json', value, contentType: 'application/json', mangle: 'none', cut: 0 },
  ...over,
})

const anonymous: Partial<Case> = { auth: { kind: 'none', token: '' }, refresh: { name: 'none', value: '' } }
const strong = () => `plum tractor lantern ${randomUUID().slice(0, 8)}`
const fresh = () => `sure-${randomUUID()}@example.com`

/** Per endpoint (`METHOD /path` as the suite counts outcomes): a success (absent where none can be had) and a refusal. */
export const SURE: Record<string, { success?: () => Case; refusal: () => Case }> = {
  'POST /auth/signup': {
    success: () => plainCase('POST', ['auth', 'signup'], { name: 'Eve', email: fresh(), password: strong() }, anonymous),
    refusal: () => plainCase('POST', ['auth', 'signup'], { name: 'Eve', email: 'not an address', password: strong() }, anonymous),
  },
  'POST /auth/login': {
    success: () => plainCase('POST', ['auth', 'login'], { email: r('a.email'), password: r('a.password') }, anonymous),
    refusal: () => plainCase('POST', ['auth', 'login'], { email: r('a.email'), password: strong() }, anonymous),
  },
  'POST /auth/refresh': {
    success: () => plainCase('POST', ['auth', 'refresh'], {}, { auth: anonymous.auth }),
    refusal: () =>
      plainCase(
        'POST',
        ['auth', 'refresh'],
        {},
        { auth: anonymous.auth, refresh: { name: 'secure', value: 'not-a-refresh-value' } },
      ),
  },
  'POST /auth/logout': {
    success: () => plainCase('POST', ['auth', 'logout'], {}),
    refusal: () => plainCase('POST', ['auth', 'logout'], {}, anonymous),
  },
  'GET /auth/me': {
    success: () => plainCase('GET', ['auth', 'me']),
    refusal: () => plainCase('GET', ['auth', 'me'], undefined, anonymous),
  },
  'POST /auth/change-password': {
    success: () => plainCase('POST', ['auth', 'change-password'], { currentPassword: r('a.password'), newPassword: strong() }),
    refusal: () => plainCase('POST', ['auth', 'change-password'], { currentPassword: r('a.password'), newPassword: 'password' }),
  },
  'POST /auth/reauth': {
    success: () => plainCase('POST', ['auth', 'reauth'], { password: r('a.password') }),
    refusal: () => plainCase('POST', ['auth', 'reauth'], { password: strong() }),
  },
  'POST /auth/forgot-password': {
    success: () => plainCase('POST', ['auth', 'forgot-password'], { email: r('a.email') }, anonymous),
    refusal: () => plainCase('POST', ['auth', 'forgot-password'], { email: 42 }, anonymous),
  },
  'POST /auth/reset-password': {
    success: () => plainCase('POST', ['auth', 'reset-password'], { token: r('a.reset'), newPassword: strong() }, anonymous),
    refusal: () =>
      plainCase('POST', ['auth', 'reset-password'], { token: 'not-a-reset-token', newPassword: strong() }, anonymous),
  },
  'GET /auth/sessions': {
    success: () => plainCase('GET', ['auth', 'sessions']),
    refusal: () => plainCase('GET', ['auth', 'sessions'], undefined, anonymous),
  },
  'DELETE /auth/sessions': {
    success: () => plainCase('DELETE', ['auth', 'sessions']),
    refusal: () => plainCase('DELETE', ['auth', 'sessions'], undefined, anonymous),
  },
  'DELETE /auth/sessions/{id}': {
    success: () => plainCase('DELETE', ['auth', 'sessions', r('a.sid')]),
    refusal: () => plainCase('DELETE', ['auth', 'sessions', r('v.sid')]),
  },
  'POST /auth/resend-verification': {
    success: () => plainCase('POST', ['auth', 'resend-verification']),
    refusal: () => plainCase('POST', ['auth', 'resend-verification'], undefined, anonymous),
  },
  'POST /auth/change-email': {
    success: () => plainCase('POST', ['auth', 'change-email'], { currentPassword: r('a.password'), newEmail: fresh() }),
    refusal: () => plainCase('POST', ['auth', 'change-email'], { currentPassword: r('a.password'), newEmail: r('v.email') }),
  },
  'POST /auth/delete-account': {
    success: () => plainCase('POST', ['auth', 'delete-account'], { currentPassword: r('a.password') }),
    refusal: () => plainCase('POST', ['auth', 'delete-account'], { currentPassword: strong() }),
  },
  'GET /auth/two-factor': {
    success: () => plainCase('GET', ['auth', 'two-factor']),
    refusal: () => plainCase('GET', ['auth', 'two-factor'], undefined, anonymous),
  },
  'POST /auth/two-factor/setup': {
    success: () => plainCase('POST', ['auth', 'two-factor', 'setup'], { currentPassword: r('a.password') }),
    refusal: () => plainCase('POST', ['auth', 'two-factor', 'setup'], { currentPassword: strong() }),
  },
  'POST /auth/passkeys/login/options': {
    success: () => plainCase('POST', ['auth', 'passkeys', 'login', 'options'], {}, anonymous),
    refusal: () => ({
      ...plainCase('POST', ['auth', 'passkeys', 'login', 'options'], {}, anonymous),
      body: { kind: 'json', value: {}, contentType: 'text/plain', mangle: 'none', cut: 0 },
    }),
  },
  'GET /auth/passkeys': {
    success: () => plainCase('GET', ['auth', 'passkeys']),
    refusal: () => plainCase('GET', ['auth', 'passkeys'], undefined, anonymous),
  },
  'POST /todos': {
    success: () => plainCase('POST', ['todos'], { title: 'by construction' }),
    refusal: () => plainCase('POST', ['todos'], { done: true }),
  },
  'GET /todos': {
    success: () => plainCase('GET', ['todos']),
    refusal: () => plainCase('GET', ['todos'], undefined, { query: [['limit', '0']] }),
  },
  'PATCH /todos/{id}': {
    success: () => plainCase('PATCH', ['todos', r('a.todo')], { done: true }),
    refusal: () => plainCase('PATCH', ['todos', r('v.todo')], { done: true }),
  },
  'DELETE /todos/{id}': {
    success: () => plainCase('DELETE', ['todos', r('a.todo')]),
    refusal: () => plainCase('DELETE', ['todos', r('v.todo')]),
  },
  'POST /auth/api-keys': {
    success: () => plainCase('POST', ['auth', 'api-keys'], { name: 'by construction', scopes: ['todos:read'] }),
    refusal: () => plainCase('POST', ['auth', 'api-keys'], { name: 'by construction', scopes: ['todos:admin'] }),
  },
  'GET /auth/api-keys': {
    success: () => plainCase('GET', ['auth', 'api-keys']),
    // A key never lists keys (403 session_required).
    refusal: () => plainCase('GET', ['auth', 'api-keys'], undefined, { auth: { kind: 'header', token: r('a.key') } }),
  },
  'DELETE /auth/api-keys/{id}': {
    success: () => plainCase('DELETE', ['auth', 'api-keys', r('a.keyId')]),
    refusal: () => plainCase('DELETE', ['auth', 'api-keys', r('v.keyId')]),
  },
  'GET /auth/identities': {
    success: () => plainCase('GET', ['auth', 'identities']),
    refusal: () => plainCase('GET', ['auth', 'identities'], undefined, anonymous),
  },
  'POST /auth/oauth/{provider}/link': {
    success: () => plainCase('POST', ['auth', 'oauth', 'github', 'link'], { returnTo: '/' }),
    refusal: () => plainCase('POST', ['auth', 'oauth', 'nowhere', 'link'], { returnTo: '/' }),
  },
  // A browser navigation: its success is a 302 to the provider, its refusal a problem document.
  'GET /auth/oauth/{provider}': {
    success: () => plainCase('GET', ['auth', 'oauth', 'github'], undefined, { ...anonymous, query: [['returnTo', '/todos']] }),
    refusal: () =>
      plainCase('GET', ['auth', 'oauth', 'github'], undefined, { ...anonymous, query: [['returnTo', '//evil.example']] }),
  },
  // Always a 302 for a configured provider (here: the attacker's own flow, a state it made up); 404 for another id.
  'GET /auth/oauth/{provider}/callback': {
    success: () =>
      plainCase('GET', ['auth', 'oauth', 'github', 'callback'], undefined, {
        ...anonymous,
        flow: r('a.flow'),
        query: [
          ['code', 'made-up-code'],
          ['state', 'made-up-state'],
        ],
      }),
    refusal: () =>
      plainCase('GET', ['auth', 'oauth', 'nowhere', 'callback'], undefined, { ...anonymous, query: [['state', 'x']] }),
  },
  // No case the fuzzer can build passes these (it holds no email token, code, challenge or passkey).
  'POST /auth/verify-email': { refusal: () => plainCase('POST', ['auth', 'verify-email'], { token: 'not-a-token' }) },
  'POST /auth/confirm-email': { refusal: () => plainCase('POST', ['auth', 'confirm-email'], { token: 'not-a-token' }) },
  'POST /auth/two-factor/enable': { refusal: () => plainCase('POST', ['auth', 'two-factor', 'enable'], { code: '000000' }) },
  'POST /auth/two-factor/disable': {
    refusal: () => plainCase('POST', ['auth', 'two-factor', 'disable'], { currentPassword: r('a.password'), code: '000000' }),
  },
  'POST /auth/two-factor/recovery-codes': {
    refusal: () =>
      plainCase('POST', ['auth', 'two-factor', 'recovery-codes'], { currentPassword: r('a.password'), code: '000000' }),
  },
  'POST /auth/two-factor/verify': {
    refusal: () =>
      plainCase('POST', ['auth', 'two-factor', 'verify'], { challenge: 'not-a-challenge', code: '000000' }, anonymous),
  },
  'POST /auth/passkeys/login': {
    refusal: () => plainCase('POST', ['auth', 'passkeys', 'login'], { challengeId: 'none', response: {} }, anonymous),
  },
  'POST /auth/passkeys/register': {
    refusal: () => plainCase('POST', ['auth', 'passkeys', 'register'], { response: {}, emailCode: '000000' }),
  },
  'PATCH /auth/passkeys/{id}': { refusal: () => plainCase('PATCH', ['auth', 'passkeys', 'none'], { name: 'x' }) },
  'DELETE /auth/passkeys/{id}': { refusal: () => plainCase('DELETE', ['auth', 'passkeys', 'none']) },
  // The attacker has no identity at a provider, and is no operator.
  'DELETE /auth/identities/{id}': { refusal: () => plainCase('DELETE', ['auth', 'identities', randomUUID()]) },
  'GET /auth/admin/users': { refusal: () => plainCase('GET', ['auth', 'admin', 'users']) },
  'GET /auth/admin/users/{id}': { refusal: () => plainCase('GET', ['auth', 'admin', 'users', r('v.id')]) },
  'POST /auth/admin/users/{id}/disable': {
    refusal: () => plainCase('POST', ['auth', 'admin', 'users', r('v.id'), 'disable'], { reason: 'by construction' }),
  },
  'POST /auth/admin/users/{id}/enable': { refusal: () => plainCase('POST', ['auth', 'admin', 'users', r('v.id'), 'enable']) },
  'POST /auth/admin/users/{id}/send-password-reset': {
    refusal: () => plainCase('POST', ['auth', 'admin', 'users', r('v.id'), 'send-password-reset']),
  },
  'POST /auth/admin/users/{id}/verify-email': {
    refusal: () => plainCase('POST', ['auth', 'admin', 'users', r('v.id'), 'verify-email']),
  },
  'DELETE /auth/admin/users/{id}/sessions': {
    refusal: () => plainCase('DELETE', ['auth', 'admin', 'users', r('v.id'), 'sessions']),
  },
  'DELETE /auth/admin/users/{id}/two-factor': {
    refusal: () => plainCase('DELETE', ['auth', 'admin', 'users', r('v.id'), 'two-factor']),
  },
}
