/**
 * Configuration from the environment (docs/reference/operations.md#running-the-reference-server), checked once at start. Every problem is a
 * {@link ConfigError} whose one-line message names the variable. This file reads the
 * environment and the dev `.env` file; it opens no database and no socket.
 */
import { randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseEnv } from 'node:util'
import { type ProviderConfig, type SigningKey, secretWeakness } from '@latchkey/auth'
import {
  appDir,
  type DatabaseTarget,
  DOMAIN,
  describeDatabase,
  fail,
  missingDatabaseFolder,
  parseBoolean,
  parseDatabaseUrl,
  parsePort,
  parseSigningKeys,
  parseUrl,
} from './config-values.js'
import { isIpHost, isOnDomain } from './passkeys.js'
import { parseProviders } from './providers.js'

export { appDir, ConfigError, type DatabaseTarget, describeDatabase, parseDatabaseUrl } from './config-values.js'

/** The public Pwned Passwords range API: the production default of `PWNED_PASSWORDS_URL`. */
export const PUBLIC_PWNED_PASSWORDS = 'https://api.pwnedpasswords.com'

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
  /** Social sign-in: `GOOGLE_`/`MICROSOFT_`/`GITHUB_CLIENT_ID` and `_CLIENT_SECRET`, and `AUTH_OIDC_PROVIDERS` (src/providers.ts). */
  providers: ProviderConfig[]
  /** Lines to show on the terminal at start (for example: a secret was generated). */
  notices: string[]
}

/** The variables without which the server does not start (always, or when NODE_ENV=production), and what to set. */
const REQUIRED = {
  AUTH_SECRET: {
    when: 'always',
    how: 'set it to a random string of at least 32 characters (for example: openssl rand -base64 32)',
  },
  SMTP_URL: { when: 'production', how: 'reset links are only printed to the terminal in development' },
  AUTH_ENCRYPTION_KEY: {
    when: 'production',
    how: 'set it to a random string of at least 32 characters, not one of AUTH_SECRET (for example: openssl rand -base64 32)',
  },
} as const

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

  // Every required variable that is unset, named in one message, so that one start shows them all:
  // at once when AUTH_SECRET is missing, else where SMTP_URL is read (a bad secret is named first).
  const refuseMissing = () => {
    const missing = Object.entries(REQUIRED)
      .filter(([name, { when }]) => (when === 'always' || production) && !env[name]?.trim())
      .map(([name, { when, how }]) => `${name} is required${when === 'always' ? '' : ' when NODE_ENV=production'}: ${how}`)
    if (missing.length === 1) fail(missing[0] as string)
    if (missing.length > 1) fail(`${missing.length} required variables are unset. ${missing.join('; ')}`)
  }
  if (!env.AUTH_SECRET?.trim()) refuseMissing()

  // Several secrets, comma-separated, rotate without signing anyone out: the first signs.
  const secrets = (env.AUTH_SECRET ?? '').split(',')
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
  refuseMissing()
  const smtp = parseUrl('SMTP_URL', env.SMTP_URL, ['smtp:', 'smtps:'], 'smtp://user:pass@mail.example.com:587')
  // Comma-separated like AUTH_SECRET: the first seals, every one opens (the sweep re-seals).
  const encryptionKeys = env.AUTH_ENCRYPTION_KEY?.trim() ? env.AUTH_ENCRYPTION_KEY.split(',') : null
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

  const database = parseDatabaseUrl(env.DATABASE_URL, baseDir)
  const folder = missingDatabaseFolder(database)
  // The default (`file:./data/todo.db`) is created with its folder on the first start, in every
  // mode (docs/guide/reference-server.md); a path that production names itself must exist, since
  // a missing folder there is more often a typo or an unmounted volume than a first start.
  const named = (env.DATABASE_URL?.trim() ?? '') !== ''
  if (folder !== null && production && named)
    fail(
      `DATABASE_URL names the SQLite file ${describeDatabase(database)}, whose folder ${folder} does not exist: create it, or correct DATABASE_URL (in production the server creates only the default's folder)`,
    )
  if (folder !== null) notices.push(`DATABASE_URL: the folder ${folder} did not exist; creating it for the SQLite file`)

  return {
    nodeEnv,
    production,
    port,
    publicUrl: publicUrl ? publicUrl.href.replace(/\/+$/, '') : null,
    database,
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
    providers: parseProviders(env),
    notices,
  }
}
