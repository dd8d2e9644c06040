/**
 * Password hashing (argon2id through the async, thread-pool API of @node-rs/argon2, so a
 * login never blocks the event loop), the re-hash check, and the rules a new password must meet.
 */
import { randomBytes } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { hash, verify } from '@node-rs/argon2'
import { AuthError } from './errors.js'

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

// `Algorithm.Argon2id` is an ambient const enum, which isolated modules cannot read.
const ARGON2ID = 2
const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/

/**
 * Runs at most `slots` tasks at once, the rest in arrival order. Hashes wait here rather than
 * in the thread pool, so a burst of logins leaves a core to the event loop and pool threads to
 * the rest of the process (JWT signing, file I/O).
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

/**
 * Admits at most `max` hasher calls at once (running or queued). A call past that is refused
 * with 503 and `Retry-After` before it hashes anything: a flood of password guesses, however it
 * is spread over addresses and accounts, then costs other users a short wait or a quick 503,
 * never seconds of queueing behind it.
 */
export const admittedHasher = (hasher: PasswordHasher, max: number): PasswordHasher => {
  let admitted = 0
  const admit = async <T>(task: () => Promise<T>): Promise<T> => {
    if (admitted >= max)
      throw new AuthError('overloaded', {
        detail: 'Too many password checks are in progress. Try again in a second.',
        headers: { 'Retry-After': '1' },
      })
    admitted++
    try {
      return await task()
    } finally {
      admitted--
    }
  }
  return {
    hash: (password) => admit(() => hasher.hash(password)),
    verify: (stored, password) => admit(() => hasher.verify(stored, password)),
    needsRehash: (stored) => hasher.needsRehash(stored),
  }
}

/** Concurrent hashes: one core short of the machine (or of the pool), at least one. */
const hashSlots = (): number => {
  const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4
  return Math.max(1, Math.min(availableParallelism(), pool) - 1)
}

/** The argon2id hasher with the given parameters. */
export const argon2Hasher = (params: Argon2Params): PasswordHasher => {
  const run = boundedConcurrency(hashSlots())
  return {
    hash: (password) => run(() => hash(password, { algorithm: ARGON2ID, ...params })),
    async verify(stored, password) {
      try {
        return await run(() => verify(stored, password))
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

/** A hash of a random password, verified against when the email is unknown so both paths cost the same. */
export const decoyHash = (hasher: PasswordHasher): Promise<string> => hasher.hash(randomBytes(32).toString('base64url'))

/** Passwords are NFKC-normalised before hashing, never trimmed or case-changed. */
export const normalizePassword = (password: string): string => password.normalize('NFKC')

/** Length in code points, as the contract counts it. */
export const codePoints = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

let common: Promise<Set<string>> | undefined
/** The ~49,000 most common passwords (from @zxcvbn-ts/language-common), loaded once on first use. */
export const commonPasswords = (): Promise<Set<string>> => {
  common ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase())),
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
