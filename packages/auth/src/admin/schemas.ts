/**
 * What the operators' routes take and answer (docs/guide/operators.md): an account as an operator
 * sees it (never a hash, secret, token or code), the search's query and its opaque cursor.
 */
import { z } from '@hono/zod-openapi'
import { codePointString, isStorableText, storableString } from '../fields.js'
import type { UserRecord } from '../store/types.js'
import { fieldCode } from '../validation.js'
import type { AdminUserFacts, UserCursor } from './store.js'

const timestamp = z.string().max(30).openapi({ format: 'date-time', example: '2026-11-21T10:00:00.000Z' })

export const AdminUserSchema = z
  .object({
    id: z.string().max(255),
    email: z.string().max(254).openapi({ format: 'email' }),
    name: z.string().max(100),
    emailVerified: z.boolean(),
    createdAt: timestamp,
    disabledAt: timestamp.nullable().openapi({ description: 'When an operator disabled the account; `null` while enabled' }),
    lastSignInAt: timestamp.nullable().openapi({ description: 'The latest sign-in of a browser the account knows' }),
    twoFactor: z.boolean().openapi({ description: 'A second factor is on' }),
    passkeys: z.int().min(0).max(2_147_483_647).openapi({ format: 'int32' }),
    identities: z
      .array(z.string().max(64))
      .max(100)
      .openapi({ description: 'The ids of the sign-in providers linked to the account' }),
    sessions: z.int().min(0).max(2_147_483_647).openapi({ format: 'int32', description: 'Live sessions' }),
  })
  .openapi('AdminUser')

export const AdminUserPageSchema = z
  .object({
    users: z.array(AdminUserSchema).max(100),
    next: z.string().max(512).nullable().openapi({ description: 'The `cursor` of the next page; `null` on the last' }),
  })
  .openapi('AdminUserPage')

/** An account as the operators' routes show it. */
export const adminUserJson = (facts: AdminUserFacts<UserRecord>): z.infer<typeof AdminUserSchema> => ({
  id: facts.user.id,
  email: facts.user.email,
  name: facts.user.name,
  emailVerified: facts.user.emailVerified,
  createdAt: facts.user.createdAt.toISOString(),
  disabledAt: facts.user.disabledAt?.toISOString() ?? null,
  lastSignInAt: facts.lastSignInAt?.toISOString() ?? null,
  twoFactor: facts.twoFactor,
  passkeys: facts.passkeys,
  identities: facts.identities,
  sessions: facts.sessions,
})

/**
 * The cursor: base64url of `<createdAt ms>.<id>` of the last account of the page. Opaque to the
 * client; what it decodes to is only a position in the order, so a forged one shows nothing more.
 */
export const encodeCursor = ({ createdAt, id }: UserCursor): string =>
  btoa(`${createdAt.getTime()}.${id}`).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')

export const decodeCursor = (cursor: string): UserCursor | null => {
  if (!/^[A-Za-z0-9_-]{3,512}$/.test(cursor)) return null
  let text: string
  try {
    text = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'))
  } catch {
    return null
  }
  const match = /^(\d{1,15})\.([\x21-\x7e]{1,255})$/.exec(text)
  if (!match) return null
  const createdAt = new Date(Number(match[1]))
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, id: match[2] as string }
}

/** The search's query string (the prefix is normalised as emails are: trimmed, NFKC, lower-cased). */
export const UserSearchQuery = z.object({
  query: storableString()
    .max(254)
    .optional()
    .openapi({ description: 'A prefix of the email or the name, case-insensitive; empty or absent: every account' }),
  cursor: z
    .string()
    .max(512)
    .refine((s) => decodeCursor(s) !== null, { message: 'Cursor is not one this server gave', params: fieldCode('invalid') })
    .optional()
    .openapi({ description: 'The `next` of the previous page' }),
  limit: z
    .string()
    .regex(/^[0-9]{1,3}$/, 'Limit must be a whole number from 1 to 100')
    .transform(Number)
    .pipe(z.int().min(1).max(100))
    .optional()
    .openapi({ type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 }),
})

/** The prefix an account's email or lower-cased name must start with, or `null` for every account. */
export const prefixOf = (query: string | undefined): string | null => {
  const prefix = (query ?? '').trim().normalize('NFKC').toLowerCase()
  return prefix === '' || !isStorableText(prefix) ? null : prefix
}

export const UserIdParam = z.object({
  id: z.string().openapi({
    param: { name: 'id', in: 'path' },
    // Any segment is answered (404 when no account has it): the schema refuses nothing the server accepts.
    pattern: '^[^/]+$',
    maxLength: 16384,
    description: 'An account id from the search',
  }),
})

/** Why the account is disabled: for the audit log (`admin.user_disabled`), not shown to the user. */
export const DisableBody = z
  .object({
    reason: codePointString(1, 500, 'Reason'),
  })
  .openapi('DisableUserRequest')
