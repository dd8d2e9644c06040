/**
 * Password hashing, the re-hash check, and the rules a new password must meet. Hashes are
 * argon2id PHC strings everywhere: through @node-rs/argon2 off the event loop where its native
 * addon loads (Node, Bun, Deno; `argon2-native.ts`), so a login never blocks the event loop, and through
 * `@noble/hashes` (JavaScript) where none can (Cloudflare Workers). Both read and write the same
 * strings, so a database moves between runtimes without a re-hash (docs/reference/limits.md#password-hashing).
 */
import { argon2idAsync } from '@noble/hashes/argon2.js'
import { decodeBase64IgnorePadding, encodeBase64NoPadding } from '@oslojs/encoding'
import { type Argon2Implementation, loadNative } from './argon2-native.js'
import { AuthError } from './errors.js'
import { base64url, randomBytes, utf8 } from './web.js'

/** argon2id cost parameters. */
export interface Argon2Params {
  /** KiB; at least 19456. */
  memoryCost: number
  /** Iterations; at least 2. */
  timeCost: number
  /** Lanes; at least 1. */
  parallelism: number
}

/** The OWASP floor for argon2id (m=19456 KiB, t=2, p=1): `createAuth` refuses less. */
export const ARGON2_FLOOR: Argon2Params = { memoryCost: 19456, timeCost: 2, parallelism: 1 }

/** How passwords are hashed. `verify` never throws: a malformed hash is simply `false`. */
export interface PasswordHasher {
  hash(password: string): Promise<string>
  verify(hash: string, password: string): Promise<boolean>
  /** `true` when a stored hash was made with weaker parameters than the current ones. */
  needsRehash(hash: string): boolean
}

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/

/**
 * Runs at most `slots` tasks at once, the rest in arrival order. Hashes wait here rather than
 * on their threads, so a burst of logins leaves a core to the event loop and libuv's pool
 * threads to the rest of the process (JWT signing, file I/O).
 */
export const boundedConcurrency = (slots: number) => {
  let running = 0
  const waiting: (() => void)[] = []
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= slots) await new Promise<void>((resolve) => waiting.push(resolve))
    else running++
    try {
      return await task()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else running--
    }
  }
}

/** The password hasher as the routes use it: each call counts toward one client's share of the queue. */
export interface SharedHasher {
  /** The hasher for calls made on behalf of `client` (an IPv4 address or an IPv6 /48). */
  of(client: string): PasswordHasher
  /** The hasher for the library's own calls (a custom hasher's decoy): the whole queue's bound only. */
  own: PasswordHasher
}

/**
 * Admits at most `max` hasher calls at once (running or queued), and at most a quarter of them
 * (at least one) for any one client. A call past either is refused with 503 and `Retry-After`
 * before it hashes anything: a flood of password guesses, however it is spread over addresses
 * and accounts, then costs other users a short wait or a quick 503, never seconds of queueing
 * behind it; and one client's flood leaves three quarters of the queue to everyone else.
 */
export const admittedHasher = (hasher: PasswordHasher, max: number): SharedHasher => {
  const share = Math.max(1, Math.floor(max / 4))
  let admitted = 0
  const perClient = new Map<string, number>()
  const admit = async <T>(client: string | null, task: () => Promise<T>): Promise<T> => {
    const held = client === null ? 0 : (perClient.get(client) ?? 0)
    if (admitted >= max || held >= share)
      throw new AuthError('overloaded', {
        detail: 'Too many password checks are in progress. Try again in a second.',
        headers: { 'Retry-After': '1' },
      })
    admitted++
    if (client !== null) perClient.set(client, held + 1)
    try {
      return await task()
    } finally {
      admitted--
      if (client !== null) {
        const left = (perClient.get(client) ?? 1) - 1
        if (left === 0) perClient.delete(client)
        else perClient.set(client, left)
      }
    }
  }
  const hasherOf = (client: string | null): PasswordHasher => ({
    hash: (password) => admit(client, () => hasher.hash(password)),
    verify: (stored, password) => admit(client, () => hasher.verify(stored, password)),
    needsRehash: (stored) => hasher.needsRehash(stored),
  })
  return { of: hasherOf, own: hasherOf(null) }
}

const PHC_FULL = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

/** Equal bytes, compared in time that does not depend on where they differ. */
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number)
  return diff === 0
}

/**
 * argon2id in JavaScript (`@noble/hashes`, audited), writing the PHC strings @node-rs/argon2
 * writes (16-byte salt, 32-byte hash). Its async form yields to the event loop as it works; it
 * costs several times the native addon's time (docs/PERFORMANCE.md), so it runs one at a time.
 */
const portable: Argon2Implementation = {
  name: 'portable',
  async hash(password, { memoryCost, timeCost, parallelism }) {
    const salt = randomBytes(16)
    const digest = await argon2idAsync(utf8(password), salt, { m: memoryCost, t: timeCost, p: parallelism, dkLen: 32 })
    return `$argon2id$v=19$m=${memoryCost},t=${timeCost},p=${parallelism}$${encodeBase64NoPadding(salt)}$${encodeBase64NoPadding(digest)}`
  },
  async verify(stored, password) {
    const m = PHC_FULL.exec(stored)
    if (!m) throw new TypeError('not an argon2id hash')
    const [, memory, time, lanes, salt, digest] = m as unknown as [string, string, string, string, string, string]
    const expected = decodeBase64IgnorePadding(digest)
    const actual = await argon2idAsync(utf8(password), decodeBase64IgnorePadding(salt), {
      m: Number(memory),
      t: Number(time),
      p: Number(lanes),
      dkLen: expected.length,
    })
    return sameBytes(actual, expected)
  },
  slots: 1,
}

/**
 * The implementation this runtime can run: native where it loads, portable otherwise. Chosen at
 * the first hash and kept as a value, not as a promise another request might still be running:
 * a Worker ends a request's pending work with its answer, so a promise begun in one request and
 * awaited by the next may never settle.
 */
let chosen: Argon2Implementation | undefined
const argon2Implementation = async () => {
  const found = chosen ?? (await loadNative()) ?? portable
  chosen ??= found
  return chosen
}

/**
 * The argon2id hasher with the given parameters: native (@node-rs/argon2) where it loads,
 * otherwise `@noble/hashes` (Workers). `implementation` forces one (tests, benchmarks).
 */
export const argon2Hasher = (params: Argon2Params, implementation?: 'native' | 'portable'): PasswordHasher => {
  const pick = async (): Promise<Argon2Implementation> => {
    if (implementation === 'portable') return portable
    if (implementation !== 'native') return argon2Implementation()
    const native = await loadNative()
    if (!native) throw new Error('argon2Hasher: @node-rs/argon2 does not load here')
    return native
  }
  // Nothing starts before the first hash, inside the request that asks for it (see above).
  let picked: { impl: Argon2Implementation; run: ReturnType<typeof boundedConcurrency> } | undefined
  const ready = async () => {
    if (picked) return picked
    const impl = await pick()
    picked ??= { impl, run: boundedConcurrency(impl.slots) }
    return picked
  }
  return {
    async hash(password) {
      const { impl, run } = await ready()
      return run(() => impl.hash(password, params))
    },
    async verify(stored, password) {
      try {
        const { impl, run } = await ready()
        return await run(() => impl.verify(stored, password))
      } catch {
        return false
      }
    },
    needsRehash(stored) {
      const m = PHC.exec(stored)
      if (!m) return true
      return Number(m[1]) < params.memoryCost || Number(m[2]) < params.timeCost || Number(m[3]) < params.parallelism
    },
  }
}

/**
 * The hash a login verifies against when the email is unknown, so both paths cost one
 * verification. No work starts ahead of a request: a Worker ends a request's pending work with
 * its answer, so a hash begun during one request (the first, which builds the app) and awaited by
 * a later one would never finish, and would hold the hashing slot for good. With the built-in
 * argon2id the decoy is made rather than hashed: a PHC string with the current parameters and a
 * random salt and digest costs exactly one verification. A custom hasher's decoy is hashed inside
 * the first login, before the account is looked up (so that login costs one hash more whether or
 * not the account exists), and kept as a value.
 */
export const decoyHash = (hasher: PasswordHasher, argon2?: Argon2Params): (() => Promise<string>) => {
  if (argon2) {
    const made = `$argon2id$v=19$m=${argon2.memoryCost},t=${argon2.timeCost},p=${argon2.parallelism}$${encodeBase64NoPadding(randomBytes(16))}$${encodeBase64NoPadding(randomBytes(32))}`
    return async () => made
  }
  let kept: string | undefined
  return async () => {
    kept ??= await hasher.hash(base64url(randomBytes(32)))
    return kept
  }
}

/** Passwords are NFKC-normalised before hashing, never trimmed or case-changed. */
export const normalizePassword = (password: string): string => password.normalize('NFKC')

/** Length in code points (docs/reference/conventions.md#passwords). */
export const codePoints = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

let common: Promise<Set<string>> | undefined
/**
 * The common passwords, lower-cased, loaded once on first use: zxcvbn's ~49,000
 * (@zxcvbn-ts/language-common) and the 10,000 most common of SecLists' list that a new password
 * can be (`common-passwords.ts`), which holds the repeats and sequences zxcvbn leaves to its
 * patterns (`88888888`, `987654321`).
 */
export const commonPasswords = (): Promise<Set<string>> => {
  common ??= Promise.all([import('@zxcvbn-ts/language-common'), import('./common-passwords.js')]).then(
    ([{ dictionary }, { TOP_PASSWORDS }]) =>
      new Set([...(dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()), ...TOP_PASSWORDS.split('\n')]),
  )
  return common
}

/** `true` when a new password is on the common-password list (compared case-insensitively). */
export const isCommonPassword = async (password: string): Promise<boolean> =>
  (await commonPasswords()).has(normalizePassword(password).toLowerCase())

/** `true` when a new password equals the email or its local part, case-insensitively. `email` is canonical. */
export const isEmailPassword = (password: string, email: string): boolean => {
  const lowered = normalizePassword(password).toLowerCase()
  return lowered === email || lowered === email.slice(0, email.lastIndexOf('@'))
}

export const COMMON_PASSWORD = 'Password is one of the most common passwords'
export const EMAIL_PASSWORD = 'Password must not be your email address or its part before the @'
