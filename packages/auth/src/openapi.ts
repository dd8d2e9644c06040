/**
 * The OpenAPI builders of the auth routes: the problem document and the documented answers every
 * operation of a kind can give (401, 413, 415, 429, 500, 503), and the JSON body and content
 * wrappers (docs/reference/conventions.md#problem-documents).
 */

import { z } from '@hono/zod-openapi'
import type { jsonBodyGuard } from './body.js'
import { FIELD_ERROR_CODES, MAX_FIELD_ERRORS } from './validation.js'

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

/** The cookies an answer sets, as the `Set-Cookie` fields it carries (one per cookie). */
const COOKIES = {
  signedIn:
    'The refresh cookie (`refresh_token`, `__Secure-refresh_token` where cookies are secure; HttpOnly, Path under the auth routes) and the device cookie (`device`, `__Host-device` with Path=/ where cookies are secure; HttpOnly, one year)',
  device: 'The device cookie (`device`, `__Host-device` with Path=/ where cookies are secure; HttpOnly, one year)',
  refreshed: 'The next refresh cookie; the one presented stops working',
  cleared: 'The refresh cookie, cleared (`Max-Age=0`)',
} as const

/** `response` with the `Set-Cookie` fields of `cookies` documented. */
export const settingCookies = <R extends { description: string }>(response: R, cookies: keyof typeof COOKIES) => ({
  ...response,
  headers: z.object({ 'Set-Cookie': z.string().max(1024).openapi({ description: COOKIES[cookies] }) }),
})

/** The 200 of every route that opens a session (login, passkey, email sign-in, two-factor verify): `schema` is `AuthResult`. */
export const signedInResponse = <T extends z.ZodType>(schema: T) =>
  settingCookies(jsonContent(schema, 'Signed in; the refresh cookie and the device cookie are set'), 'signedIn')
