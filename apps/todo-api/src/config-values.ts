/**
 * The values of the reference server's environment, each parsed and checked on its own
 * (docs/reference/operations.md#running-the-reference-server): every problem is a
 * {@link ConfigError} whose one-line message names the variable. config.ts puts them together.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto'
import { existsSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MAX_SIGNING_KEYS, type SigningKey, signingKeyProblem } from '@latchkey/auth'

/** The app's folder (`apps/todo-api`), both from `src/` under tsx and from `dist/` under node. */
export const appDir = fileURLToPath(new URL('..', import.meta.url))

/** A configuration problem; `message` is one line naming the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Where the database lives: a SQLite file (or memory), or a PostgreSQL connection URL. */
export type DatabaseTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string }

/** A DNS name: labels of letters, digits and inner hyphens. */
export const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

export const fail = (message: string): never => {
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

/**
 * The folder a SQLite `DATABASE_URL` names that does not exist yet, or `null` (it exists, or the
 * database is in memory or on PostgreSQL). Opening the database creates it; production refuses
 * instead (see `loadConfig`), as a missing folder there is more often a typo or an unmounted volume.
 */
export const missingDatabaseFolder = (target: DatabaseTarget): string | null => {
  if (target.kind !== 'sqlite' || target.path === ':memory:') return null
  const folder = dirname(target.path)
  return existsSync(folder) ? null : folder
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

export const parsePort = (value: string | undefined): number => {
  if (value === undefined || value.trim() === '') return 3000
  if (!/^\d{1,5}$/.test(value.trim()) || Number(value) > 65535) fail(`PORT must be an integer from 0 to 65535, got "${value}"`)
  return Number(value)
}

export const parseUrl = (name: string, value: string | undefined, protocols: string[], example: string): URL | null => {
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

export const parseBoolean = (name: string, value: string | undefined): boolean => {
  const v = value?.trim().toLowerCase() ?? ''
  if (v === '' || v === 'false' || v === '0') return false
  if (v === 'true' || v === '1') return true
  return fail(`${name} must be true or false, got "${value}"`)
}
