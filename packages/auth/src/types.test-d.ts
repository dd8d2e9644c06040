/**
 * The types we promise, checked by the compiler (`pnpm typecheck`): policy names are checked,
 * and a guarded handler's user is typed and non-null, its `raw` the store's record.
 */
import { OpenAPIHono, z } from '@hono/zod-openapi'
import { Hono } from 'hono'
import { expectTypeOf } from 'vitest'
import {
  type AuthEvent,
  type AuthMail,
  type AuthMethod,
  type AuthUser,
  createAuth,
  type Store,
  type UserRecord,
} from './index.js'
import type { sqliteStore } from './sqlite/index.js'

declare const store: ReturnType<typeof sqliteStore>
const auth = createAuth({
  secret: 'x'.repeat(32),
  store,
  sendMail: () => {},
  policies: {
    admin: (user) => user.raw.role === 'admin',
    owner: async (user, c) => c.req.param('id') === user.id,
  },
})

auth.guard(true)
auth.guard('admin')
auth.guard('owner')
// @ts-expect-error -- a misspelt policy does not compile
auth.guard('admn')
// @ts-expect-error -- nor does `false`
auth.guard(false)

new Hono().get('/x', auth.guard('admin'), (c) => {
  expectTypeOf(c.get('user')).toEqualTypeOf<AuthUser<UserRecord>>()
  expectTypeOf(c.get('user').raw.role).toEqualTypeOf<string | null>()
  expectTypeOf(c.var.sessionId).toEqualTypeOf<string>()
  return c.text(c.get('user').email)
})

const app = new OpenAPIHono()
app.openapi(auth.route({ method: 'get', path: '/y', auth: 'owner', responses: { 204: { description: 'none' } } }), (c) => {
  expectTypeOf(c.var.user).toEqualTypeOf<AuthUser<UserRecord>>()
  expectTypeOf(c.var.user.id).toBeString()
  return c.body(null, 204)
})
// @ts-expect-error -- route() checks policy names too
auth.route({ method: 'get', path: '/z', auth: 'nobody', responses: {} })

// The operators' policy is one of the registered ones.
createAuth({ secret: 'x'.repeat(32), store, sendMail: () => {}, policies: { admin: () => true }, admin: { policy: 'admin' } })
// @ts-expect-error -- a misspelt operators' policy does not compile
createAuth({ secret: 'x'.repeat(32), store, sendMail: () => {}, policies: { admin: () => true }, admin: { policy: 'admn' } })

const bare = createAuth({ secret: 'x'.repeat(32), store, sendMail: () => {} })
bare.guard(true)
// @ts-expect-error -- without policies only `true` is allowed
bare.guard('admin')

// @ts-expect-error -- the secret is required
createAuth({ store, sendMail: () => {} })
// @ts-expect-error -- so is sendMail
createAuth({ secret: 'x'.repeat(32), store })

// A store whose users carry more than the library's fields: the type flows, with no cast, to
// policies, to guarded handlers (`c.get('user').raw`) and to `auth.route` handlers.
interface Member extends UserRecord {
  plan: 'free' | 'pro'
  locale: string
}
declare const members: Store<Member>
const rich = createAuth({
  secret: 'x'.repeat(32),
  store: members,
  sendMail: () => {},
  policies: { pro: (user) => user.raw.plan === 'pro' },
})
new Hono().get('/plan', rich.guard(true), (c) => {
  expectTypeOf(c.get('user')).toEqualTypeOf<AuthUser<Member>>()
  expectTypeOf(c.get('user').raw.plan).toEqualTypeOf<'free' | 'pro'>()
  expectTypeOf(c.var.user.raw.locale).toBeString()
  return c.text(c.var.user.raw.locale)
})
app.openapi(rich.route({ method: 'get', path: '/pro', auth: 'pro', responses: { 204: { description: 'none' } } }), (c) => {
  expectTypeOf(c.var.user.raw).toEqualTypeOf<Member>()
  return c.body(null, 204)
})
createAuth({
  secret: 'x'.repeat(32),
  store: members,
  sendMail: () => {},
  // @ts-expect-error -- a policy reads only fields the store's users have
  policies: { vip: (user) => user.raw.tier === 'vip' },
})
// @ts-expect-error -- a plain store's users have no `plan`
createAuth({ secret: 'x'.repeat(32), store, sendMail: () => {}, policies: { pro: (user) => user.raw.plan === 'pro' } })

// The mail hook is a discriminated union: a switch on `kind` narrows, and a switch that misses a
// kind fails an exhaustiveness check.
const exhaustive = (mail: AuthMail): string => {
  switch (mail.kind) {
    case 'reset-password':
    case 'verify-email':
    case 'change-email':
      return mail.token
    case 'sign-in':
      return `${mail.token} ${mail.code}`
    case 'email-changed':
      return mail.newEmail
    case 'new-sign-in':
      return `${mail.at} ${mail.ip ?? ''} ${mail.userAgent ?? ''}`
    case 'password-changed':
    case 'two-factor-enabled':
    case 'two-factor-disabled':
    case 'account-deleted':
    case 'passkey-added':
    case 'passkey-removed':
    case 'account-disabled':
    case 'account-enabled':
    case 'signed-out-everywhere':
    case 'email-marked-verified':
      // @ts-expect-error -- a notice carries no token
      return mail.token
    case 'recovery-code-used':
      return mail.usedFor
    case 'identity-linked':
    case 'identity-unlinked':
      return mail.provider
    case 'add-credential':
      return mail.code
    case 'api-key-created':
      // @ts-expect-error -- the notice never carries the key
      return mail.key ?? mail.name
    default: {
      const never: never = mail
      return never
    }
  }
}
createAuth({ secret: 'x'.repeat(32), store, sendMail: (mail) => void exhaustive(mail) })
// An app that handles resets only still compiles when it switches on `kind`.
createAuth({
  secret: 'x'.repeat(32),
  store,
  sendMail: (mail) => {
    if (mail.kind === 'reset-password') expectTypeOf(mail.token).toEqualTypeOf<string>()
  },
})
const missing = (mail: AuthMail): string => {
  switch (mail.kind) {
    case 'reset-password':
      return mail.token
    default: {
      // @ts-expect-error -- the other kinds are not handled
      const never: never = mail
      return never
    }
  }
}
void missing
// Events: a typed union; a session event always names its session.
createAuth({
  secret: 'x'.repeat(32),
  store,
  sendMail: () => {},
  onEvent: (event: AuthEvent) => {
    if (event.type === 'login.succeeded') expectTypeOf(event.sessionId).toEqualTypeOf<string>()
    if (event.type === 'login.failed') expectTypeOf(event.userId).toEqualTypeOf<string | undefined>()
  },
})

// Signup fields an app declares are typed on `raw`, in policies and guarded handlers alike.
const withPlan = createAuth({
  secret: 'x'.repeat(32),
  store,
  sendMail: () => {},
  signupFields: z.object({ plan: z.enum(['free', 'pro']).default('free'), locale: z.string().optional() }),
  policies: {
    pro: (user) => user.raw.plan === 'pro',
    // @ts-expect-error -- a field nobody declared does not exist
    nope: (user) => user.raw.tier === 'gold',
  },
})
new Hono().get('/plan', withPlan.guard(true), (c) => {
  expectTypeOf(c.get('user').raw.plan).toEqualTypeOf<'free' | 'pro'>()
  expectTypeOf(c.get('user').raw.locale).toEqualTypeOf<string | undefined>()
  return c.json({})
})

// Step-up: `fresh` composes with `auth: true` and with policy names, on guards and on routes, and
// the handler reads the session's last proof. A value that is not a number does not compile.
auth.guard(true, { fresh: 300 })
auth.guard('admin', { fresh: 60 })
new Hono().post('/card', auth.guard('owner', { fresh: 300 }), (c) => {
  expectTypeOf(c.var.authenticatedAt).toEqualTypeOf<Date>()
  expectTypeOf(c.var.amr).toEqualTypeOf<AuthMethod[]>()
  return c.body(null, 204)
})
app.openapi(
  auth.route({ method: 'delete', path: '/p/{id}', auth: 'admin', fresh: 300, responses: { 204: { description: 'gone' } } }),
  (c) => {
    expectTypeOf(c.var.user).toEqualTypeOf<AuthUser<UserRecord>>()
    return c.body(null, 204)
  },
)
app.openapi(auth.route({ method: 'post', path: '/q', auth: true, fresh: 30, responses: { 204: { description: 'ok' } } }), (c) =>
  c.body(null, 204),
)
// @ts-expect-error -- fresh is seconds, not a duration string
auth.guard(true, { fresh: '5m' })
// @ts-expect-error -- nor a flag
auth.guard('admin', { fresh: true })
// @ts-expect-error -- fresh does not make a misspelt policy compile
auth.guard('admn', { fresh: 300 })
// @ts-expect-error -- on a route too
auth.route({ method: 'get', path: '/r', auth: true, fresh: '300', responses: {} })
// @ts-expect-error -- and the policy name is still checked
auth.route({ method: 'get', path: '/s', auth: 'nobody', fresh: 300, responses: {} })
// @ts-expect-error -- an option the guard does not know
auth.guard(true, { freshness: 300 })
createAuth({ secret: 'x'.repeat(32), store, sendMail: () => {}, freshAge: 600 })
// @ts-expect-error -- freshAge is seconds too
createAuth({ secret: 'x'.repeat(32), store, sendMail: () => {}, freshAge: '10m' })
createAuth({
  secret: 'x'.repeat(32),
  store,
  sendMail: () => {},
  onEvent: (event) => {
    if (event.type === 'reauthenticated') expectTypeOf(event.amr).toEqualTypeOf<AuthMethod[]>()
  },
})

// signingKeys: private JWKs, each with its kid.
const ed25519 = { kty: 'OKP', crv: 'Ed25519', kid: '2026-11', x: 'x', d: 'd' }
new Hono().route('/', createAuth({ secret: 'x'.repeat(32), store, sendMail: () => {}, signingKeys: [ed25519] }).wellKnown)
// @ts-expect-error -- a PEM string is not a JWK
createAuth({ secret: 'x'.repeat(32), store, sendMail: () => {}, signingKeys: ['-----BEGIN PRIVATE KEY-----'] })
// @ts-expect-error -- a public key (no `d`) cannot sign
createAuth({ secret: 'x'.repeat(32), store, sendMail: () => {}, signingKeys: [{ kty: 'OKP', crv: 'Ed25519', kid: 'k', x: 'x' }] })
// @ts-expect-error -- nor a key without its kid
createAuth({ secret: 'x'.repeat(32), store, sendMail: () => {}, signingKeys: [{ kty: 'OKP', crv: 'Ed25519', x: 'x', d: 'd' }] })

// API keys: scope names are typed like policy names, and a route with a scope says a key may
// have authenticated the request (the session's facts may be null there, never elsewhere).
const keyed = createAuth({
  secret: 'x'.repeat(32),
  store,
  sendMail: () => {},
  policies: { admin: (user) => user.raw.role === 'admin' },
  apiKeys: { scopes: { 'todos:read': 'Read your todos', 'todos:write': 'Change your todos' } },
})
keyed.guard(true, { scope: 'todos:read' })
keyed.guard('admin', { scope: 'todos:write' })
// @ts-expect-error -- a mistyped scope does not compile
keyed.guard(true, { scope: 'todos:reed' })
// @ts-expect-error -- nor does a scope of an app without API keys
auth.guard(true, { scope: 'todos:read' })
// @ts-expect-error -- nor a mistyped scope on a route
keyed.route({ method: 'get', path: '/todos', auth: true, scope: 'todo:read', responses: {} })

new Hono().get('/todos', keyed.guard(true, { scope: 'todos:read' }), (c) => {
  const credential = c.get('credential')
  expectTypeOf(c.get('sessionId')).toEqualTypeOf<string | null>()
  if (credential.kind === 'api-key') expectTypeOf(credential.scopes).toEqualTypeOf<string[]>()
  else expectTypeOf(credential.sessionId).toEqualTypeOf<string>()
  return c.json({})
})
new Hono().get('/sessions-only', keyed.guard(true), (c) => {
  expectTypeOf(c.get('credential').kind).toEqualTypeOf<'session'>()
  expectTypeOf(c.get('sessionId')).toEqualTypeOf<string>()
  return c.json({})
})
const listRoute = keyed.route({
  method: 'get',
  path: '/todos',
  auth: true,
  scope: 'todos:read',
  responses: { 200: { description: 'The list', content: { 'application/json': { schema: z.object({}) } } } },
})
new OpenAPIHono().openapi(listRoute, (c) => {
  expectTypeOf(c.var.credential.kind).toEqualTypeOf<'session' | 'api-key'>()
  return c.json({}, 200)
})

// auth.openapi mounts a route as app.openapi(auth.route(…)) does, with the same checks, and a
// fastQuery must yield what the route's query schema yields.
const Query = z.object({ limit: z.string().transform(Number).optional().default(20) })
keyed.openapi(
  new OpenAPIHono(),
  {
    method: 'get',
    path: '/todos',
    auth: true,
    scope: 'todos:read',
    request: { query: Query },
    fastQuery: (url) => (url.endsWith('/todos') ? { limit: 20 } : undefined),
    responses: { 200: { description: 'The list', content: { 'application/json': { schema: z.object({}) } } } },
  },
  (c) => {
    expectTypeOf(c.req.valid('query')).toEqualTypeOf<{ limit: number }>()
    expectTypeOf(c.var.credential.kind).toEqualTypeOf<'session' | 'api-key'>()
    expectTypeOf(c.var.user).toEqualTypeOf<AuthUser<UserRecord>>()
    return c.json({}, 200)
  },
)
keyed.openapi(
  new OpenAPIHono(),
  {
    method: 'get',
    path: '/a',
    auth: true,
    request: { query: Query },
    fastQuery: () => ({ limit: '20' }),
    responses: { 204: { description: 'none' } },
  },
  // @ts-expect-error -- a fastQuery that yields something else than the schema does not compile (named on the handler)
  (c) => c.body(null, 204),
)
keyed.openapi(
  new OpenAPIHono(),
  { method: 'get', path: '/b', auth: true, fastQuery: () => ({}), responses: { 204: { description: 'none' } } },
  // @ts-expect-error -- nor one on a route without a query schema
  (c) => c.body(null, 204),
)
const none = { 204: { description: 'none' } }
keyed.openapi(new OpenAPIHono(), { method: 'get', path: '/c', auth: 'admin', responses: none }, (c) => c.body(null, 204))
// @ts-expect-error -- nor a misspelt policy
keyed.openapi(new OpenAPIHono(), { method: 'get', path: '/c', auth: 'admn', responses: none }, (c) => c.body(null, 204))
// @ts-expect-error -- nor a mistyped scope
keyed.openapi(new OpenAPIHono(), { method: 'get', path: '/d', auth: true, scope: 'todo:read', responses: none }, (c) =>
  c.body(null, 204),
)
// @ts-expect-error -- auth.route serves no fastQuery (it does not mount the route): use auth.openapi
keyed.route({ method: 'get', path: '/e', auth: true, request: { query: Query }, fastQuery: () => ({ limit: 20 }), responses: {} })

// A limit counts the library's `ip` and `user` keys, by name: a misspelt key does not compile.
keyed.route({ method: 'get', path: '/f', auth: true, limit: { name: 'reads', by: ['ip', 'user'] }, responses: none })
keyed.openapi(
  new OpenAPIHono(),
  { method: 'get', path: '/f', auth: true, limit: { name: 'reads', by: ['user'] }, responses: none },
  (c) => c.body(null, 204),
)
// @ts-expect-error -- a misspelt limit key
keyed.route({ method: 'get', path: '/g', auth: true, limit: { name: 'reads', by: ['ipp'] }, responses: none })
keyed.openapi(
  new OpenAPIHono(),
  // @ts-expect-error -- nor a key an application route cannot count (the library's `email` reads a body it does not parse)
  { method: 'get', path: '/h', auth: true, limit: { name: 'reads', by: ['email'] }, responses: none },
  (c) => c.body(null, 204),
)

// `auth.prune()` answers the core's counts and each feature's sweep's, by the name its record gives.
type Counted = Awaited<ReturnType<typeof auth.prune>>
expectTypeOf<{ [K in keyof Counted]: Counted[K] }>().toEqualTypeOf<{
  sessions: number
  resetTokens: number
  emailTokens: number
  addCredentialCodes: number
  devices: number
  challenges: number
  emailSignIns: number
  passkeyChallenges: number
  apiKeys: number
  oauthFlows: number
  resealed: number
}>()
