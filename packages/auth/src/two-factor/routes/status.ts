/** GET /two-factor: whether the second factor is on, pending, and how many recovery codes are left. */
import { z } from '@hono/zod-openapi'
import { jsonContent } from '../../openapi.js'
import type { RouteDeps } from '../../route-deps.js'
import type { UserRecord } from '../../store/types.js'
import { RECOVERY_CODE_COUNT } from '../recovery-codes.js'

const StatusSchema = z
  .object({
    enabled: z.boolean(),
    pending: z.boolean().openapi({ description: 'Set up and waiting for the first code (POST /two-factor/enable)' }),
    recoveryCodesLeft: z.int().min(0).max(RECOVERY_CODE_COUNT).openapi({ format: 'int32' }),
  })
  .openapi('TwoFactorStatus')

export const twoFactorStatus = <U extends UserRecord>({ route, store }: Pick<RouteDeps<U>, 'route' | 'store'>) =>
  route.guarded(
    {
      tags: ['two-factor'],
      method: 'get',
      path: '/two-factor',
      operationId: 'getTwoFactor',
      summary: 'Whether two-factor authentication is on, and how many recovery codes are left',
      responses: { 200: jsonContent(StatusSchema, 'The state of the second factor') },
    },
    {},
    async (c) => {
      const factor = await store.findTwoFactor(c.var.user.id)
      return c.json(
        {
          enabled: Boolean(factor?.enabledAt),
          pending: Boolean(factor && !factor.enabledAt),
          recoveryCodesLeft: factor?.recoveryCodesLeft ?? 0,
        },
        200,
      )
    },
  )
