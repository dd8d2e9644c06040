/** The wire shapes of the API-key routes (docs/guide/api-keys.md). */
import { z } from '@hono/zod-openapi'
import { codePointString } from '../fields.js'
import { fieldCode } from '../validation.js'
import { DEFAULT_DAYS, MAX_DAYS } from './core.js'
import type { ApiKeyRecord } from './store.js'

const Timestamp = z.string().max(30).openapi({ format: 'date-time', example: '2026-11-21T10:00:00.000Z' })

/** The body of `POST /api-keys`, its scopes limited to those the application declared. */
export const createKeyBody = (scopes: readonly string[]) =>
  z
    .object({
      name: codePointString(1, 100, 'Name').openapi({ example: 'CI deploy job' }),
      scopes: z
        .array(
          z.string().refine((s) => scopes.includes(s), {
            message: `Scope must be one of ${scopes.join(', ')}`,
            params: fieldCode('invalid_value'),
          }),
        )
        .min(1, { message: 'Give the key at least one scope' })
        .max(scopes.length * 4, { message: 'Too many scopes' })
        .openapi({ items: { type: 'string', enum: [...scopes] }, example: scopes.slice(0, 1) }),
      expiresInDays: z
        .number()
        .int({ message: 'Expiry must be a whole number of days' })
        .min(1, { message: `Expiry must be 1 to ${MAX_DAYS} days` })
        .max(MAX_DAYS, { message: `Expiry must be 1 to ${MAX_DAYS} days` })
        .optional()
        .openapi({ format: 'int32', default: DEFAULT_DAYS, description: 'Days until the key stops working' }),
    })
    .openapi('CreateApiKeyRequest')

export const ApiKeySchema = z
  .object({
    id: z.string().max(36),
    name: z.string().max(100),
    scopes: z.array(z.string().max(64)).max(100),
    prefix: z
      .string()
      .max(12)
      .openapi({ description: 'The first 12 characters of the key, to tell it apart', example: 'lk_4fQ9zXb2K' }),
    createdAt: Timestamp,
    expiresAt: Timestamp,
    lastUsedAt: Timestamp.nullable().openapi({ description: 'The last request it authenticated, to the minute' }),
  })
  .openapi('ApiKey')

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().max(64).openapi({
    description: 'The key itself: shown in this answer only, never again. Send it as `Authorization: Bearer lk_…`.',
    example: 'lk_4fQ9zXb2KqP0Vd8sLmN3rT6yW1cJ5hG7eA2iU9oB0kX4Zp',
  }),
}).openapi('CreatedApiKey')

/** Most keys a list shows: every live one (at most 50) and the most recently expired. */
export const LIST_MAX = 100

export const ApiKeyIdParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, pattern: '^[^/]+$', maxLength: 16384, description: 'The key id' }),
})

export const keyJson = (key: ApiKeyRecord) => ({
  id: key.id,
  name: key.name,
  scopes: key.scopes,
  prefix: key.prefix,
  createdAt: key.createdAt.toISOString(),
  expiresAt: key.expiresAt.toISOString(),
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
})
