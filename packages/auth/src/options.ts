/**
 * The options of `createAuth`, put together from their slices, and the few that belong to no
 * slice: the store, the mail and event hooks, the policies, the signup fields, the log and the
 * clock. Each slice declares its options, their defaults and their checks beside what it
 * configures (`token-options.ts`, `lifetime-options.ts`, `password-options.ts`,
 * `limit-options.ts`, `cookie-options.ts`, and `options.ts` in the feature folders, composed in
 * `features.ts`). Everything is checked once, when the app is wired, with an error naming the
 * option.
 */

import type { z } from 'zod'
import { type CookieOptions, type ResolvedCookieOptions, resolveCookieOptions } from './cookie-options.js'
import type { NoFields, Policy, SignupExtras } from './domain.js'
import { type FeatureOptions, type ResolvedFeatureOptions, resolveFeatureOptions } from './features.js'
import { type LifetimeOptions, type ResolvedLifetimeOptions, resolveLifetimeOptions } from './lifetime-options.js'
import { type LimitOptions, type ResolvedLimitOptions, resolveLimitOptions } from './limit-options.js'
import type { AuthEvent, AuthMail } from './notify.js'
import { fail } from './option-checks.js'
import { type PasswordOptions, type ResolvedPasswordOptions, resolvePasswordOptions } from './password-options.js'
import type { Store, UserRecord } from './store/types.js'
import { type ResolvedTokenOptions, resolveTokenOptions, type TokenOptions } from './token-options.js'

/** Names a `signupFields` schema may not use: the record's own fields. */
export const RESERVED_USER_FIELDS = [
  'id',
  'name',
  'email',
  'password',
  'passwordHash',
  'role',
  'emailVerified',
  'createdAt',
  'credentialsVersion',
  'profile',
  'disabledAt',
] as const

export interface AuthOptions<
  U extends UserRecord,
  Name extends string = never,
  F extends z.ZodRawShape = NoFields,
  Scope extends string = never,
> extends TokenOptions,
    LifetimeOptions,
    PasswordOptions,
    LimitOptions,
    CookieOptions,
    FeatureOptions<Name, Scope> {
  store: Store<U>
  /**
   * Sends the mails the library asks for, each with a `kind` (reset and verification tokens,
   * email-change tokens to the new address, notices of changes). It runs after the answer; a
   * failure is logged without the token and never changes a response. The library never builds
   * a link and never logs a token.
   */
  sendMail: (mail: AuthMail) => void | Promise<void>
  /**
   * Receives one event per security-relevant step, after it happened (an audit log): never a
   * password, hash, token or code. A hook that throws is logged and changes nothing.
   */
  onEvent?: (event: AuthEvent) => void | Promise<void>
  /** Named policies; guard names are checked against these keys by the compiler. */
  policies?: Record<Name, Policy<U & SignupExtras<F>>>
  /**
   * Extra fields of `POST /signup` (docs/reference/endpoints.md#signup), such as `z.object({ plan: z.enum(['free', 'pro']).default('free') })`:
   * validated with the rest of the body (400 with `errors[]`), stored with the user, documented
   * in OpenAPI, and typed on `c.get('user').raw`. Fields added later should have a default or be
   * optional: older accounts get the default when they are read.
   */
  signupFields?: z.ZodObject<F>
  /** Where unexpected failures are reported (never with a token or password). Default `console.error`. */
  log?: (message: string) => void
  /** The clock, for tests. */
  now?: () => Date
}

export interface ResolvedOptions
  extends ResolvedTokenOptions,
    ResolvedLifetimeOptions,
    ResolvedPasswordOptions,
    ResolvedLimitOptions,
    ResolvedCookieOptions,
    ResolvedFeatureOptions {
  /** The application's extra signup fields, or `null`. */
  signupFields: z.ZodObject | null
  log: (message: string) => void
  now: () => Date
}

const resolveSignupFields = (signupFields: z.ZodObject | undefined): z.ZodObject | null => {
  if (signupFields === undefined) return null
  if (typeof signupFields !== 'object' || typeof (signupFields as { shape?: unknown }).shape !== 'object')
    fail('signupFields', 'must be a zod object schema, such as z.object({ plan: z.string() })')
  for (const key of Object.keys(signupFields.shape))
    if ((RESERVED_USER_FIELDS as readonly string[]).includes(key))
      fail(`signupFields.${key}`, 'is a field of the user record itself; choose another name')
  return signupFields
}

/** Checks the options once and fills in defaults. Throws a `TypeError` naming the bad option. */
export const resolveOptions = <U extends UserRecord, Name extends string, F extends z.ZodRawShape, Scope extends string>(
  options: AuthOptions<U, Name, F, Scope>,
): ResolvedOptions => {
  const tokens = resolveTokenOptions(options)
  if (!options.store) fail('store', 'is required (for example sqliteStore() from @latchkey/auth/sqlite)')
  if (typeof options.sendMail !== 'function')
    fail('sendMail', 'is required: a function ({ kind, to, token? }) that sends the mails the library asks for')
  for (const [name, policy] of Object.entries<unknown>(options.policies ?? {}))
    if (typeof policy !== 'function') fail(`policies.${name}`, 'must be a function (user, c) => boolean')
  return {
    ...tokens,
    ...resolvePasswordOptions(options),
    ...resolveCookieOptions(options),
    signupFields: resolveSignupFields(options.signupFields ?? undefined),
    ...resolveLimitOptions(options),
    ...resolveLifetimeOptions(options),
    ...resolveFeatureOptions(options),
    log: options.log ?? ((message) => console.error(message)),
    now: options.now ?? (() => new Date()),
  }
}
