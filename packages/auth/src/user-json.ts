/**
 * A user and an auth result as the API shows them: the schemas of the answers that carry them,
 * and {@link userJson}, the one place a stored user becomes its JSON.
 */

import { z } from '@hono/zod-openapi'
import type { UserRecord } from './store/types.js'

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
