/** The social sign-in routes' schemas and the answers they share. */
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { AuthError } from '../errors.js'
import { storableString } from '../fields.js'
import { fieldFailure } from '../validation.js'
import { safeReturnTo } from './flow.js'

export const ProviderParam = z.object({
  provider: z
    .string()
    .max(64)
    .openapi({ param: { name: 'provider', in: 'path' }, description: 'The configured provider id', example: 'google' }),
})

export const ReturnToField = storableString().max(2048).openapi({
  description:
    'Where the browser lands afterwards: a path beginning with exactly one `/`, or an absolute URL on a trusted origin. Default `/`',
  example: '/account',
})

export const ProviderSchema = z
  .object({ id: z.string().max(32).openapi({ example: 'google' }), name: z.string().max(64).openapi({ example: 'Google' }) })
  .openapi('OAuthProvider')

export const IdentitySchema = z
  .object({
    id: z.string().max(64),
    provider: z.string().max(32).openapi({ description: 'The provider id it was linked through', example: 'github' }),
    email: z.string().max(320).nullable().openapi({ description: 'The email the provider last reported' }),
    createdAt: z.string().max(30).openapi({ format: 'date-time' }),
    lastUsedAt: z.string().max(30).nullable().openapi({ format: 'date-time' }),
  })
  .openapi('Identity')

export const unknownProvider = (id: string) =>
  new AuthError('not_found', { detail: `No provider '${[...id].slice(0, 32).join('')}' is configured.` })

/** `returnTo` of a request, checked: the default `/`; a refused value is a 400. */
export const returnToOf = (c: Context, given: string | undefined, trusted: ReadonlySet<string> | null): string => {
  const repeated = (c.req.queries('returnTo')?.length ?? 0) > 1
  const safe = given === undefined ? '/' : safeReturnTo(given, trusted)
  if (repeated || safe === null)
    throw fieldFailure(
      'returnTo',
      'invalid_value',
      'returnTo must be a path beginning with exactly one / or an absolute URL on a trusted origin',
    )
  return safe
}

/** The documented 302 of a redirect, with its `Location`. */
export const redirectResponse = (description: string) => ({
  description,
  headers: z.object({ Location: z.string().max(4096).openapi({ description: 'Where the browser goes next' }) }),
})
