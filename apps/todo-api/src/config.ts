/**
 * Configuration from the environment (docs/reference/operations.md#running-the-reference-server), checked once at start. Every problem is a
 * {@link ConfigError} whose one-line message names the variable. This file reads the
 * environment and the dev `.env` file; it opens no database and no socket.
 */
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseEnv } from 'node:util'
import { MAX_SIGNING_KEYS, type SigningKey, secretWeakness, signingKeyProblem } from '@latchkey/auth'
import { isIpHost, isOnDomain } from './passkeys.js'

/** The public Pwned Passwords range API: the production default of `PWNED_PASSWORDS_URL`. */
export const PUBLIC_PWNED_PASSWORDS = 'https://api.pwnedpasswords.com'

/** A configuration problem; `message` is one line naming the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Where the database lives: a SQLite file (or memory), or a PostgreSQL connection URL. */
export type DatabaseTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string }

export interface Config {
  /** `NODE_ENV` as the process runs: `production` unless set, `development` under `pnpm dev`. */
  nodeEnv: string
  production: boolean
  port: number
  /** `PUBLIC_URL` without a trailing slash; `null` means `http://localhost:<listening port>`. */
  publicUrl: string | null
  database: DatabaseTarget
  /** `TRUSTED_ORIGINS`, split at commas: front ends on other origins that may use the refresh cookie. */
  trustedOrigins: string[]
  /** `AUTH_SECRET`, split at commas: the first signs, every one verifies. */
  secrets: string[]
  /**
   * `AUTH_ENCRYPTION_KEY`, split at commas: the first seals (TOTP keys), every one opens. Required
   * in production; `null` elsewhere when unset (the library then seals under the signing secret).
   */
  encryptionKeys: string[] | null
  /** `AUTH_SIGNING_KEYS`, a JSON array of private JWKs: when set, the first signs access tokens instead of `AUTH_SECRET`. */
  signingKeys: SigningKey[] | null
  smtpUrl: string | null
  mailFrom: string
  trustProxy: boolean
  /** `EMAIL_SIGN_UP=true`: an address without an account may sign up by email (docs/reference/email-sign-in.md). */
  emailSignUp: boolean
  /** `PASSKEY_RP_ID`: the passkeys' domain instead of `PUBLIC_URL`'s host (a parent domain of it); `null`: that host. */
  passkeyRpId: string | null
  /**
   * `ACCESS_TOKEN_TTL`: seconds an access token lives (default 900). For tests and trying the
   * refresh dance with short tokens; refused when NODE_ENV=production.
   */
  accessTokenTtl: number | null
  /**
   * `AUTH_FRESH_AGE`: seconds after a sign-in or re-authentication during which the account's
   * sensitive actions (change the email, delete the account, two-factor changes) take the session
   * instead of the password. Default: the library's 300.
   */
  freshAge: number | null
  /** `AUTH_MAX_SESSIONS`: most sessions per account (default: the library's 100); a sign-in past it ends the least recently used. */
  maxSessions: number | null
  /**
   * `PWNED_PASSWORDS_URL`: base URL of the breached-password range API (`/range/{prefix}` is
   * appended). Unset: the public service in production, no check in development; `off`: no check.
   */
  pwnedPasswordsUrl: string | null
  /** Lines to show on the terminal at start (for example: a secret was generated). */
  notices: string[]
}

/** The app's folder (`apps/todo-api`), both from `src/` under tsx and from `dist/` under node. */
export const appDir = fileURLToPath(new URL('..', import.meta.url))

/** A DNS name: labels of letters, digits and inner hyphens. */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

const fail = (message: string): never => {
  throw new ConfigError(message)
}

/**
 * `DATABASE_URL`: `file:<path>` (relative paths are relative to the app folder) or `:memory:`
 * selects SQLite; `postgres://…` or `postgresql://…` selects PostgreSQL (a libpq-style URL, as
 * node-postgres reads it: `?options=-c%20search_path%3Dtodo` picks a schema).
 */
export const parseDatabaseUrl = (value: string | undefined, baseDir: string = appDir): DatabaseTarget => {
  const url = value?.trim() || 'file:./data/todo.db'
  if (url === ':memory:' || url === 'file::memory:') return { kind: 'sqlite', path: ':memory:' }
  if (/^postgres(ql)?:\/\//i.test(url)) {
    // node-postgres parses it leniently; a URL that does not even parse is a typo worth naming.
    if (!URL.canParse(url)) fail('DATABASE_URL is not a valid postgres:// URL (postgres://user:password@host:5432/database)')
    return { kind: 'postgres', url }
  }
  if (!url.startsWith('file:')) fail(`DATABASE_URL must be file:<path>, :memory: or postgres://…, got "${url.split(':')[0]}:…"`)
  let path = url.slice('file:'.length)
  if (path.startsWith('//')) {
    try {
      path = fileURLToPath(url)
    } catch {
      fail('DATABASE_URL is not a valid file: URL')
    }
  }
  if (!path) fail('DATABASE_URL: file: needs a path, for example file:./data/todo.db')
  return { kind: 'sqlite', path: isAbsolute(path) ? path : resolve(baseDir, path) }
}

/** The database for messages: the SQLite path, or the PostgreSQL URL without its password. */
export const describeDatabase = (target: DatabaseTarget): string => {
  if (target.kind === 'sqlite') return target.path
  const url = new URL(target.url)
  if (url.password) url.password = '***'
  return url.href
}

/**
 * `AUTH_SIGNING_KEYS`: a JSON array of private EdDSA (Ed25519) or ES256 (P-256) JWKs, each with
 * a `kid` (`pnpm cli keys generate` prints one). The messages name the variable and the key's
 * position, never key material.
 */
export const parseSigningKeys = (value: string | undefined): SigningKey[] | null => {
  if (value === undefined || value.trim() === '') return null
  const usage =
    'AUTH_SIGNING_KEYS must be a JSON array of private JWKs, the signing key first (pnpm cli keys generate prints one)'
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    return fail(`${usage}; it is not valid JSON`)
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return fail(usage)
  if (parsed.length > MAX_SIGNING_KEYS)
    fail(`AUTH_SIGNING_KEYS holds more than ${MAX_SIGNING_KEYS} keys (a rotation needs two or three)`)
  const keys = parsed as unknown[]
  const kids = new Set<string>()
  keys.forEach((key, i) => {
    const which = `AUTH_SIGNING_KEYS (key ${i + 1} of ${keys.length})`
    const checked = signingKeyProblem(key)
    if ('problem' in checked) fail(`${which} ${checked.problem}`)
    const { kid } = key as SigningKey
    if (kids.has(kid)) fail(`${which} repeats the kid ${JSON.stringify(kid.slice(0, 40))} of an earlier key`)
    kids.add(kid)
    // The library checks the shape (synchronously, with Web APIs); Node can also tell whether
    // `x` (and `y`) are the public half of `d`, which WebCrypto would only refuse on first use.
    const jwk = key as SigningKey
    let derived: { x?: string; y?: string } = {}
    try {
      derived = createPublicKey(createPrivateKey({ key: { ...jwk }, format: 'jwk' })).export({ format: 'jwk' })
    } catch {}
    if (derived.x !== jwk.x || derived.y !== jwk.y)
      fail(`${which} is not a valid key: its public half does not belong to its private key`)
  })
  return keys as SigningKey[]
}

const parsePort = (value: string | undefined): number => {
  if (value === undefined || value.trim() === '') return 3000
  if (!/^\d{1,5}$/.test(value.trim()) || Number(value) > 65535) fail(`PORT must be an integer from 0 to 65535, got "${value}"`)
  return Number(value)
}

const parseUrl = (name: string, value: string | undefined, protocols: string[], example: string): URL | null => {
  if (value === undefined || value.trim() === '') return null
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    return fail(`${name} must be an absolute URL such as ${example}`)
  }
  if (!protocols.includes(url.protocol)) fail(`${name} must use ${protocols.join(' or ')} (such as ${example})`)
  return url
}

const parseBoolean = (name: string, value: string | undefined): boolean => {
  const v = value?.trim().toLowerCase() ?? ''
  if (v === '' || v === 'false' || v === '0') return false
  if (v === 'true' || v === '1') return true
  return fail(`${name} must be true or false, got "${value}"`)
}

/**
 * Development only: variables from the app's git-ignored `.env` that the environment does not
 * already set, and an `AUTH_SECRET` and an `AUTH_ENCRYPTION_KEY` generated and appended to that
 * file when there is none.
 */
export const applyDevEnvFile = (env: NodeJS.ProcessEnv, baseDir: string = appDir): string[] => {
  const file = join(baseDir, '.env')
  const notices: string[] = []
  if (existsSync(file)) {
    for (const [key, value] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) if (env[key] === undefined) env[key] = value
  }
  // Each generated beside the other: a random value, appended to the file, said on the terminal.
  for (const name of ['AUTH_SECRET', 'AUTH_ENCRYPTION_KEY'] as const) {
    if (env[name]) continue
    const secret = randomBytes(32).toString('base64url')
    const existing = existsSync(file) ? readFileSync(file, 'utf8') : ''
    const separator = existing === '' || existing.endsWith('\n') ? '' : '\n'
    appendFileSync(
      file,
      `${separator}# Generated by \`pnpm dev\`. Development only; never commit this file.\n${name}=${secret}\n`,
      {
        mode: 0o600,
      },
    )
    env[name] = secret
    notices.push(`${name} was not set: generated a random one and saved it to ${file} (git-ignored, development only)`)
  }
  return notices
}

/**
 * Reads and checks the configuration. `dev` is the `pnpm dev` command: it forces
 * `NODE_ENV=development` and may generate `AUTH_SECRET` and `AUTH_ENCRYPTION_KEY`. Throws {@link ConfigError}.
 */
export const loadConfig = (env: NodeJS.ProcessEnv, options: { dev?: boolean; baseDir?: string } = {}): Config => {
  const baseDir = options.baseDir ?? appDir
  const nodeEnv = options.dev ? 'development' : env.NODE_ENV?.trim() || 'production'
  const production = nodeEnv === 'production'
  const notices = options.dev ? applyDevEnvFile(env, baseDir) : []

  // Several secrets, comma-separated, rotate without signing anyone out: the first signs.
  const secrets = (env.AUTH_SECRET ?? '').split(',')
  if (secrets.every((s) => s === ''))
    fail('AUTH_SECRET is required: set it to a random string of at least 32 characters (for example: openssl rand -base64 32)')
  secrets.forEach((secret, i) => {
    const which = secrets.length === 1 ? 'AUTH_SECRET' : `AUTH_SECRET (secret ${i + 1} of ${secrets.length})`
    if (secret === '') fail(`${which} is empty: separate secrets with single commas`)
    const weakness = secretWeakness(secret)
    if (weakness) fail(`${which} ${weakness}`)
    if (secrets.indexOf(secret) !== i) fail(`${which} repeats an earlier secret`)
  })

  const port = parsePort(env.PORT)
  const publicUrl = parseUrl('PUBLIC_URL', env.PUBLIC_URL, ['http:', 'https:'], 'https://todo.example.com')
  if (publicUrl && (publicUrl.search || publicUrl.hash)) fail('PUBLIC_URL must not carry a query or a fragment')
  const trustedOrigins = (env.TRUSTED_ORIGINS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  for (const entry of trustedOrigins)
    if (!URL.canParse(entry) || new URL(entry).origin !== entry.replace(/\/$/, ''))
      fail(
        `TRUSTED_ORIGINS must list origins such as https://app.example.com, separated by commas; "${entry.slice(0, 100)}" is not one`,
      )
  const passkeyRpId = env.PASSKEY_RP_ID?.trim().toLowerCase() || null
  if (passkeyRpId !== null) {
    if (!DOMAIN.test(passkeyRpId) || isIpHost(passkeyRpId))
      fail(`PASSKEY_RP_ID must be a domain such as example.com (no scheme, port or path), got "${passkeyRpId.slice(0, 100)}"`)
    const host = publicUrl?.hostname ?? 'localhost'
    const hosts = [host, ...trustedOrigins.map((entry) => new URL(entry).hostname)]
    if (!hosts.some((h) => isOnDomain(h, passkeyRpId)))
      fail(`PASSKEY_RP_ID (${passkeyRpId}) must be PUBLIC_URL's host (${host}), a trusted origin's, or a parent domain of one`)
  }
  const ttl = env.ACCESS_TOKEN_TTL?.trim() ?? ''
  if (ttl !== '' && !/^[1-9]\d{0,4}$/.test(ttl))
    fail(`ACCESS_TOKEN_TTL must be a whole number of seconds from 1 to 99999, got "${ttl.slice(0, 20)}"`)
  if (ttl !== '' && production) fail('ACCESS_TOKEN_TTL is for development and tests; unset it when NODE_ENV=production')
  const freshAge = env.AUTH_FRESH_AGE?.trim() ?? ''
  if (freshAge !== '' && !/^[1-9]\d{0,5}$/.test(freshAge))
    fail(`AUTH_FRESH_AGE must be a whole number of seconds from 1 to 999999, got "${freshAge.slice(0, 20)}"`)
  const maxSessions = env.AUTH_MAX_SESSIONS?.trim() ?? ''
  if (maxSessions !== '' && !/^[1-9]\d{0,5}$/.test(maxSessions))
    fail(`AUTH_MAX_SESSIONS must be a whole number from 1 to 999999, got "${maxSessions.slice(0, 20)}"`)
  const smtp = parseUrl('SMTP_URL', env.SMTP_URL, ['smtp:', 'smtps:'], 'smtp://user:pass@mail.example.com:587')
  if (production && !smtp)
    fail('SMTP_URL is required when NODE_ENV=production: reset links are only printed to the terminal in development')
  // Comma-separated like AUTH_SECRET: the first seals, every one opens (the sweep re-seals).
  const encryptionKeys = env.AUTH_ENCRYPTION_KEY?.trim() ? env.AUTH_ENCRYPTION_KEY.split(',') : null
  if (production && !encryptionKeys)
    fail(
      'AUTH_ENCRYPTION_KEY is required when NODE_ENV=production: set it to a random string of at least 32 characters, not one of AUTH_SECRET (for example: openssl rand -base64 32)',
    )
  encryptionKeys?.forEach((key, i) => {
    const which =
      encryptionKeys.length === 1 ? 'AUTH_ENCRYPTION_KEY' : `AUTH_ENCRYPTION_KEY (key ${i + 1} of ${encryptionKeys.length})`
    if (key === '') fail(`${which} is empty: separate keys with single commas`)
    const weakness = secretWeakness(key)
    if (weakness) fail(`${which} ${weakness}`)
    if (encryptionKeys.indexOf(key) !== i) fail(`${which} repeats an earlier key`)
    if (secrets.includes(key))
      fail(`${which} must not be one of AUTH_SECRET: keep the sealing keys apart from the signing secrets`)
  })

  const pwned = env.PWNED_PASSWORDS_URL?.trim() ?? ''
  const pwnedPasswordsUrl =
    pwned.toLowerCase() === 'off'
      ? null
      : (parseUrl('PWNED_PASSWORDS_URL', pwned, ['http:', 'https:'], 'https://api.pwnedpasswords.com')?.href.replace(
          /\/+$/,
          '',
        ) ?? (production ? PUBLIC_PWNED_PASSWORDS : null))

  return {
    nodeEnv,
    production,
    port,
    publicUrl: publicUrl ? publicUrl.href.replace(/\/+$/, '') : null,
    database: parseDatabaseUrl(env.DATABASE_URL, baseDir),
    secrets,
    encryptionKeys,
    signingKeys: parseSigningKeys(env.AUTH_SIGNING_KEYS),
    smtpUrl: smtp ? smtp.href : null,
    mailFrom: env.MAIL_FROM?.trim() || 'Latchkey <no-reply@localhost>',
    trustProxy: parseBoolean('TRUST_PROXY', env.TRUST_PROXY),
    emailSignUp: parseBoolean('EMAIL_SIGN_UP', env.EMAIL_SIGN_UP),
    passkeyRpId,
    trustedOrigins: trustedOrigins.map((entry) => new URL(entry).origin),
    accessTokenTtl: ttl === '' ? null : Number(ttl),
    freshAge: freshAge === '' ? null : Number(freshAge),
    maxSessions: maxSessions === '' ? null : Number(maxSessions),
    pwnedPasswordsUrl,
    notices,
  }
}
