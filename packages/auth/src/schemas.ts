/**
 * The zod schemas of the auth routes. Each one validates the request, types the handler and
 * describes the operation in the OpenAPI document.
 */

import type { Hook } from '@hono/zod-openapi'
import { z } from '@hono/zod-openapi'
import type { Env } from 'hono'
import { AuthError } from './errors.js'
import { codePoints } from './password.js'
import type { UserRecord } from './store/types.js'

// A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * `true` for text every store can hold. PostgreSQL refuses U+0000 in `text` and cannot encode a
 * lone surrogate as UTF-8, so either one would turn into a 500 there and a stored oddity in
 * SQLite; every string field is checked with this, on every store alike (CONTRACT §14).
 */
export const isStorableText = (s: string): boolean => !s.includes('\u0000') && !LONE_SURROGATE.test(s)

export const UNSTORABLE_TEXT = 'must not contain the NUL character or an unpaired surrogate'

/**
 * A string field that refuses text no store can hold, with a 400 naming the field.
 *
 * @example
 * const Title = storableString().max(500)
 */
export const storableString = () => z.string().refine(isStorableText, UNSTORABLE_TEXT)

/** Trimmed, NFKC-normalised, lower-cased, then validated: the form used for storage, lookup and limits. */
export const canonicalEmail = (email: string): string => email.trim().normalize('NFKC').toLowerCase()

export const EmailField = z
  .string()
  .refine(isStorableText, UNSTORABLE_TEXT)
  .trim()
  .overwrite((s) => s.normalize('NFKC'))
  .toLowerCase()
  .email()
  .max(254)
  .openapi({ example: 'ada@example.com' })

/** A string whose length in code points lies in [min, max] (JSON Schema counts code points too). */
export const codePointString = (min: number, max: number, what: string) =>
  storableString()
    .refine((s) => codePoints(s) >= min, `${what} must be at least ${min} characters`)
    .refine((s) => codePoints(s) <= max, `${what} must be at most ${max} characters`)
    .openapi({ minLength: min, maxLength: max })

export const NewPasswordField = codePointString(8, 256, 'Password').openapi({ format: 'password' })
export const PasswordField = storableString().max(1024).openapi({ format: 'password' })

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('Problem')

/** A documented problem response. */
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ProblemSchema } },
})

/** The documented 429 of a rate-limited operation, with its `Retry-After` header. */
export const rateLimitedResponse = {
  ...problemResponse('Too many attempts from this client or for this email'),
  headers: z.object({
    'Retry-After': z.string().openapi({ description: 'Whole seconds until the window ends', example: '900' }),
  }),
}

export const UserSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    createdAt: z.string().openapi({ format: 'date-time', example: '2026-11-21T10:00:00.000Z' }),
  })
  .openapi('User')

/** A user as the API shows it: {@link UserSchema}, never the role or anything else the store keeps. */
export const userJson = (user: UserRecord): z.infer<typeof UserSchema> => ({
  id: user.id,
  name: user.name,
  email: user.email,
  createdAt: user.createdAt.toISOString(),
})

export const TokenSchema = z
  .object({
    accessToken: z.string(),
    tokenType: z.literal('Bearer'),
    expiresIn: z.number().int().openapi({ description: 'Seconds until the access token expires' }),
  })
  .openapi('AccessToken')

export const AuthResultSchema = TokenSchema.extend({ user: UserSchema }).openapi('AuthResult')

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
})

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})

/**
 * The validation hook: every failed schema becomes one 400 problem document with `errors[]`.
 * Pass it as `defaultHook` to your own `OpenAPIHono` so your routes answer the same way.
 *
 * @example
 * const app = new OpenAPIHono({ defaultHook: validationHook })
 */
export const validationHook: Hook<unknown, Env, string, unknown> = (result) => {
  if (result.success) return
  throw new AuthError('validation_failed', {
    detail: 'The request does not match the schema.',
    errors: result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
  })
}

/** The canonical `email` of a body that may be anything, for rate-limit keys. */
export const emailFromBody = (body: unknown): string | null => {
  const email = (body as { email?: unknown } | undefined)?.email
  return typeof email === 'string' ? canonicalEmail(email) : null
}
