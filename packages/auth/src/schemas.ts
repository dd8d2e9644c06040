/**
 * The zod schemas of the auth routes. Each one validates the request, types the handler and
 * describes the operation in the OpenAPI document.
 */

import { z } from '@hono/zod-openapi'
import type { jsonBodyGuard } from './body.js'
import { COMMON_PASSWORD, codePoints, isCommonPassword } from './password.js'
import type { UserRecord } from './store/types.js'
import { FIELD_ERROR_CODES, fieldCode, MAX_FIELD_ERRORS, plural } from './validation.js'

// A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * `true` for text every store can hold. PostgreSQL refuses U+0000 in `text` and cannot encode a
 * lone surrogate as UTF-8, so either one would turn into a 500 there and a stored oddity in
 * SQLite; every string field is checked with this, on every store alike (docs/reference/operations.md#unstorable-text).
 */
export const isStorableText = (s: string): boolean => !s.includes('\u0000') && !LONE_SURROGATE.test(s)

export const UNSTORABLE_TEXT = 'must not contain the NUL character or an unpaired surrogate'

/**
 * A string field that refuses text no store can hold, with a 400 naming the field.
 *
 * @example
 * const Title = storableString().max(500)
 */
export const storableString = () =>
  z.string().refine(isStorableText, { message: UNSTORABLE_TEXT, params: fieldCode('unsupported_text') })

/** Trimmed, NFKC-normalised, lower-cased, then validated: the form used for storage, lookup and limits. */
export const canonicalEmail = (email: string): string => email.trim().normalize('NFKC').toLowerCase()

/**
 * `false` when NFKC would turn a character into an address's punctuation (`＠` into `@`, `．` into
 * `.`, `，` into `,`): normalising may change letters and digits, never where an address splits,
 * so the address that is checked and mailed is the one that was typed (docs/reference/conventions.md#emails).
 */
export const keepsItsPunctuation = (email: string): boolean => {
  for (const ch of email) if (ch > '\u007f' && /[^\p{L}\p{M}\p{N}]/u.test(ch.normalize('NFKC'))) return false
  return true
}

export const EmailField = z
  .string()
  .refine(isStorableText, { message: UNSTORABLE_TEXT, params: fieldCode('unsupported_text') })
  .refine(keepsItsPunctuation, {
    message: 'Email must be written with a plain @ and plain punctuation',
    params: fieldCode('invalid_email'),
  })
  .trim()
  .overwrite((s) => s.normalize('NFKC'))
  .toLowerCase()
  .email()
  .max(254)
  .openapi({ example: 'ada@example.com' })

/** A string whose length in code points lies in [min, max] (JSON Schema counts code points too). */
export const codePointString = (min: number, max: number, what: string) =>
  storableString()
    .refine((s) => codePoints(s) >= min, {
      message: `${what} must be at least ${plural(min, 'character')}`,
      params: fieldCode('too_short'),
    })
    .refine((s) => codePoints(s) <= max, {
      message: `${what} must be at most ${plural(max, 'character')}`,
      params: fieldCode('too_long'),
    })
    .openapi({ minLength: min, maxLength: max })

/**
 * A new password: 8 to 256 code points, not on the common-password list. The list is checked
 * only when the length is right, beside the other fields' checks, so one answer names them all.
 */
export const NewPasswordField = codePointString(8, 256, 'Password')
  .refine(async (s) => !(await isCommonPassword(s)), {
    message: COMMON_PASSWORD,
    params: fieldCode('common_password'),
    when: (payload) => payload.issues.length === 0,
  })
  .openapi({ format: 'password' })
export const PasswordField = storableString().max(1024).openapi({ format: 'password' })
/** `currentPassword` of an operation that takes a fresh session instead (`x-fresh`). */
export const CurrentPasswordField = PasswordField.optional().openapi({
  format: 'password',
  description:
    'The current password. May be left out while the session is fresh (it proved its holder at most `x-fresh` seconds ago: signed in or re-authenticated with POST /auth/reauth); when given, it is checked.',
})

export const ProblemSchema = z
  .object({
    type: z.string().max(200).openapi({ format: 'uri', example: 'urn:latchkey:problem:validation-failed' }),
    title: z.string().max(200),
    status: z.number().int().min(400).max(599).openapi({ format: 'int32' }),
    // A 404 names the id as sent, and a path may be as long as the server takes a request line.
    detail: z.string().max(20_000),
    code: z
      .string()
      .max(64)
      .optional()
      .openapi({ description: 'The stable code for programs, the snake_case form of `type`', example: 'email_unverified' }),
    errors: z
      .array(
        z.object({
          path: z
            .string()
            .max(1000)
            .openapi({ description: 'The field, dotted (`title`, `items.0.name`); empty for the body itself' }),
          code: z
            .string()
            .max(64)
            .openapi({
              description: `Stable, for programs: ${FIELD_ERROR_CODES.join(', ')}, or an app's own`,
              example: 'too_short',
            }),
          message: z.string().max(1000).openapi({ example: 'Password must be at least 8 characters' }),
        }),
      )
      .max(MAX_FIELD_ERRORS)
      .optional()
      .openapi({ description: `Every field error of the request, at most ${MAX_FIELD_ERRORS} (validation failures only)` }),
    maxAge: z.int().min(0).max(2_147_483_647).optional().openapi({
      format: 'int32',
      description:
        '`reauthentication-required` only: the most seconds since the session last proved its holder that the operation accepts (re-authenticate with POST /auth/reauth)',
    }),
  })
  .openapi('Problem')

/** A documented problem response. */
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ProblemSchema } },
})

/** A 401: the problem document and its `WWW-Authenticate` challenge (docs/reference/conventions.md#status-codes). */
export const unauthorizedResponse = (description: string) => ({
  ...problemResponse(description),
  headers: z.object({
    'WWW-Authenticate': z.string().max(200).openapi({
      description:
        '`Bearer`, with `error="invalid_token"` when a credential was sent and refused, or `error="insufficient_user_authentication", max_age=<seconds>` (RFC 9470) when the operation needs a fresher session',
      example: 'Bearer error="invalid_token"',
    }),
  }),
})

/**
 * The 413 and 415 of {@link jsonBodyGuard}: every operation whose method may carry a body (POST,
 * PUT, PATCH, DELETE) can answer them, before anything else (docs/reference/conventions.md#which-error-wins).
 */
export const bodyGuardResponses = {
  413: problemResponse('The body is over 64 KiB'),
  415: problemResponse('The body is not application/json'),
}

/** The 500 every operation that reaches the database can answer; never caused by client input. */
export const internalErrorResponse = problemResponse(
  'An unexpected server error, such as the database not answering; never caused by client input, and the body says nothing of the cause',
)

/** The 503 of an operation that hashes a password when the hashing queue is full (`hashQueue`), before hashing. */
export const overloadedResponse = {
  ...problemResponse('Too many password hashings are waiting; nothing was done, try again shortly'),
  headers: z.object({
    'Retry-After': z
      .string()
      .regex(/^\d{1,10}$/)
      .openapi({ description: 'Seconds to wait', example: '1', maxLength: 10 }),
  }),
}

/** The documented 429 of a rate-limited operation, with `Retry-After` and the IETF RateLimit fields. */
export const rateLimitedResponse = {
  ...problemResponse('Too many attempts from this client or for this email'),
  headers: z.object({
    'Retry-After': z
      .string()
      .regex(/^\d{1,10}$/)
      .openapi({ description: 'Whole seconds until the window ends', example: '900', maxLength: 10 }),
    'RateLimit-Policy': z.string().max(1000).openapi({
      description: 'Every limit of the operation: name, `q` attempts per `w` seconds (draft-ietf-httpapi-ratelimit-headers)',
      example: '"login-ip";q=100;w=900, "login-email";q=5;w=900',
    }),
    RateLimit: z.string().max(200).openapi({
      description: 'The limit that refused: `r` attempts left, `t` seconds until its window ends',
      example: '"login-email";r=0;t=900',
    }),
  }),
}

export const UserSchema = z
  .object({
    id: z.string().max(255),
    name: z.string().max(100),
    email: z.string().max(254).openapi({ format: 'email' }),
    emailVerified: z.boolean().openapi({ description: 'Whether a token mailed to this address was redeemed' }),
    createdAt: z.string().max(30).openapi({ format: 'date-time', example: '2026-11-21T10:00:00.000Z' }),
  })
  .openapi('User')

/** A user as the API shows it: {@link UserSchema}, never the role or anything else the store keeps. */
export const userJson = (user: UserRecord): z.infer<typeof UserSchema> => ({
  id: user.id,
  name: user.name,
  email: user.email,
  emailVerified: user.emailVerified,
  createdAt: user.createdAt.toISOString(),
})

export const TokenSchema = z
  .object({
    accessToken: z.string().max(4096).openapi({ description: 'A JWT (HS256); send it as `Authorization: Bearer …`' }),
    tokenType: z.literal('Bearer'),
    expiresIn: z
      .number()
      .int()
      .min(1)
      .max(2_147_483_647)
      .openapi({ format: 'int32', description: 'Seconds until the access token expires' }),
  })
  .openapi('AccessToken')

export const AuthResultSchema = TokenSchema.extend({ user: UserSchema }).openapi('AuthResult')

/** `{ message }`: an accepted request whose result comes by mail. */
export const MessageSchema = z.object({ message: z.string().max(200) }).openapi('Message')

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
})

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})
