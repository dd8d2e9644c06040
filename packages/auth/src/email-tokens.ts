/**
 * Mailed tokens that prove a mailbox (docs/reference/lifecycle.md#mail): `verify-email` lives 24 hours and goes
 * to the account's address, `change-email` lives 1 hour and goes to the new address. The raw token
 * is only ever in the mail; the store keeps its SHA-256.
 */
import { z } from '@hono/zod-openapi'
import { AuthError } from './errors.js'
import { storableString } from './fields.js'
import type { Subject } from './limits.js'
import { opaqueToken, tokenHash } from './opaque-token.js'
import type { LookupFacts } from './route-builder.js'
import type { RouteDeps } from './route-deps.js'
import type { EmailTokenKind, UserRecord } from './store/types.js'

const LIFETIME_MS: Record<EmailTokenKind, number> = {
  'verify-email': 24 * 60 * 60 * 1000,
  'change-email': 60 * 60 * 1000,
}

/** Stores a new token of `kind` for the user (earlier ones of the kind die) and mails it to `to`. */
export const mailEmailToken = async <U extends UserRecord>(
  { store, notify, options }: Pick<RouteDeps<U>, 'store' | 'notify' | 'options'>,
  kind: EmailTokenKind,
  userId: string,
  to: string,
) => {
  const token = opaqueToken()
  await store.createEmailToken({
    kind,
    userId,
    tokenHash: tokenHash(token),
    expiresAt: new Date(options.now().getTime() + LIFETIME_MS[kind]),
    ...(kind === 'change-email' ? { newEmail: to } : {}),
  })
  notify.mail({ kind, to, token })
}

/** One answer for an unknown, used, expired or wrong-kind token. */
export const invalidEmailToken = () => new AuthError('invalid_email_token', { detail: 'The token is invalid, used or expired.' })

/** The body of a route that redeems a mailed token (verify-email, confirm-email). */
export const TokenBody = z.object({ token: storableString().min(1).max(1024) })

/** The peek of a route that redeems a mailed token: the `token`, when it can be one. */
export const TokenPeek = { token: z.string().max(1024) }

/**
 * The owner of the `token` in the body while it is live, for the rate limit of a redemption
 * (docs/reference/limits.md#rate-limits, "as reset-password"); `null` (the address alone counts) otherwise.
 */
export const tokenOwner =
  <U extends UserRecord>({ store, options }: Pick<RouteDeps<U>, 'store' | 'options'>, kind: EmailTokenKind) =>
  async ({ peek }: LookupFacts<typeof TokenPeek>): Promise<Subject | null> =>
    peek.token === undefined ? null : store.findEmailToken(tokenHash(peek.token), kind, options.now())
