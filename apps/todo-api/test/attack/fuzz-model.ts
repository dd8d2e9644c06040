/**
 * The request model of the fuzz suite: fast-check arbitraries that describe a request with
 * symbolic references (`{ '§ref': 'a.token' }`) to the live fixture, and the resolution of such
 * a description into concrete bytes against the fixture as it is when the case runs (the
 * attacker's refresh value rotates, sessions get replaced). Counterexamples stay readable.
 */
import { randomUUID } from 'node:crypto'
import { keyIdOf } from '@latchkey/auth/testing'
import fc from 'fast-check'
import { encodeAll, forgeJwt, freshIp } from './helpers.js'

/** What a reference can point at. `a` is the attacker (whose credentials the fuzzer holds), `v` the victim. */
export const REF_NAMES = [
  'a.email',
  'a.EMAIL',
  'a.password',
  'a.token',
  'a.refresh',
  'a.reset',
  'a.todo',
  'a.id',
  'a.sid',
  'a.key',
  'a.keyRead',
  'a.keyRevoked',
  'a.keyBadSum',
  'a.keyId',
  'a.flow',
  'v.email',
  'v.EMAIL',
  'v.id',
  'v.todo',
  'v.title',
  'v.sid',
  'v.keyId',
  'key.unknown',
  'jwt.none',
  'jwt.wrongSecret',
  'jwt.hs512',
  'jwt.expired',
  'jwt.future',
  'jwt.wrongIss',
  'jwt.wrongAud',
  'jwt.noSid',
  'jwt.victimSub',
  'jwt.victimSid',
  'jwt.tampered',
  'jwt.truncated',
] as const
export type RefName = (typeof REF_NAMES)[number]
export interface Ref {
  '§ref': RefName
  i: number
}
export type Val = string | Ref

export interface Fixture {
  secret: string
  publicOrigin: string
  a: {
    email: string
    password: string
    token: string
    refresh: string
    reset: string
    todoIds: string[]
    userId: string
    sid: string
    /** When the attacker's session last proved its holder (signup or `POST /auth/reauth`), read after the answer: epoch ms. */
    provedAt: number
    /**
     * The attacker's API keys (docs/guide/api-keys.md), made on first use (`''` until then): one
     * with both scopes, one with `todos:read` only, one revoked; `keyIds` are every key id of the
     * attacker the fuzzer knows (the two live ones first).
     */
    key: string
    keyRead: string
    keyRevoked: string
    keyIds: string[]
    /** The value of the attacker's live social sign-in flow cookie (a start of its own), made on first use. */
    flow: string
  }
  v: { email: string; userId: string; todoIds: string[]; titles: string[]; sid: string; keyId: string }
  /** A key of the right shape and checksum that the server never issued. */
  unknownKey: string
}

export const isRef = (x: unknown): x is Ref => typeof x === 'object' && x !== null && '§ref' in x

const pick = (list: string[], i: number, fallback: string) => (list.length ? (list[i % list.length] ?? fallback) : fallback)

const claimsOf = (f: Fixture, over: Record<string, unknown> = {}) => {
  const now = Math.floor(Date.now() / 1000)
  return { sid: f.a.sid, sub: f.a.userId, jti: randomUUID(), iat: now, exp: now + 600, iss: 'latchkey', aud: 'latchkey', ...over }
}
/** The header the server signs with: HS256 and the `kid` of the deployment secret, so a forgery differs in one thing only. */
const hs256 = (f: Fixture) => ({ alg: 'HS256', typ: 'JWT', kid: keyIdOf(f.secret) })

export const resolveRef = (f: Fixture, { '§ref': name, i }: Ref): string => {
  switch (name) {
    case 'a.email':
      return f.a.email
    case 'a.EMAIL':
      return ` ${f.a.email.toUpperCase()}\t`
    case 'a.password':
      return f.a.password
    case 'a.token':
      return f.a.token
    case 'a.refresh':
      return f.a.refresh
    case 'a.reset':
      return f.a.reset
    case 'a.todo':
      return pick(f.a.todoIds, i, randomUUID())
    case 'a.id':
      return f.a.userId
    case 'a.sid':
      return f.a.sid
    case 'a.key':
      return f.a.key
    case 'a.keyRead':
      return f.a.keyRead
    case 'a.keyRevoked':
      return f.a.keyRevoked
    case 'a.keyBadSum':
      return badChecksum(f.a.key, i)
    case 'a.keyId':
      return pick(f.a.keyIds, i, randomUUID())
    case 'a.flow':
      return f.a.flow
    case 'v.keyId':
      return f.v.keyId
    case 'key.unknown':
      return f.unknownKey
    case 'v.sid':
      return f.v.sid
    case 'v.email':
      return f.v.email
    case 'v.EMAIL':
      return f.v.email.toUpperCase()
    case 'v.id':
      return f.v.userId
    case 'v.todo':
      return pick(f.v.todoIds, i, randomUUID())
    case 'v.title':
      return pick(f.v.titles, i, 'none')
    case 'jwt.none':
      return forgeJwt({ alg: 'none', typ: 'JWT' }, claimsOf(f), null)
    case 'jwt.wrongSecret':
      return forgeJwt(hs256(f), claimsOf(f), `${f.secret}x`)
    case 'jwt.hs512':
      return forgeJwt({ alg: 'HS512', typ: 'JWT' }, claimsOf(f), f.secret, 'sha512')
    case 'jwt.expired':
      return forgeJwt(hs256(f), claimsOf(f, { iat: 1_600_000_000, exp: 1_600_000_900 }), f.secret)
    case 'jwt.future':
      return forgeJwt(hs256(f), claimsOf(f, { nbf: 4_000_000_000 }), f.secret)
    case 'jwt.wrongIss':
      return forgeJwt(hs256(f), claimsOf(f, { iss: 'someone-else' }), f.secret)
    case 'jwt.wrongAud':
      return forgeJwt(hs256(f), claimsOf(f, { aud: 'someone-else' }), f.secret)
    case 'jwt.noSid':
      return forgeJwt(hs256(f), claimsOf(f, { sid: undefined }), f.secret)
    // Correctly signed, but the subject and the session belong to different users: never valid.
    case 'jwt.victimSub':
      return forgeJwt(hs256(f), claimsOf(f, { sub: f.v.userId }), f.secret)
    case 'jwt.victimSid':
      return forgeJwt(hs256(f), claimsOf(f, { sid: f.v.sid }), f.secret)
    case 'jwt.tampered': {
      const [h, , s] = f.a.token.split('.')
      return `${h}.${Buffer.from(JSON.stringify(claimsOf(f, { sub: f.v.userId, sid: f.v.sid }))).toString('base64url')}.${s}`
    }
    case 'jwt.truncated':
      return f.a.token.slice(0, Math.max(1, f.a.token.length - 1 - (i % 5)))
  }
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
/** The attacker's key with one character of its 6-character checksum changed: the shape holds, the checksum does not. */
const badChecksum = (key: string, i: number): string => {
  if (key === '') return 'lk_'
  const at = key.length - 1 - (i % 6)
  const ch = key[at] ?? '0'
  return `${key.slice(0, at)}${BASE62[(BASE62.indexOf(ch) + 1 + (i % 61)) % 62]}${key.slice(at + 1)}`
}

/** Replaces every reference in a JSON-like value. */
export const resolveDeep = (f: Fixture, value: unknown): unknown => {
  if (isRef(value)) return resolveRef(f, value)
  if (Array.isArray(value)) return value.map((v) => resolveDeep(f, v))
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveDeep(f, v)]))
  return value
}

export const ref = (...names: RefName[]): fc.Arbitrary<Ref> =>
  fc.tuple(fc.constantFrom(...names), fc.nat(64)).map(([name, i]) => ({ '§ref': name, i }))

// ——— values ———

const NASTY = [
  '',
  ' ',
  '\u0000',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  '__proto__',
  'constructor',
  '%',
  '%00',
  '%ZZ',
  '../../../../etc/passwd',
  "' OR '1'='1' --",
  '"; DROP TABLE todos; --',
  '<script>alert(1)</script>',
  '$' + '{7*7}',
  '{{7*7}}',
  '\uFEFF',
  '\u202E',
  '\uD800',
  '\uDFFF',
  'ﬀ',
  'İ',
  'ß',
  'Ⓐ@example.com',
  '𝓪𝓭𝓪@example.com',
  'a@b',
  '@example.com',
  'a@example.com\u0000',
  'a\r\nb',
  'true',
  'false',
  '0',
  '1',
  'yes',
  'off',
  '101',
  '-1',
  '1.5',
  '0x10',
  '1e1',
  ' 5',
]

/** Strings of every kind: short, any code point (lone surrogates too), known troublemakers, long. */
export const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-composite', minLength: 90, maxLength: 400 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', '🙂', 'é', '\u0000', ' ', 'A@'), fc.integer({ min: 95, max: 3000 }))
      .map(([c, n]) => c.repeat(n)),
  },
)

const weird: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 2 }),
)

/** Mostly `base`, sometimes absent or of the wrong type. */
export const field = (base: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 10, arbitrary: base }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: weird })

const WORDS = ['plum', 'tractor', 'lantern', 'violet', 'harbour', 'kites', 'copper', 'meadow', 'owls', 'ninety']
export const strongPasswordArb = fc
  .tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 3, maxLength: 5 }), fc.nat(99_999))
  .map(([words, n]) => `${words.join(' ')} ${n}`)

export const passwordArb: fc.Arbitrary<unknown> = field(
  fc.oneof(
    { weight: 3, arbitrary: ref('a.password') },
    { weight: 3, arbitrary: strongPasswordArb },
    { weight: 2, arbitrary: fc.constantFrom('password', 'password123', '12345678', 'qwertyuiop', 'iloveyou1', 'Password1') },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(7), 'x'.repeat(8), 'y'.repeat(256), 'y'.repeat(257), '🙂'.repeat(256)) },
    { weight: 1, arbitrary: ref('a.email') },
    { weight: 3, arbitrary: text },
  ),
)

export const emailArb: fc.Arbitrary<unknown> = field(
  fc.oneof(
    { weight: 2, arbitrary: ref('a.email', 'a.EMAIL', 'v.email', 'v.EMAIL') },
    { weight: 3, arbitrary: fc.uuid().map((u) => `f-${u}@example.com`) },
    { weight: 1, arbitrary: fc.emailAddress() },
    { weight: 2, arbitrary: text },
    { weight: 1, arbitrary: fc.constantFrom(`${'a'.repeat(245)}@example.com`, `${'a'.repeat(64)}@${'b'.repeat(250)}.com`) },
  ),
)

export const titleArb: fc.Arbitrary<unknown> = field(
  fc.oneof(
    { weight: 3, arbitrary: text },
    { weight: 1, arbitrary: fc.constantFrom('🙂'.repeat(500), '🙂'.repeat(501), 'x'.repeat(500), 'x'.repeat(501)) },
  ),
)

/** Keys a mass-assignment attack would try, with any value. */
export const extraKeys = fc.dictionary(
  fc.oneof(
    fc.constantFrom('role', 'id', 'userId', 'createdAt', 'passwordHash', 'password_hash', 'isAdmin', '__proto__', 'constructor'),
    fc.string({ maxLength: 8 }),
  ),
  fc.oneof(ref('v.id', 'v.todo', 'a.id'), fc.constant('admin'), weird),
  { maxKeys: 3 },
)

// ——— bodies ———

export type Mangle = 'none' | 'truncate' | 'bom' | 'trailing' | 'dupKeys' | 'wrap' | 'nest' | 'text'
export type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; contentType: string | null; mangle: Mangle; cut: number }
  | { kind: 'huge'; bytes: number; contentType: string | null }

export const contentTypeArb: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/problem+json',
      'application/vnd.api+json; v=1',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      'application/json;',
      'application/json, text/plain',
      '',
      null,
    ),
  },
)

export const bodyArb = (value: fc.Arbitrary<unknown>): fc.Arbitrary<Body> =>
  fc.oneof(
    {
      weight: 14,
      arbitrary: fc.record({
        kind: fc.constant('json' as const),
        value,
        contentType: contentTypeArb,
        mangle: fc.constant('none' as Mangle),
        cut: fc.constant(0),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('json' as const),
        value,
        contentType: fc.constant('application/json'),
        mangle: fc.constantFrom<Mangle>('truncate', 'bom', 'trailing', 'dupKeys', 'wrap', 'nest'),
        cut: fc.nat(200),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('json' as const),
        value: fc.oneof(fc.jsonValue({ maxDepth: 3 }), text),
        contentType: contentTypeArb,
        mangle: fc.constantFrom<Mangle>('none', 'text'),
        cut: fc.constant(0),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('huge' as const),
        bytes: fc.integer({ min: 65_000, max: 70_000 }),
        contentType: fc.constant('application/json'),
      }),
    },
  )

const mangle = (json: string, how: Mangle, cut: number): string => {
  switch (how) {
    case 'none':
      return json
    case 'text':
      return json.startsWith('"') ? (JSON.parse(json) as string) : json
    case 'truncate':
      return json.slice(0, Math.max(0, json.length - 1 - (cut % Math.max(1, json.length))))
    case 'bom':
      return `\uFEFF${json}`
    case 'trailing':
      return `${json} ,}`
    case 'dupKeys':
      return json.startsWith('{') && json.length > 2 ? `${json.slice(0, -1)},${json.slice(1)}` : `{"a":1,"a":${json}}`
    case 'wrap':
      return `[${json}]`
    case 'nest':
      return `${'['.repeat(2000 + cut)}${json}${']'.repeat(2000 + cut)}`
  }
}

// ——— the request ———

export type AuthKind = 'none' | 'header' | 'lower' | 'scheme' | 'headerDup' | 'cookie' | 'cookieDup' | 'query' | 'queryDup'
export type Site = 'none' | 'same' | 'foreign' | 'null' | 'crossSite' | 'sameSite'

export interface Case {
  method: string
  /** Path segments after the first: strings are percent-encoded, `{ raw }` is sent as written. */
  path: readonly (Val | { raw: string })[]
  query: [string, Val][]
  rawQuery: string
  auth: { kind: AuthKind; token: Val }
  refresh: { name: 'secure' | 'plain' | 'dup' | 'none'; value: Val }
  /** The social sign-in flow cookie (`__Secure-oauth_flow` in production), or none. */
  flow: Val | null
  cookies: [string, string][]
  headers: [string, string][]
  site: Site
  /** `true`: every case of this run shares one client address, so the per-IP limit shows up. */
  sharedIp: boolean
  proxyJunk: string | null
  body: Body
}

const latin1 = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }), fc.constant(0x09))
  .map((c) => String.fromCharCode(c))
const headerValue = fc.oneof(
  fc.string({ unit: latin1, maxLength: 80 }),
  fc.constantFrom('null', 'gzip', 'bytes=0-1', 'DELETE', '*', '../', 'evil.example', 'https', '127.0.0.1'),
)

/** API keys the attacker can present: its own live ones, a revoked one, one with a wrong checksum, one never issued. */
export const KEY_REFS = ['a.key', 'a.keyRead', 'a.keyRevoked', 'a.keyBadSum', 'key.unknown'] as const satisfies RefName[]

const anyCredential = fc.record({
  kind: fc.constantFrom<AuthKind>('none', 'header', 'lower', 'scheme', 'headerDup', 'cookie', 'cookieDup', 'query', 'queryDup'),
  token: fc.oneof(
    { weight: 4, arbitrary: ref('a.token') },
    { weight: 4, arbitrary: ref(...REF_NAMES.filter((n) => n.startsWith('jwt.'))) },
    // A key is read from the Authorization header only: in a cookie or the query it is an invalid access token.
    { weight: 3, arbitrary: ref(...KEY_REFS) },
    { weight: 2, arbitrary: text },
    { weight: 1, arbitrary: fc.constantFrom('', '.', '..', 'a.b.c', 'eyJhbGciOiJub25lIn0.e30.') },
  ),
})

/** The attacker's own token in a valid place more than half the time, so cases get past the guard too. */
export const credentialArb: fc.Arbitrary<Case['auth']> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constantFrom<AuthKind>('header', 'header', 'header', 'lower', 'cookie', 'query'),
      token: ref('a.token'),
    }),
  },
  // The attacker's own live keys where a key goes.
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constantFrom<AuthKind>('header', 'header', 'lower'), token: ref('a.key', 'a.keyRead') }),
  },
  { weight: 2, arbitrary: anyCredential },
)

export const caseArb = (
  method: fc.Arbitrary<string>,
  path: fc.Arbitrary<readonly (Val | { raw: string })[]>,
  body: fc.Arbitrary<Body>,
  query: fc.Arbitrary<[string, Val][]> = fc.array(
    fc.tuple(fc.oneof(fc.constantFrom('token', 'email', 'limit', 'done'), text), text),
    { maxLength: 3 },
  ),
  flow: fc.Arbitrary<Val | null> = fc.constant(null),
): fc.Arbitrary<Case> =>
  fc.record({
    method,
    path,
    query,
    rawQuery: fc.oneof(
      { weight: 8, arbitrary: fc.constant('') },
      { weight: 1, arbitrary: fc.constantFrom('%', '&&', '=', '%ZZ', '+', ';', '#x', '?a=1', '%00=%00') },
    ),
    auth: credentialArb,
    refresh: fc.record({
      name: fc.constantFrom<Case['refresh']['name']>('secure', 'secure', 'plain', 'dup', 'none'),
      value: fc.oneof({ weight: 3, arbitrary: ref('a.refresh') }, { weight: 2, arbitrary: text }),
    }),
    flow,
    cookies: fc.array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom('session', '__Host-x', 'refresh', 'TOKEN'),
          fc.stringMatching(/^[a-z_]{1,8}$/).filter((n) => n !== 'token' && n !== 'refresh_token'),
        ),
        headerValue.map((v) => v.replace(/[;,\s]/g, '')),
      ),
      { maxLength: 2 },
    ),
    headers: fc.array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(
            'accept',
            'x-forwarded-host',
            'x-forwarded-proto',
            'x-real-ip',
            'forwarded',
            'x-http-method-override',
            'referer',
            'user-agent',
            'if-none-match',
            'range',
            'content-encoding',
            'accept-encoding',
            'host',
          ),
          fc.stringMatching(/^x-[a-z0-9-]{1,10}$/),
        ),
        headerValue,
      ),
      { maxLength: 3 },
    ),
    site: fc.constantFrom<Site>('none', 'none', 'none', 'same', 'foreign', 'null', 'crossSite', 'sameSite'),
    sharedIp: fc.nat(9).map((n) => n === 0),
    proxyJunk: fc.option(fc.constantFrom('1.2.3.4', '127.0.0.1, 10.0.0.1', 'unknown', ''), { freq: 4 }),
    body,
  })

export interface Concrete {
  method: string
  url: string
  headers: Record<string, string>
  body: string | Buffer | undefined
  /** Everything the request carried, as text: a response may echo what it was sent. */
  sent: string
  /** What the URL and headers carried, as text (`sent` without the body). */
  head: string
}

const SHARED_IP = '100.127.255.254'

/** The flow cookie's name where cookies are Secure (the fuzzed server runs in production). */
export const FLOW_COOKIE = '__Secure-oauth_flow'

export const concretize = (f: Fixture, base: string, c: Case, secureName: string): Concrete => {
  const val = (v: Val) => (isRef(v) ? resolveRef(f, v) : v)
  // Node itself answers 431 past 16 KiB of request head: every part is capped to stay under it.
  const path = `/${c.path.map((seg) => (typeof seg === 'object' && 'raw' in seg ? seg.raw : encodeAll(val(seg)).slice(0, 1500))).join('/')}`
  const params = c.query.map(([k, v]) => `${encodeAll(k)}=${encodeAll(val(v))}`.slice(0, 1200))
  const raw = val(c.auth.token)
  // A header carries bytes, not code points: anything else goes percent-encoded.
  const token = (/^[\x20-\x7e]*$/.test(raw) ? raw : encodeAll(raw)).slice(0, 2500)
  const headers: Record<string, string> = {}
  const cookies: string[] = c.cookies.map(([k, v]) => `${k}=${v}`)
  switch (c.auth.kind) {
    case 'header':
      headers.authorization = `Bearer ${token}`
      break
    case 'lower':
      headers.authorization = `bearer  ${token}`
      break
    case 'scheme':
      headers.authorization = `Basic ${token}`
      break
    case 'headerDup':
      headers.authorization = `Bearer ${token}, Bearer ${token}`
      break
    case 'cookie':
      cookies.push(`token=${encodeAll(raw).slice(0, 2500)}`)
      break
    case 'cookieDup':
      cookies.push(`token=${encodeAll(raw).slice(0, 2500)}`, `token=${encodeAll(raw).slice(0, 2500)}`)
      break
    case 'query':
      params.push(`access_token=${encodeAll(raw).slice(0, 2500)}`)
      break
    case 'queryDup':
      params.push(`access_token=${encodeAll(raw).slice(0, 2500)}`, `access_token=${encodeAll(raw).slice(0, 2500)}`)
      break
    case 'none':
      break
  }
  const refresh = encodeAll(val(c.refresh.value)).slice(0, 1500)
  if (c.refresh.name === 'secure') cookies.push(`${secureName}=${refresh}`)
  if (c.refresh.name === 'plain') cookies.push(`refresh_token=${refresh}`)
  if (c.refresh.name === 'dup') cookies.push(`${secureName}=${refresh}`, `${secureName}=x${refresh}`)
  if (c.flow !== null) cookies.push(`${FLOW_COOKIE}=${encodeAll(val(c.flow)).slice(0, 1500)}`)
  if (cookies.length) headers.cookie = cookies.join('; ')
  for (const [k, v] of c.headers) headers[k] = v
  if (c.site === 'same') headers.origin = f.publicOrigin
  if (c.site === 'foreign') headers.origin = 'https://evil.example'
  if (c.site === 'null') headers.origin = 'null'
  if (c.site === 'crossSite') headers['sec-fetch-site'] = 'cross-site'
  if (c.site === 'sameSite') headers['sec-fetch-site'] = 'same-origin'
  const ip = c.sharedIp ? SHARED_IP : freshIp()
  headers['x-forwarded-for'] = c.proxyJunk === null ? ip : `${c.proxyJunk}, ${ip}`

  let body: string | Buffer | undefined
  const bodiless = c.method === 'GET' || c.method === 'HEAD'
  if (bodiless) body = undefined
  else if (c.body.kind === 'json') body = mangle(JSON.stringify(resolveDeep(f, c.body.value)) ?? '', c.body.mangle, c.body.cut)
  else if (c.body.kind === 'huge') body = JSON.stringify({ title: 'h'.repeat(c.body.bytes) })
  if (body !== undefined && c.body.kind !== 'none') {
    if (c.body.contentType === null) body = Buffer.from(body)
    else headers['content-type'] = c.body.contentType
  }
  const query = [...params, c.rawQuery].filter((p) => p !== '').join('&')
  const url = `${base}${path}${query ? `?${query}` : ''}`
  const head = [decodeSafe(url), ...Object.values(headers).map(decodeSafe)].join('\n')
  const sent = `${head}\n${typeof body === 'string' ? body : (body?.toString() ?? '')}`
  return { method: c.method, url, headers, body, sent, head }
}

const decodeSafe = (s: string) => {
  try {
    return `${s}\n${decodeURIComponent(s.replace(/\+/g, ' '))}`
  } catch {
    return s
  }
}
