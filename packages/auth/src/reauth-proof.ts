/**
 * A proof `POST /reauth` takes besides the password (docs/guide/step-up.md): a feature that can
 * prove its holder again registers one (passkeys: `passkey`, an assertion by one of the caller's
 * own). The route offers each as an optional body field, beside `password`, one of them required.
 */
import type { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AuthError } from './errors.js'
import type { FirstFactor } from './store/types.js'

export interface ReauthProof {
  /** The body field that carries it. */
  field: string
  /** Its schema (a named OpenAPI component). */
  schema: z.ZodType
  /** What it is, in the body's messages: `a passkey`. */
  named: string
  /** The method the proof is, as the session's `amr` records it. */
  method: FirstFactor
  /** The refusal of a proof that is wrong or no longer current; its code is the failure the route reports. */
  wrong: () => AuthError
  /**
   * Checks `value` as the caller's (`userId`): answers whether it verified the user (a second factor is
   * then not asked), or throws {@link ReauthProof.wrong}.
   */
  prove: (c: Context, userId: string, value: unknown) => Promise<{ userVerified: boolean }>
}
